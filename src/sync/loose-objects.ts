import fs from "node:fs";
import { concatBytes } from "../core/bytes.ts";
import { objectMade, objectWritten } from "./fault.ts";
import { oidAt } from "./object-ref.ts";
import { sha1Hex } from "./sha1.ts";
import { zlibDeflate, zlibInflate } from "./zlib.ts";
import { heartbeat } from "../store/lock-heartbeat.ts";

// Writing git objects straight into .git/objects as loose files: "<type> <size>\0<content>",
// named by its SHA-1 and zlib-deflated, as git itself does. isomorphic-git's writeObject costs
// about a millisecond per object (it deflates through a web stream and checks the file first); a
// commit that touches hundreds of folders (gc, consolidation) writes hundreds of trees. An
// object that is already there is not written again (same name, same content).

export type TreeEntry = { mode: string; path: string; oid: string; type: "blob" | "tree" | "commit" };

const enc = new TextEncoder();

function framed(type: string, content: Uint8Array): Uint8Array<ArrayBuffer> {
  const header = enc.encode(`${type} ${content.length}\0`);
  const raw = new Uint8Array(header.length + content.length);
  raw.set(header, 0);
  raw.set(content, header.length);
  return raw;
}

/** An object's id, as `git hash-object -t <type>` gives it. */
export async function hashObject(type: "blob" | "tree" | "commit", content: Uint8Array): Promise<string> {
  return sha1Hex(framed(type, content));
}

/**
 * Write one object; returns its id. Atomic: a temporary file renamed into place, so an object
 * file that exists is whole (a kill leaves at most a tmp_obj_* file, which git ignores).
 */
export async function writeLooseObject(gitdir: string, type: "blob" | "tree" | "commit" | "tag", content: Uint8Array): Promise<string> {
  heartbeat(); // (thousands in a row: a merge's blobs, a commit's trees, under the store's lock)
  const raw = framed(type, content);
  const oid = sha1Hex(raw); // (synchronous and native: Web Crypto's digest costs a promise, a copy and a thread hop per object)
  objectMade();
  writeLooseStored(gitdir, oid, () => zlibDeflate(raw));
  return oid;
}

/**
 * Put an object's loose file in place from its stored (deflated) bytes, unless it is there:
 * a copy from another repository's loose file writes its bytes as they are (no deflate again);
 * the caller has checked they inflate to `oid`.
 */
export function writeLooseStored(gitdir: string, oid: string, stored: () => Uint8Array): void {
  const dir = `${gitdir}/objects/${oid.slice(0, 2)}`;
  const file = `${dir}/${oid.slice(2)}`;
  if (fs.existsSync(file)) return;
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${dir}/tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(tmp, stored(), { mode: 0o444 });
  fs.renameSync(tmp, file);
  objectWritten();
}

/** git's order of tree entries: by name, a folder as if its name ended in "/". */
function sortKey(e: TreeEntry): string {
  return e.type === "tree" ? `${e.path}/` : e.path;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** A tree object's content: "<mode> <name>\0<20-byte id>" per entry, in git's order. */
export function treeContent(entries: readonly TreeEntry[]): Uint8Array {
  // git's order is by the bytes of the names (a folder's as if it ended in "/"); for names all
  // ASCII, the order of the strings is that order, and the runtime's sort needs no bytes (a tree of
  // 1,150 entries, the top memories folder at 10k, is rewritten by every commit)
  const keys = entries.map(sortKey);
  const ascii = keys.every((k) => /^[\x00-\x7f]*$/.test(k));
  const order = entries.map((_, i) => i);
  if (ascii) order.sort((x, y) => (keys[x]! < keys[y]! ? -1 : keys[x]! > keys[y]! ? 1 : 0));
  else {
    const bytes = keys.map((k) => enc.encode(k));
    order.sort((x, y) => compareBytes(bytes[x]!, bytes[y]!));
  }
  const parts: Uint8Array[] = [];
  for (const i of order) {
    const e = entries[i]!;
    // git writes a folder's mode as "40000" (no leading zero)
    const head = enc.encode(`${e.type === "tree" ? "40000" : e.mode.replace(/^0+/, "")} ${e.path}\0`);
    const id = new Uint8Array(20);
    for (let k = 0; k < 20; k++) id[k] = (nibble(e.oid.charCodeAt(k * 2)) << 4) | nibble(e.oid.charCodeAt(k * 2 + 1));
    parts.push(head, id);
  }
  return concatBytes(parts);
}

/** A hex digit's value (an id is checked as 40 hex digits before it is ever written: objectId, parseTree). */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : c <= 70 ? c - 55 : c - 87;
}

export function writeTreeObject(gitdir: string, entries: readonly TreeEntry[]): Promise<string> {
  return writeLooseObject(gitdir, "tree", treeContent(entries));
}

const dec = new TextDecoder();

/** A loose object's type and content (and its file's bytes), or null when it is not a loose file (packed, or missing). */
export function readLooseObject(gitdir: string, oid: string): { type: string; content: Uint8Array; stored: Uint8Array } | null {
  let stored: Uint8Array;
  let raw: Uint8Array;
  try {
    stored = fs.readFileSync(`${gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
    raw = zlibInflate(stored);
  } catch {
    return null;
  }
  const nul = raw.indexOf(0);
  const [type] = dec.decode(raw.subarray(0, nul)).split(" ");
  return { type: type!, content: raw.subarray(nul + 1), stored };
}

/** A tree object's entries, as isomorphic-git's readTree gives them. */
export function parseTree(content: Uint8Array): TreeEntry[] {
  const out: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space);
    const mode = dec.decode(content.subarray(at, space));
    const path = dec.decode(content.subarray(space + 1, nul));
    const oid = oidAt(content, nul + 1);
    const padded = mode.padStart(6, "0");
    out.push({ mode: padded, path, oid, type: padded === "040000" ? "tree" : padded === "160000" ? "commit" : "blob" });
    at = nul + 21;
  }
  return out;
}

export interface CommitFields {
  tree: string;
  parents: readonly string[];
  author: { name: string; email: string; timestamp: number };
  message: string;
}

/** A name or email as git's commit header can hold it: no angle brackets, no line breaks. */
function identityPart(s: string): string {
  return s.replace(/[<>\r\n]/g, "").trim();
}

/**
 * A commit object's content, byte for byte as git (and isomorphic-git) write it: the tree, the
 * parents, author and committer (the same, UTC), a blank line, the message ending in one newline.
 */
export function commitContent(c: CommitFields): Uint8Array {
  const who = `${identityPart(c.author.name) || "memsync"} <${identityPart(c.author.email)}> ${Math.floor(c.author.timestamp)} +0000`;
  const message = `${c.message.replace(/\r/g, "").replace(/^\n+/, "").replace(/\n+$/, "")}\n`;
  const head = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`), `author ${who}`, `committer ${who}`].join("\n");
  return enc.encode(`${head}\n\n${message}`);
}

/** Write a commit object (atomically, like every loose object here); returns its id. */
export function writeCommitObject(gitdir: string, c: CommitFields): Promise<string> {
  return writeLooseObject(gitdir, "commit", commitContent(c));
}
