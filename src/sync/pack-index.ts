import fs from "node:fs";
import { readLooseObject } from "./loose-objects.ts";
import { oidAt } from "./object-ref.ts";
import { zlibInflate } from "./zlib.ts";
import { forgetAtNextCommand } from "../runtime/command-scope.ts";
import { heartbeat } from "../store/lock-heartbeat.ts";

// Pack indexes read directly (no isomorphic-git, which would first parse every index whole): is
// an object in a pack, is an index whole, and the object itself read from its pack. Loaded
// without isomorphic-git, so status can ask.

/** The file names in objects/pack ([] when there is no such folder: loose objects only). */
export function packFolderNames(gitdir: string): string[] {
  try {
    return fs.readdirSync(`${gitdir}/objects/pack`);
  } catch {
    return [];
  }
}

/**
 * A pack index as read, with the name of its pack and (once an object is read from it) its offsets
 * in order, and the pack itself open: a copy of thousands of objects read each one with an open,
 * an fstat and a close of a 14 MB pack (chaos run c3's hung syncs). A pack is never changed, only
 * removed (a repack elsewhere); an open descriptor goes on reading the file it opened.
 */
interface PackIndex {
  idx: Uint8Array;
  pack: string;
  sortedOffsets?: Float64Array;
  open?: { fd: number; size: number };
}

/** Each pack index of a repository, read once per command (and again when its packs changed). */
const packIndexes = new Map<string, PackIndex[]>();
/** The index file names each entry of packIndexes was read from. */
const packNamesRead = new Map<string, string>();
forgetAtNextCommand(() => {
  for (const list of packIndexes.values()) closePacks(list);
  packIndexes.clear();
  packNamesRead.clear();
  forgetBases();
});

/** Close the packs these indexes opened (they are being forgotten). */
function closePacks(list: readonly PackIndex[]): void {
  for (const p of list) {
    if (!p.open) continue;
    try {
      fs.closeSync(p.open.fd);
    } catch {
      // already closed
    }
    p.open = undefined;
  }
}

