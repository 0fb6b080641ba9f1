import fs from "node:fs";
import path from "node:path";
import { unavailable } from "../core/errors.ts";
import { sha1 } from "./sha1.ts";

// Updating a few entries of git's index (.git/index) without isomorphic-git's full round trip,
// which re-parses and re-serializes every entry through its object model (44-64 ms for one path
// in a 13,000-entry index). Formats 2 and 3: a header, entries sorted by path, extensions, and a
// SHA-1 trailer. Entries memsync writes carry no stat data, so native git re-hashes those files
// once on its next `status` and finds them clean. Extensions are dropped (the cached-tree one is
// stale after any change; git rebuilds what it needs). Anything else (version 4, a split or sparse
// index) is refused with what to run: isomorphic-git cannot read version 4 and would drop a split
// index's shared entries, and it writes the index in place, which a kill can leave torn.
//
// The new index replaces the old one atomically, under git's own lock (index.lock), so a kill at
// any instant leaves the old index or the new one, never a torn one: the new bytes go to a temp
// file, are fsynced, and the temp is hard-linked to index.lock (taking git's lock only if no git
// holds it), which is then renamed over the index. A lock left by a killed memsync is recognized
// by the temp file that shares its inode, and removed; a lock held by git is waited for (bounded).

const enc = new TextEncoder();
const dec = new TextDecoder();

export type IndexChanges = Map<string, { oid: string; size: number } | null>;

function entryBytes(name: Uint8Array, oid: string, size: number): Uint8Array {
  const len = 62 + name.length;
  const padded = Math.ceil((len + 1) / 8) * 8;
  const out = new Uint8Array(padded);
  const view = new DataView(out.buffer);
  view.setUint32(24, 0o100644); // mode; ctime, mtime, dev, ino (0..23) stay zero
  view.setUint32(36, size >>> 0);
  for (let i = 0; i < 20; i++) out[40 + i] = Number.parseInt(oid.slice(i * 2, i * 2 + 2), 16);
  view.setUint16(60, Math.min(name.length, 0xfff));
  out.set(name, 62);
  return out;
}

/** git orders index entries by the bytes of their paths. */
function compareBytes(x: Uint8Array, y: Uint8Array): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/**
 * Where each entry of an index starts (`starts[count]`: where the entries end), found in one pass
 * with no object per entry (a 50k store's index has 65,000), and whether any is at a merge stage;
 * null: a format this does not patch.
 */
interface IndexLayout {
  version: number;
  count: number;
  starts: Uint32Array;
  unmerged: boolean;
}

function layoutOf(buf: Uint8Array): IndexLayout | null {
  if (buf.length === 0) return { version: 2, count: 0, starts: new Uint32Array([12]), unmerged: false };
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < 32 || dec.decode(buf.subarray(0, 4)) !== "DIRC") return null;
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) return null;
  const count = view.getUint32(8);
  if (count > (buf.length - 32) / 62) return null;
  const starts = new Uint32Array(count + 1);
  let unmerged = false;
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 62 > buf.length - 20) return null;
    starts[i] = at;
    const flags = (buf[at + 60]! << 8) | buf[at + 61]!;
    if (flags & 0x3000) unmerged = true;
    let end = at + 62 + (flags & 0x4000 ? 2 : 0) + (flags & 0xfff);
    while (end < buf.length && buf[end] !== 0) end++; // a name of 0xfff bytes or more: find its end
    at += Math.ceil((end - at + 1) / 8) * 8;
  }
  starts[count] = at;
  // a split index ("link") or a sparse one ("sdir") needs its extension: refuse to drop it
  for (let p = at; p + 8 <= buf.length - 20; ) {
    const sig = dec.decode(buf.subarray(p, p + 4));
    if (sig === "link" || sig === "sdir") return null;
    p += 8 + view.getUint32(p + 4);
  }
  return { version, count, starts, unmerged };
}

/** The path of the entry starting at `at` (a view into the index). */
function nameAt(buf: Uint8Array, at: number): Uint8Array {
  const flags = (buf[at + 60]! << 8) | buf[at + 61]!;
  const from = at + 62 + (flags & 0x4000 ? 2 : 0);
  let end = from + (flags & 0xfff);
  while (end < buf.length && buf[end] !== 0) end++;
  return buf.subarray(from, end);
}

/** What the last look at an index found, by the identity of the file it read (a rewrite by git or memsync is a new inode). */
let lastUnmerged: { file: string; ino: number; size: number; mtimeMs: number; ctimeMs: number; paths: string[] } | null = null;

/**
 * Paths git's index holds at a merge stage (a conflict native git left unresolved). Runs before
 * every sync and again in its commit: the second look at the same file is remembered.
 */
