import fs from "node:fs";
import git from "isomorphic-git";
import { parseTree, readLooseObject, type TreeEntry, writeLooseObject } from "./loose-objects.ts";
import { progress } from "./progress.ts";

// Git objects and trees, through isomorphic-git: copying what one repository has and another
// lacks (isomorphic-git speaks only smart HTTP, so a remote on a local path is reached by copying
// objects between the two object stores), and comparing two trees folder by folder.

/**
 * isomorphic-git re-reads a pack's index on every call unless it is given a cache object; one
 * cache per repository for the life of a command.
 */
const caches = new Map<string, object>();
export function cacheFor(gitdir: string): object {
  let c = caches.get(gitdir);
  if (!c) {
    c = {};
    caches.set(gitdir, c);
  }
  return c;
}

/** Each pack index of a repository, read once per command. */
const packIndexes = new Map<string, Uint8Array[]>();
function packIndexesOf(gitdir: string): Uint8Array[] {
  let idx = packIndexes.get(gitdir);
  if (!idx) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(`${gitdir}/objects/pack`).filter((n) => n.endsWith(".idx"));
    } catch {
      // no pack folder: loose objects only
    }
    idx = names.map((n) => fs.readFileSync(`${gitdir}/objects/pack/${n}`));
    packIndexes.set(gitdir, idx);
  }
  return idx;
}

/** Whether a pack index (version 1 or 2) lists an object: a binary search over its sorted ids. */
function packIndexHas(idx: Uint8Array, oid: Uint8Array): boolean {
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  const v2 = view.getUint32(0) === 0xff744f63;
  const fanout = v2 ? 8 : 0;
  const first = oid[0]!;
  let lo = first === 0 ? 0 : view.getUint32(fanout + (first - 1) * 4);
  let hi = view.getUint32(fanout + first * 4);
  const base = fanout + 1024;
  const width = v2 ? 20 : 24;
  const skip = v2 ? 0 : 4;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = base + mid * width + skip;
    let c = 0;
    for (let i = 0; i < 20 && c === 0; i++) c = idx[at + i]! - oid[i]!;
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/**
 * Whether a repository has an object: its loose file, or a line in a pack index found by binary
 * search (isomorphic-git would first parse every index whole). A repository that borrows objects
 * from elsewhere (alternates) is asked through isomorphic-git.
 */
async function has(gitdir: string, oid: string): Promise<boolean> {
  if (fs.existsSync(`${gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`)) return true;
  const raw = new Uint8Array(20);
  for (let i = 0; i < 20; i++) raw[i] = Number.parseInt(oid.slice(i * 2, i * 2 + 2), 16);
  if (packIndexesOf(gitdir).some((idx) => packIndexHas(idx, raw))) return true;
  if (!fs.existsSync(`${gitdir}/objects/info/alternates`)) return false;
  try {
    await git.readObject({ fs, gitdir, oid, format: "deflated", cache: cacheFor(gitdir) });
    return true;
  } catch {
    return false;
  }
}

/**
 * Copy every object reachable from `tip` that `dst` lacks. A commit or tree `dst` already has is
 * not entered: git keeps a commit's whole history and a tree's whole content together.
 */
export async function copyReachable(src: string, dst: string, tip: string): Promise<number> {
  const stack = [tip];
  const seen = new Set<string>();
  let copied = 0;
  while (stack.length) {
    const oid = stack.pop()!;
    if (seen.has(oid)) continue;
    seen.add(oid);
    if (await has(dst, oid)) continue;
    if (copied % 200 === 0) progress("copying objects", copied);
    // a loose object is copied by memsync itself; a packed one (or a tag) through isomorphic-git
    const loose = readLooseObject(src, oid);
    const obj =
      loose && (loose.type === "blob" || loose.type === "tree" || loose.type === "commit")
        ? { type: loose.type, object: loose.content }
        : ((await git.readObject({ fs, gitdir: src, oid, format: "content", cache: cacheFor(src) })) as { type: string; object: Uint8Array });
    if (obj.type === "blob" || obj.type === "tree" || obj.type === "commit") await writeLooseObject(dst, obj.type, obj.object);
    else await git.writeObject({ fs, gitdir: dst, type: obj.type as "tag", object: obj.object, format: "content", oid });
    copied++;
    if (obj.type === "commit") {
      // a commit's header (up to the first blank line) names its tree and parents
      const text = new TextDecoder().decode(obj.object);
      const header = text.split("\n\n", 1)[0]!;
      for (const m of header.matchAll(/^(?:tree|parent) ([0-9a-f]{40})$/gm)) stack.push(m[1]!);
    } else if (obj.type === "tree") {
      for (const e of parseTree(obj.object)) if (e.type !== "commit") stack.push(e.oid);
    }
  }
  return copied;
}

/**
 * A tree's entries: a loose object is read and inflated here (zlib in the runtime, where
 * isomorphic-git inflates in JavaScript: a commit touching every shard reads 500 trees); a packed
 * one through isomorphic-git.
 */
export async function readTreeEntries(gitdir: string, oid: string): Promise<TreeEntry[]> {
  const loose = readLooseObject(gitdir, oid);
  if (loose?.type === "tree") return parseTree(loose.content);
  return (await git.readTree({ fs, gitdir, oid, cache: cacheFor(gitdir) })).tree as TreeEntry[];
}

export interface TreeChange {
  a: string | null;
  b: string | null;
}

/** Paths whose blob differs between two trees (either may be null: an empty tree). */
export async function diffTrees(gitdir: string, a: string | null, b: string | null, prefix = ""): Promise<Map<string, TreeChange>> {
  const out = new Map<string, TreeChange>();
  if (a === b) return out;
  const entries = async (oid: string | null) => {
    const m = new Map<string, { oid: string; type: string }>();
    if (oid) for (const e of await readTreeEntries(gitdir, oid)) m.set(e.path, { oid: e.oid, type: e.type });
    return m;
  };
  const [ea, eb] = await Promise.all([entries(a), entries(b)]);
  for (const name of new Set([...ea.keys(), ...eb.keys()])) {
    const x = ea.get(name);
    const y = eb.get(name);
    if (x?.oid === y?.oid) continue;
    const path = prefix ? `${prefix}/${name}` : name;
    const xt = x?.type === "tree" ? x.oid : null;
    const yt = y?.type === "tree" ? y.oid : null;
    if (xt || yt) for (const [p, c] of await diffTrees(gitdir, xt, yt, path)) out.set(p, c);
    const xb = x && x.type === "blob" ? x.oid : null;
    const yb = y && y.type === "blob" ? y.oid : null;
    if (xb !== yb) out.set(path, { a: xb, b: yb });
  }
  return out;
}

export async function readBlobText(gitdir: string, oid: string | null): Promise<string | null> {
  if (!oid) return null;
  const { blob } = await git.readBlob({ fs, gitdir, oid, cache: cacheFor(gitdir) });
  return new TextDecoder().decode(blob);
}

export async function resolve(gitdir: string, ref: string): Promise<string | null> {
  try {
    return await git.resolveRef({ fs, gitdir, ref });
  } catch {
    return null;
  }
}

export async function treeOf(gitdir: string, commit: string | null): Promise<string | null> {
  return commit ? (await git.readCommit({ fs, gitdir, oid: commit, cache: cacheFor(gitdir) })).commit.tree : null;
}
