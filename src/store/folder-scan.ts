import fs from "node:fs";
import { load } from "./folder-lstat.ts";
import { addStamp, emptySums, type StampSums } from "./stamp-sums.ts";

// One record folder read the cheapest way this process has (status's look, folder-snapshot.ts):
// one open, the folder's stat from that descriptor (statx AT_EMPTY_PATH, no path walk), its
// listing by getdents64 into a reused buffer, and each record file's statx relative to the folder
// by the name's bytes in that buffer (no string made, none encoded). The entry's type from the
// listing spares the stat of a shard folder or of a file that is no record; a record's own type is
// its statx's. node:fs's readdir + lstat made a second open per folder, a string per name and a
// stat of the folder's absolute path. Anything unusual (a name starting with ".", a link, a name
// statx fails on) is handed back by name for the caller to meet through node:fs as before.

const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
// STATX_TYPE | STATX_MODE | STATX_MTIME | STATX_INO | STATX_SIZE
const MASK = 0x1 | 0x2 | 0x40 | 0x100 | 0x200;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const DT_UNKNOWN = 0;
const DT_DIR = 4;
const DT_REG = 8;
const DT_LNK = 10;
const DOT = 0x2e;
const JSON_TAIL = [0x2e, 0x6a, 0x73, 0x6f, 0x6e]; // ".json"
const BUF_BYTES = 64 * 1024;

export interface FolderScan {
  /** The folder's own stamp: mtime (whole ms, as Bun floors mtimeMs), size, inode. */
  mtime: number;
  size: number;
  ino: number;
  /** Stamps of the record files (names ending .json, not starting with ".") that are files. */
  sums: StampSums;
  /** Folders whose names could be shard folders' (two characters), in listing order. */
  shards: string[];
  /** Names left for node:fs: starting with ".", links, and any name statx could not answer. */
  odd: string[];
}

let dents: { buf: Uint8Array; ptr: number } | null = null;
const decoder = new TextDecoder();

/**
 * The folder read whole, or null where this cannot be done here (no binding, or the open failed:
 * not there, not a folder, no access): the caller then reads it through node:fs, which meets
 * every such case as before. Throws when the listing fails midway (the caller's "unreadable").
 */
export function scanFolder(dir: string): FolderScan | null {
  const n = load();
  if (!n?.getdents) return null;
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  } catch {
    return null;
  }
  const { statx, u32, bufPtr, namePtr, name, getdents } = n;
  if (!dents) {
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const buf = new Uint8Array(BUF_BYTES);
    dents = { buf, ptr: ffi.ptr(buf) };
  }
  const { buf, ptr } = dents;
  try {
    name[0] = 0;
    if (statx(fd, namePtr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, MASK, bufPtr) !== 0 || (u32(bufPtr, 0) & MASK) !== MASK) return null;
    if ((u32(bufPtr, 28) & S_IFMT) !== S_IFDIR) return null;
    const scan: FolderScan = { ...stampAt(u32, bufPtr), sums: emptySums(), shards: [], odd: [] };
    for (;;) {
      const got = Number(getdents(fd, ptr, BUF_BYTES));
      if (got === 0) break;
      if (got < 0) throw new Error(`getdents64 failed on ${dir}`);
      // a new view per call, made from its result: no read of it can be placed before the call
      const view = new Uint8Array(buf.buffer, 0, got);
      for (let at = 0; at < got; ) {
        const reclen = view[at + 16]! | (view[at + 17]! << 8);
        entry(scan, view, at, reclen, ptr, fd, n);
        at += reclen;
      }
    }
    return scan;
  } finally {
    fs.closeSync(fd);
  }
}

/** One entry of the listing at `at`: counted, noted as a shard folder, skipped, or left for node:fs. */
function entry(scan: FolderScan, view: Uint8Array, at: number, reclen: number, ptr: number, fd: number, n: NonNullable<ReturnType<typeof load>>): void {
  const start = at + 19;
  // the name ends at its first NUL; reclen is 19 + the name + its NUL rounded up to 8, so the
  // NUL is in the last 8 bytes (the padding after it is not cleared: search forward from there)
  const limit = at + reclen;
  let end = Math.max(start, limit - 8);
  while (end < limit && view[end] !== 0) end++;
  const len = end - start;
  const type = view[at + 18]!;
  if (view[start] === DOT) {
    // ".", "..", a temp file or another dot name (the caller's rules, by name)
    if (len === 1 || (len === 2 && view[start + 1] === DOT)) return;
    scan.odd.push(decoder.decode(view.subarray(start, end)));
    return;
  }
  let record = len > JSON_TAIL.length;
  for (let k = 0; record && k < JSON_TAIL.length; k++) record = view[end - JSON_TAIL.length + k] === JSON_TAIL[k];
  if (!record) {
    if (type === DT_DIR) {
      if (len === 2) scan.shards.push(decoder.decode(view.subarray(start, end)));
      return;
    }
    // a file or other entry that is no record: nothing to count; a link or an unknown type by name
    if (type === DT_REG || (type !== DT_UNKNOWN && type !== DT_LNK)) return;
    scan.odd.push(decoder.decode(view.subarray(start, end)));
    return;
  }
  if (type !== DT_REG && type !== DT_UNKNOWN) {
    // a folder or fifo named like a record counts for nothing; a link is the caller's
    if (type === DT_LNK) scan.odd.push(decoder.decode(view.subarray(start, end)));
    return;
  }
  const { statx, u32, bufPtr } = n;
  if (statx(fd, ptr + start, AT_SYMLINK_NOFOLLOW, MASK, bufPtr) !== 0 || (u32(bufPtr, 0) & MASK) !== MASK) {
    scan.odd.push(decoder.decode(view.subarray(start, end)));
    return;
  }
  const kind = u32(bufPtr, 28) & S_IFMT;
  if (kind === S_IFREG) {
    const s = stampAt(u32, bufPtr);
    addStamp(scan.sums, s.mtime, s.size, s.ino);
  } else if (kind === S_IFLNK) scan.odd.push(decoder.decode(view.subarray(start, end)));
}

/** struct statx: stx_ino u64 @32, stx_size u64 @40, stx_mtime @112 (i64 sec, u32 nsec). */
function stampAt(u32: (ptr: number, offset: number) => number, p: number): { mtime: number; size: number; ino: number } {
  const sec = u32(p, 112) + (u32(p, 116) | 0) * 4294967296;
  // the same double Bun's Stats gives as mtimeMs, then floored as the index's stamps are
  return { mtime: Math.floor(sec * 1000 + u32(p, 120) / 1e6), size: u32(p, 40) + u32(p, 44) * 4294967296, ino: u32(p, 32) + u32(p, 36) * 4294967296 };
}
