import fs from "node:fs";
import process from "node:process";
import git from "isomorphic-git";
import { parseTree, readLooseObject, type TreeEntry, writeLooseObject, writeLooseStored } from "./loose-objects.ts";
import { objectId } from "./sha1.ts";
import { corrupt } from "../core/errors.ts";
import { faultPoint, objectWritten } from "./fault.ts";
import { describeRef, type ObjectRef, type ObjectType } from "./object-ref.ts";
import { forgetPackIndexes, inPackIndex, packsChangedSinceRead, readObjectNative, readPackedObject } from "./pack-index.ts";
import { progress } from "./progress.ts";
import { traceNote } from "./sync-trace.ts";
import { changedEntries } from "./tree-bytes.ts";
import type { Version } from "./delta-write.ts";
import { forgetAtNextCommand } from "../runtime/command-scope.ts";

// Git objects and trees, through isomorphic-git: copying what one repository has and another
// lacks, children first (isomorphic-git speaks only smart HTTP, so a remote on a local path is
// reached by copying objects between the two object stores), walking history without recursion,
// and comparing two trees folder by folder.

/**
 * isomorphic-git re-reads a pack's index on every call unless it is given a cache object; one
 * cache per repository for the life of a command.
 */
const caches = new Map<string, object>();
forgetAtNextCommand(() => caches.clear());
export function cacheFor(gitdir: string): object {
  let c = caches.get(gitdir);
  if (!c) {
    c = {};
    caches.set(gitdir, c);
  }
  return c;
}

/** Forget what was read of a repository's packs (packs were added or removed). */
export function forgetPacks(gitdir: string): void {
  forgetPackIndexes(gitdir);
  caches.delete(gitdir);
}

/**
 * Whether a repository has an object: a line in a pack index (read once per command, binary
 * searched in memory, as git does; isomorphic-git would first parse every index whole), else its
 * loose file. The packs go first: most objects a copy asks about are unchanged entries of the
 * trees it walks, and after a repack those are packed, so a miss on the loose folder (a failing
 * `access` each, thousands per pull) is not paid for them. A repository that borrows objects
 * from elsewhere (alternates) is asked through isomorphic-git.
 */
export async function has(gitdir: string, oid: string): Promise<boolean> {
  if (inPackIndex(gitdir, oid)) return true;
  if (fs.existsSync(`${gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`)) return true;
  return hasBorrowed(gitdir, oid);
}

/** has(), for an object known not to be a loose file: in a pack, or borrowed through alternates. */
export async function hasNotLoose(gitdir: string, oid: string): Promise<boolean> {
  if (inPackIndex(gitdir, oid)) return true;
  return hasBorrowed(gitdir, oid);
}

/** Whether a repository borrows objects (objects/info/alternates): looked at once per command. */
const borrows = new Map<string, boolean>();
forgetAtNextCommand(() => borrows.clear());

/** Whether a repository with alternates can give an object through them. */
async function hasBorrowed(gitdir: string, oid: string): Promise<boolean> {
  let b = borrows.get(gitdir);
  if (b === undefined) borrows.set(gitdir, (b = fs.existsSync(`${gitdir}/objects/info/alternates`)));
  if (!b) return false;
  try {
    await git.readObject({ fs, gitdir, oid, format: "deflated", cache: cacheFor(gitdir) });
    return true;
  } catch {
    return false;
  }
}


export type { ObjectRef, ObjectType };
export { describeRef };

export interface GitObject {
  type: ObjectType;
  content: Uint8Array;
  /** The loose file's bytes, when it was read from one (a copy writes them as they are). */
  stored?: Uint8Array;
  /** Its pack entry's zlib stream, when it was read from a pack where it is stored whole (a copy into a clone's pack writes it as it is). */
  deflated?: Uint8Array;
}

/** An object's type and content, loose or packed; null when the repository cannot give it. */
export async function readObjectFrom(gitdir: string, oid: string): Promise<GitObject | null> {
  // a miss here may be a loose file another process packed and removed since this one read the
  // packs (a repack of a path remote): the packs are read again when they changed, so the reads
  // after it are not all misses (each asked of isomorphic-git, which lists the pack folder per
  // object: a fetch of thousands of objects from a hub repacked meanwhile ran past 5 minutes)
  let native = readPackedFirst(gitdir, oid);
  if (!native && packsChangedSinceRead(gitdir)) {
    caches.delete(gitdir);
    native = readPackedFirst(gitdir, oid);
  }
  if (native) return native as GitObject;
  try {
    const r = (await git.readObject({ fs, gitdir, oid, format: "content", cache: cacheFor(gitdir) })) as { type: ObjectType; object: Uint8Array };
    return { type: r.type, content: r.object };
  } catch {
    return null;
  }
}