export function unmergedIndexPaths(gitdir: string): string[] {
  const file = `${gitdir}/index`;
  let buf: Uint8Array;
  let st: fs.Stats;
  try {
    const fd = fs.openSync(file, "r");
    try {
      st = fs.fstatSync(fd);
      const l = lastUnmerged;
      if (l && l.file === file && l.ino === st.ino && l.size === st.size && l.mtimeMs === st.mtimeMs && l.ctimeMs === st.ctimeMs) return [...l.paths];
      buf = new Uint8Array(st.size);
      let got = 0;
      while (got < buf.length) {
        const n = fs.readSync(fd, buf, got, buf.length - got, got);
        if (n === 0) break;
        got += n;
      }
      buf = buf.subarray(0, got);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  const paths = unmergedIn(buf);
  lastUnmerged = { file, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, paths };
  return [...paths];
}

function unmergedIn(buf: Uint8Array): string[] {
  if (buf.length < 32 || buf[0] !== 0x44 || buf[1] !== 0x49 || buf[2] !== 0x52 || buf[3] !== 0x43) return [];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) return []; // version 4 (prefix-compressed names): git itself refuses what needs refusing
  // only the flags of each entry are read (this runs before every commit and sync)
  const count = view.getUint32(8);
  const out = new Set<string>();
  let at = 12;
  for (let i = 0; i < count && at + 62 <= buf.length; i++) {
    const flags = (buf[at + 60]! << 8) | buf[at + 61]!;
    const nameFrom = at + 62 + (flags & 0x4000 ? 2 : 0);
    let end = nameFrom + (flags & 0xfff);
    if ((flags & 0xfff) === 0xfff) while (end < buf.length && buf[end] !== 0) end++;
    if (flags & 0x3000) out.add(dec.decode(buf.subarray(nameFrom, end)));
    at += Math.ceil((end - at + 1) / 8) * 8;
  }
  return [...out];
}

/**
 * The index with the changes applied, or null when its format is not one this can patch. The
 * entries between two changes are copied as one run of bytes; each change's place is found by a
 * binary search over the entries' names.
 */
async function patchedBytes(buf: Uint8Array, changes: IndexChanges): Promise<Uint8Array | null> {
  const layout = layoutOf(buf);
  if (!layout || layout.unmerged) return null;
  const { count, starts } = layout;
  const edits = [...changes].map(([p, c]) => ({ name: enc.encode(p), c })).sort((a, b) => compareBytes(a.name, b.name));
  const runs: Uint8Array[] = [];
  let entries = 0;
  let from = 0;
  for (const e of edits) {
    let lo = from;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(nameAt(buf, starts[mid]!), e.name) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo > from) runs.push(buf.subarray(starts[from]!, starts[lo]!));
    entries += lo - from;
    from = lo < count && compareBytes(nameAt(buf, starts[lo]!), e.name) === 0 ? lo + 1 : lo;
    if (e.c) {
      runs.push(entryBytes(e.name, e.c.oid, e.c.size));
      entries++;
    }
  }
  if (from < count) runs.push(buf.subarray(starts[from]!, starts[count]!));
  entries += count - from;
  const size = 12 + runs.reduce((n, b) => n + b.length, 0);
  const out = new Uint8Array(size + 20);
  out.set(enc.encode("DIRC"), 0);
  const ov = new DataView(out.buffer);
  ov.setUint32(4, layout.version);
  ov.setUint32(8, entries);
  let w = 12;
  for (const b of runs) {
    out.set(b, w);
    w += b.length;
  }
  out.set(sha1(out.subarray(0, size)), size);
  return out;
}

const TEMP_PREFIX = "memsync-index-";
const TEMP_SUFFIX = ".tmp";

/** A left-over index.lock of a killed memsync: a temp file of ours shares its inode. */
function removeOwnStaleLock(gitdir: string, lock: string): boolean {
  const st = fs.statSync(lock, { throwIfNoEntry: false });
  if (!st) return true;
  for (const name of fs.readdirSync(gitdir)) {
    if (!name.startsWith(TEMP_PREFIX) || !name.endsWith(TEMP_SUFFIX)) continue;
    const t = fs.statSync(path.join(gitdir, name), { throwIfNoEntry: false });
    if (t && t.ino === st.ino && t.dev === st.dev) {
      fs.rmSync(lock, { force: true });
      fs.rmSync(path.join(gitdir, name), { force: true });
      return true;
    }
  }
  return false;
}

function sameFile(a: fs.Stats | undefined, b: fs.Stats | undefined): boolean {
  if (!a || !b) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/**
 * Set (oid, size) or remove (null) entries of git's index, atomically. Throws "unavailable" when
 * a git command holds the index lock for more than a few seconds.
 */
export async function updateGitIndex(gitdir: string, changes: IndexChanges, waitMs = 3_000): Promise<void> {
  const file = `${gitdir}/index`;
  const lock = `${file}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const before = fs.statSync(file, { throwIfNoEntry: false });
    const current = before ? fs.readFileSync(file) : null;
    const next = await patchedBytes(current ?? new Uint8Array(0), changes);
    if (!next) {
      throw unavailable(`git's index (${file}) is in a form memsync does not update (version 4, a split or sparse index, or unresolved conflicts): run \`git update-index --index-version 2 --no-split-index\` (after resolving any conflict), then run this again`);
    }
    const tmp = path.join(gitdir, `${TEMP_PREFIX}${process.pid}-${Math.random().toString(36).slice(2)}${TEMP_SUFFIX}`);
    const fd = fs.openSync(tmp, "wx", 0o644);
    try {
      fs.writeSync(fd, next);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    let locked = false;
    try {
      fs.linkSync(tmp, lock);
      locked = true;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") {
        fs.rmSync(tmp, { force: true });
        throw e;
      }
    }
    if (!locked) {
      fs.rmSync(tmp, { force: true });
      if (removeOwnStaleLock(gitdir, lock)) continue;
      if (Date.now() > deadline) {
        throw unavailable(`git's index is locked (${lock}): a git command is running, or one was killed; if no git is running, remove that file and run this again`);
      }
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
      continue;
    }
    // git's protocol reads the index after taking the lock; this read first, so check nothing
    // wrote the index in between (else build again from what is there now)
    if (!sameFile(before, fs.statSync(file, { throwIfNoEntry: false }))) {
      fs.rmSync(lock, { force: true });
      fs.rmSync(tmp, { force: true });
      continue;
    }
    fs.renameSync(lock, file);
    fs.rmSync(tmp, { force: true });
    return;
  }
}