/** A pack's descriptor and size, opened at its first read in this command. */
function openPack(p: PackIndex): { fd: number; size: number } {
  if (p.open) return p.open;
  const fd = fs.openSync(p.pack, "r");
  try {
    p.open = { fd, size: fs.fstatSync(fd).size };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  return p.open;
}
function packIndexesOf(gitdir: string): PackIndex[] {
  let idx = packIndexes.get(gitdir);
  if (!idx) {
    const names = packFolderNames(gitdir).filter((n) => n.endsWith(".idx"));
    packNamesRead.set(gitdir, names.slice().sort().join("\n"));
    // an index cut short (written by something that was killed) is not read: its objects count as missing
    idx = names
      .map((n) => ({ idx: fs.readFileSync(`${gitdir}/objects/pack/${n}`) as Uint8Array, pack: `${gitdir}/objects/pack/${n.slice(0, -4)}.pack` }))
      .filter((p) => packIndexLooksWhole(p.idx));
    packIndexes.set(gitdir, idx);
  }
  return idx;
}

/** Forget the pack indexes read so far (packs were added or removed). */
export function forgetPackIndexes(gitdir: string): void {
  closePacks(packIndexes.get(gitdir) ?? []);
  packIndexes.delete(gitdir);
  packNamesRead.delete(gitdir);
  forgetBases();
}

/**
 * Whether the repository's pack indexes are no longer those read (another process repacked it:
 * a push into a path remote repacks the hub); if so they are forgotten, to be read again. One
 * listing of the pack folder.
 */
export function packsChangedSinceRead(gitdir: string): boolean {
  const read = packNamesRead.get(gitdir);
  if (read === undefined) return false;
  const now = packFolderNames(gitdir).filter((n) => n.endsWith(".idx")).sort().join("\n");
  if (now === read) return false;
  forgetPackIndexes(gitdir);
  return true;
}

/** Whether a pack index is at least as long as the object count in its fan-out table says. */
export function packIndexLooksWhole(idx: Uint8Array): boolean {
  if (idx.length < 8 + 1024 + 40) return false;
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  const v2 = view.getUint32(0) === 0xff744f63;
  const count = view.getUint32((v2 ? 8 : 0) + 255 * 4);
  return idx.length >= (v2 ? 8 + 1024 + count * 28 + 40 : 1024 + count * 24 + 40);
}

/** Whether a pack index (version 1 or 2) lists an object: a binary search over its sorted ids. */
function packIndexHas(idx: Uint8Array, oid: Uint8Array): boolean {
  return packIndexPosition(idx, oid) >= 0;
}

/** The object's position in a pack index (version 1 or 2), or -1. */
function packIndexPosition(idx: Uint8Array, oid: Uint8Array): number {
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
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** Whether one of a repository's pack indexes lists an object. */
export function inPackIndex(gitdir: string, oid: string): boolean {
  const indexes = packIndexesOf(gitdir);
  if (!indexes.length) return false;
  const raw = rawOid(oid);
  return indexes.some((p) => packIndexHas(p.idx, raw));
}

/** inPackIndex for an id as its 20 bytes (a tree entry's, with no hex made). */
export function inPackIndexRaw(gitdir: string, raw: Uint8Array): boolean {
  for (const p of packIndexesOf(gitdir)) if (packIndexHas(p.idx, raw)) return true;
  return false;
}

function rawOid(oid: string): Uint8Array {
  const raw = new Uint8Array(20);
  for (let i = 0; i < 20; i++) raw[i] = (nibble(oid.charCodeAt(i * 2)) << 4) | nibble(oid.charCodeAt(i * 2 + 1));
  return raw;
}

/** A hex digit's value (0-9, a-f, A-F); 0 for anything else (an id that is not hex matches nothing real). */
function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return 0;
}

/** Where a version-2 index puts an object in its pack; null for a version-1 index (read elsewhere). */
function offsetAt(idx: Uint8Array, pos: number): number | null {
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  if (view.getUint32(0) !== 0xff744f63) return null;
  const count = view.getUint32(8 + 255 * 4);
  const small = view.getUint32(8 + 1024 + count * 24 + pos * 4);
  if (small < 0x80000000) return small;
  const at = 8 + 1024 + count * 28 + (small & 0x7fffffff) * 8;
  return view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
}

/** Every object's offset in a version-2 index, in order: where an entry ends is where the next begins. */
function sortedOffsets(p: PackIndex): Float64Array {
  if (p.sortedOffsets) return p.sortedOffsets;
  const idx = p.idx;
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  const count = view.getUint32(8 + 255 * 4);
  const out = new Float64Array(count);
  // the 4-byte offsets read byte by byte: a DataView read per entry (offsetAt) cost 12-15 ms for
  // 17,000 objects at 10k memories, on every commit that reads a packed tree
  const small = 8 + 1024 + count * 24;
  for (let i = 0, at = small; i < count; i++, at += 4) {
    const v = ((idx[at]! << 24) | (idx[at + 1]! << 16) | (idx[at + 2]! << 8) | idx[at + 3]!) >>> 0;
    out[i] = v < 0x80000000 ? v : offsetAt(idx, i)!;
  }
  out.sort();
  p.sortedOffsets = out;
  return out;
}

function entryEnd(p: PackIndex, offset: number, packSize: number): number {
  const offs = sortedOffsets(p);
  let lo = 0;
  let hi = offs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offs[mid]! <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo < offs.length ? offs[lo]! : packSize - 20; // the pack ends with its 20-byte checksum
}

const TYPES = ["", "commit", "tree", "blob", "tag"] as const;

/** Bases of deltas read in this command, by pack and offset (a chain's bases are shared by many). */
const bases = new Map<string, { type: string; content: Uint8Array }>();
const BASES_MAX = 4096;
/**
 * And their bytes at most: a flat memories/ folder of 1,000 records is a 69 KB tree, and a copy
 * of hundreds of commits reads a version of it for each (4,096 of them would be 280 MB).
 */
const BASES_MAX_BYTES = 32 * 2 ** 20;
let basesBytes = 0;

function forgetBases(): void {
  bases.clear();
  basesBytes = 0;
}

/** An object read from a pack; `deflated`: its entry's zlib stream, when it is stored whole (not a delta), which a copy may write as it is. */
export interface PackedObject {
  type: string;
  content: Uint8Array;
  deflated?: Uint8Array;
}

/**
 * An object read straight from a pack (pread of its entry, zlib through the runtime, deltas
 * applied), as git does, instead of isomorphic-git, which first reads the whole pack file into
 * memory (12 MB at 10k memories, 48 MB at 50k: most of a status or pull). Null when no version-2
 * index lists it, or its entry cannot be read (the caller then asks isomorphic-git, which also
 * knows alternates and version-1 indexes).
 */
export function readPackedObject(gitdir: string, oid: string): PackedObject | null {
  const raw = rawOid(oid);
  for (const p of packIndexesOf(gitdir)) {
    const pos = packIndexPosition(p.idx, raw);
    if (pos < 0) continue;
    const offset = offsetAt(p.idx, pos);
    if (offset === null) return null;
    try {
      return readEntry(gitdir, p, offset, 0);
    } catch {
      return null;
    }
  }
  return null;
}

function readEntry(gitdir: string, p: PackIndex, offset: number, depth: number): PackedObject {
  if (depth > 200) throw new Error("delta chain too long");
  const key = `${p.pack}:${offset}`;
  const cached = bases.get(key);
  if (cached) return cached;
  const { fd, size } = openPack(p);
  const end = entryEnd(p, offset, size);
  if (end <= offset || end > size) throw new Error("entry out of the pack");
  const entry = new Uint8Array(end - offset);
  if (fs.readSync(fd, entry, 0, entry.length, offset) !== entry.length) throw new Error("short read");
  // header: type in bits 4-6 of the first byte, the size in 4 + 7k bits (unused: zlib knows it)
  let i = 0;
  let b = entry[i++]!;
  const type = (b >> 4) & 7;
  while (b & 0x80) b = entry[i++]!;
  let out: PackedObject;
  if (type >= 1 && type <= 4) {
    const deflated = entry.subarray(i);
    out = { type: TYPES[type]!, content: zlibInflate(deflated), deflated };
  } else if (type === 6 || type === 7) {
    let base: PackedObject | null;
    if (type === 6) {
      // offset delta: the base is this far back in the same pack
      b = entry[i++]!;
      let back = b & 0x7f;
      while (b & 0x80) {
        b = entry[i++]!;
        back = (back + 1) * 128 + (b & 0x7f);
      }
      base = readEntry(gitdir, p, offset - back, depth + 1);
    } else {
      const hex = oidAt(entry, i);
      i += 20;
      base = refDeltaBase(gitdir, p, entry.subarray(i - 20, i), depth) ?? readLooseObject(gitdir, hex);
      if (!base) throw new Error(`delta base ${hex} missing`);
    }
    out = { type: base.type, content: applyDelta(base.content, zlibInflate(entry.subarray(i))) };
    if (bases.size >= BASES_MAX || basesBytes > BASES_MAX_BYTES) forgetBases();
    bases.set(key, out);
    basesBytes += out.content.length;
  } else {
    throw new Error(`unknown pack entry type ${type}`);
  }
  return out;
}

/**
 * The base a ref delta names, from the packs (its own first: where git puts it, and where a copy
 * or a repack here does), each read as one step deeper in the chain (a chain that loops through
 * two packs ends at the depth bound). The packs before the loose files: a failed open per delta
 * cost a thrown error each, and a hub's objects are packed.
 */
function refDeltaBase(gitdir: string, own: PackIndex, raw: Uint8Array, depth: number): PackedObject | null {
  for (const p of [own, ...packIndexesOf(gitdir).filter((q) => q !== own)]) {
    const pos = packIndexPosition(p.idx, raw);
    if (pos < 0) continue;
    const offset = offsetAt(p.idx, pos);
    if (offset !== null) return readEntry(gitdir, p, offset, depth + 1);
  }
  return null;
}

/** git's delta format: the base's size, the result's size, then copies from the base and literal inserts. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let i = 0;
  const varint = () => {
    let n = 0;
    let shift = 1;
    let b: number;
    do {
      b = delta[i++]!;
      n += (b & 0x7f) * shift;
      shift *= 128;
    } while (b & 0x80);
    return n;
  };
  if (varint() !== base.length) throw new Error("delta base size mismatch");
  const out = new Uint8Array(varint());
  let o = 0;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      for (let k = 0; k < 4; k++) if (op & (1 << k)) off += delta[i++]! * 2 ** (8 * k);
      for (let k = 0; k < 3; k++) if (op & (0x10 << k)) len += delta[i++]! << (8 * k);
      if (len === 0) len = 0x10000;
      if (off + len > base.length || o + len > out.length) throw new Error("delta copy out of range");
      out.set(base.subarray(off, off + len), o);
      o += len;
    } else if (op !== 0) {
      if (o + op > out.length || i + op > delta.length) throw new Error("delta insert out of range");
      out.set(delta.subarray(i, i + op), o);
      i += op;
      o += op;
    } else {
      throw new Error("delta opcode 0");
    }
  }
  if (o !== out.length) throw new Error("delta result size mismatch");
  return out;
}

/** A loose or packed object read natively, or null (missing, unreadable, or only isomorphic-git knows how). */
export function readObjectNative(gitdir: string, oid: string): { type: string; content: Uint8Array } | null {
  heartbeat(); // (walks and diffs read thousands in a row, under the store's lock)
  return readLooseObject(gitdir, oid) ?? readPackedObject(gitdir, oid);
}