/**
 * An object read natively, its packs asked first (a binary search in memory) and then its loose
 * file: most objects a copy reads from a remote are packed (a push repacks it), and a loose probe
 * first cost a failed open for each.
 */
function readPackedFirst(gitdir: string, oid: string): { type: string; content: Uint8Array; deflated?: Uint8Array } | null {
  return readPackedObject(gitdir, oid) ?? readLooseObject(gitdir, oid);
}

/** The objects an object names: a commit its tree and parents, a tree its entries (submodule commits excepted), a tag its target. */
export function referencesOf(at: ObjectRef, obj: GitObject): ObjectRef[] {
  if (obj.type === "tree") {
    const out: ObjectRef[] = [];
    for (const e of parseTree(obj.content)) {
      if (e.type !== "commit") out.push({ oid: e.oid, kind: e.type, path: at.path ? `${at.path}/${e.path}` : e.path, commit: at.commit });
    }
    return out;
  }
  if (obj.type === "blob") return [];
  // a commit's or tag's header (up to the first blank line) names what it points at
  const header = new TextDecoder().decode(obj.content).split("\n\n", 1)[0]!;
  const out: ObjectRef[] = [];
  for (const m of header.matchAll(/^(tree|parent|object) ([0-9a-f]{40})$/gm)) {
    const kind = m[1] === "tree" ? "tree" : m[1] === "parent" ? "commit" : "object";
    out.push({ oid: m[2]!, kind, path: "", commit: obj.type === "commit" ? at.oid : at.commit });
  }
  return out;
}

/** referencesOf a tree, less the entries `earlier` (another version of it) holds as they are. */
function changedReferences(at: ObjectRef, content: Uint8Array, earlier: Uint8Array): ObjectRef[] {
  const out: ObjectRef[] = [];
  for (const e of changedEntries(content, earlier)) {
    if (e.type !== "commit") out.push({ oid: e.oid, kind: e.type, path: at.path ? `${at.path}/${e.name}` : e.name, commit: at.commit });
  }
  return out;
}

/**
 * Visit the objects under `tips` children first, without recursion (a history of 10,000 commits
 * is 10,000 deep). `enter` returns the object to descend into, or null not to enter it (already
 * complete, or missing); `leave` runs once everything the object names has been left. Each id is
 * entered at most once (`done`, shared between walks, holds the ids finished).
 *
 * A tree whose path had another version left earlier in this walk is compared with it as bytes
 * (tree-bytes.ts): only the entries that version does not hold as they are need a look, since
 * everything a left tree names is done. Each commit of a history brings a new version of its top
 * folders, and a flat memories/ folder of 1,000 records is 1,000 entries: listing every entry of
 * each version (ids as hex, names decoded, each asked of `done`) was most of the CPU of a fetch
 * of hundreds of commits.
 */
export async function walkChildrenFirst(
  tips: readonly ObjectRef[],
  enter: (at: ObjectRef) => Promise<GitObject | null>,
  leave: (at: ObjectRef, obj: GitObject, earlier?: string) => Promise<void>,
  done: Set<string> = new Set(),
): Promise<void> {
  const stack: { at: ObjectRef; obj: GitObject | null; earlier?: string }[] = [...tips].reverse().map((at) => ({ at, obj: null }));
  /** The last tree left at each path (`leave` is told which one a tree was compared with: its likely delta base). */
  const leftTrees = new Map<string, { oid: string; content: Uint8Array }>();
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.obj) {
      stack.pop();
      await leave(top.at, top.obj, top.earlier);
      done.add(top.at.oid);
      if (top.obj.type === "tree") leftTrees.set(top.at.path, { oid: top.at.oid, content: top.obj.content });
      continue;
    }
    if (done.has(top.at.oid)) {
      stack.pop();
      continue;
    }
    const obj = await enter(top.at);
    if (!obj) {
      stack.pop();
      done.add(top.at.oid);
      continue;
    }
    top.obj = obj;
    const earlier = obj.type === "tree" ? leftTrees.get(top.at.path) : undefined;
    top.earlier = earlier?.oid;
    const kids = earlier ? changedReferences(top.at, obj.content, earlier.content) : referencesOf(top.at, obj);
    // pushed in reverse, so a commit's tree is done before its parents: newest content first
    for (let i = kids.length - 1; i >= 0; i--) if (!done.has(kids[i]!.oid)) stack.push({ at: kids[i]!, obj: null });
  }
}

/**
 * Copy every object reachable from `tip` that `dst` lacks, children first: blobs, then trees from
 * the bottom up, then commits oldest first, each object atomically (writeLooseObject), or all in
 * one pack from 100 on (copySink), so a kill at any instant leaves `dst` with nothing that names
 * an object it lacks. That invariant (an object present means everything under it is present) is
 * what lets a commit or tree `dst` already has be skipped whole. The caller moves a ref only after
 * this returns. A fetch into a clone: its pack is written "fast" (see copySink).
 */
export async function copyReachable(src: string, dst: string, tip: string): Promise<number> {
  const sink = await copySink(src, dst, "fast");
  try {
    await walkChildrenFirst(
      [{ oid: tip, kind: "object", path: "", commit: null }],
      async (at) => ((await has(dst, at.oid)) ? null : await objectToCopy(src, at.oid, describeRef(at))),
      async (at, obj, earlier) => sink.add(at.oid, obj, earlier),
    );
    const copied = await sink.finish();
    traceNote("copy", `objects=${copied}`);
    return copied;
  } finally {
    sink.abort();
  }
}

/** How many objects a copy between repositories on this machine takes before it writes them as one pack. */
const PACK_FROM = 100;

export interface CopySink {
  /** One more object to copy (given children first), and the object it most likely resembles (its path's earlier version). */
  add(oid: string, obj: GitObject, base?: string): Promise<void>;
  /** Write what is held; then the fault point "copied". Returns how many objects were copied. */
  finish(): Promise<number>;
  /** Drop an unfinished pack (after finish: nothing). */
  abort(): void;
}

/**
 * How a copy's pack is written. "compact": each object a delta where one pays, at zlib's default
 * level, as git sends them (a push into a hub, which every clone then fetches from and which
 * nothing else compacts until its next repack). "fast": each object whole, its pack entry's bytes
 * as they are when the source stores it whole, else deflated at level 1 (a fetch into a clone,
 * whose pack stays on this machine and which its auto-repack later stores as deltas): the delta
 * search and the level-6 deflate were most of a fetch's CPU, and a clone far behind a busy hub
 * copies thousands of objects (chaos run c3: 28 syncs past 5 minutes in that copy).
 */
export type CopyPacking = "compact" | "fast";

/** zlib's level for a compact copy's pack (git's default). */
const COPY_LEVEL = 6;
/** zlib's level for a fast copy's objects that are not reused as they are. */
const FAST_LEVEL = 1;
/** How many objects a packing copy keeps as possible delta bases of the objects after them (by id). */
const BASES_KEPT = 4_096;
/** And their bytes at most (a flat memories/ folder's tree is 69 KB at 1,000 records). */
const BASES_KEPT_BYTES = 32 * 2 ** 20;

/**
 * Where a copy into `dst` (a fetch from a path remote, a push into one) writes: up to PACK_FROM
 * objects are held and then written loose, children first; past that they all go into one pack,
 * as git keeps a fetched or received pack of transfer.unpackLimit's 100 objects or more. A pack
 * appears whole or not at all, so a kill still leaves `dst` with nothing that names an object it
 * lacks; and a clone far behind no longer copies tens of thousands of loose files, 9 ms each on
 * a loaded machine (the chaos run's "hung" syncs). Every object is checked against its id first.
 *
 * A "compact" pack (see CopyPacking) stores each object as a delta, as git sends them, when one
 * at most half its size is found against its path's earlier version (when that is in this pack)
 * or the last two of its type (records share a shape), at zlib's default level: a 10k store's
 * first push into an empty hub was 15 MB whole at level 1, 10.7 MB with these deltas, 8.2 MB at
 * level 6 (+0.7 s of CPU; what a repack of the hub makes, 8.1 MB).
 */
export async function copySink(src: string, dst: string, packing: CopyPacking): Promise<CopySink> {
  const { PackWriter, entryHeader, TYPE_CODE } = await import("./pack-write.ts");
  const { writeNearest, writeTreeDelta } = await import("./delta-write.ts");
  const held: { oid: string; obj: GitObject; base: string | undefined }[] = [];
  let pack: InstanceType<typeof PackWriter> | null = null;
  const last = new Map<string, Version[]>();
  const kept = new Map<string, Version>();
  let keptBytes = 0;
  const keep = (v: Version) => {
    kept.set(v.oid, v);
    keptBytes += v.content.length;
    while (kept.size > BASES_KEPT || keptBytes > BASES_KEPT_BYTES) {
      const [first, gone] = kept.entries().next().value!;
      kept.delete(first);
      keptBytes -= gone.content.length;
    }
  };
  const compact = (oid: string, obj: GitObject, base: string | undefined) => {
    const recent = last.get(obj.type) ?? [];
    const near = base === undefined ? undefined : kept.get(base);
    const v = treeVersion(oid, obj, base, COPY_LEVEL) ?? writeNearest(pack!, oid, obj.type, obj.content, near ? [near, ...recent] : recent, COPY_LEVEL);
    last.set(obj.type, [v, ...recent.slice(0, 1)]);
    keep(v);
  };
  /** A tree as a delta against the version of its folder `base` names, when that is in this pack (kept) and it pays. */
  const treeVersion = (oid: string, obj: GitObject, base: string | undefined, level: number) => {
    const near = obj.type === "tree" && base !== undefined ? kept.get(base) : undefined;
    return near ? writeTreeDelta(pack!, oid, obj.content, near, level) : null;
  };
  const fast = (oid: string, obj: GitObject, base: string | undefined) => {
    const v = treeVersion(oid, obj, base, FAST_LEVEL);
    if (v) return keep(v);
    // (the entry's zlib stream is what the content was just inflated from, its checksum checked)
    if (obj.deflated) pack!.addEntry(oid, [entryHeader(TYPE_CODE[obj.type], obj.content.length), obj.deflated]);
    else pack!.add(oid, obj.type, obj.content, FAST_LEVEL);
    if (obj.type === "tree") keep({ oid, content: obj.content, depth: 0 });
  };
  const packed = (oid: string, obj: GitObject, base: string | undefined) => {
    if (objectId(obj.type, obj.content) !== oid) throw corrupt(`git object ${oid} in ${src} is damaged (its content does not hash to its id) (run: memsync doctor)`);
    if (packing === "compact") compact(oid, obj, base);
    else fast(oid, obj, base);
    if (pack!.size % 200 === 0) progress("copying objects", pack!.size);
    objectWritten();
  };
  return {
    async add(oid, obj, base) {
      if (pack) return packed(oid, obj, base);
      held.push({ oid, obj, base });
      if (held.length < PACK_FROM) return;
      pack = new PackWriter(dst);
      for (const h of held.splice(0)) packed(h.oid, h.obj, h.base);
    },
    async finish() {
      pack?.finish();
      for (const [i, h] of held.entries()) await writeCopied(src, dst, h.oid, h.obj, i);
      faultPoint("copied");
      return pack ? pack.size : held.length;
    },
    abort() {
      pack?.abort();
    },
  };
}

/** An object of `src` a copy needs (`what` names it in the error when it is missing). */
export async function objectToCopy(src: string, oid: string, what: string): Promise<GitObject> {
  const obj = await readObjectFrom(src, oid);
  if (!obj) throw corrupt(`git object ${oid} (${what}) is missing from ${src} (run: memsync doctor)`);
  return obj;
}

/** Write an object read from `src` into `dst` as a loose object, refusing bytes that do not hash to its id. */
export async function writeCopied(src: string, dst: string, oid: string, obj: GitObject, copied: number): Promise<void> {
  if (copied % 200 === 0) progress("copying objects", copied);
  // a loose file's bytes are copied as they are (no deflate again), once they are known to inflate to `oid`
  const written = obj.stored ? objectId(obj.type, obj.content) : await writeLooseObject(dst, obj.type, obj.content);
  if (written !== oid) throw corrupt(`git object ${oid} in ${src} is damaged (its content hashes to ${written}) (run: memsync doctor)`);
  if (obj.stored) writeLooseStored(dst, oid, () => obj.stored!);
}

/**
 * A tree's entries: a loose object is read and inflated here (zlib in the runtime, where
 * isomorphic-git inflates in JavaScript: a commit touching every shard reads 500 trees); a packed
 * one through isomorphic-git.
 */
export async function readTreeEntries(gitdir: string, oid: string): Promise<TreeEntry[]> {
  const native = readObjectNative(gitdir, oid);
  if (native?.type === "tree") return parseTree(native.content);
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
  const native = readObjectNative(gitdir, oid);
  if (native?.type === "blob") return new TextDecoder().decode(native.content);
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
  if (!commit) return null;
  const native = readObjectNative(gitdir, commit);
  if (native?.type === "commit") {
    const tree = /^tree ([0-9a-f]{40})$/m.exec(new TextDecoder().decode(native.content).split("\n\n", 1)[0]!)?.[1];
    if (tree) return tree;
  }
  return commit ? (await git.readCommit({ fs, gitdir, oid: commit, cache: cacheFor(gitdir) })).commit.tree : null;
}
