import { AT_SYMLINK_NOFOLLOW, closeFolder, load, MASK, mtimeAt, openFolder, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from "./folder-lstat.ts";
import { emptySums, MIXED_PRIME as P, MTIME_SPLIT as HIGH, type StampSums } from "./stamp-sums.ts";

// One record folder read the cheapest way this process has (status's look, folder-snapshot.ts):
// one open (in a stat thread libc's, so that it need not load node:fs: folder-lstat.ts openFolder), the folder's stat from that descriptor (statx AT_EMPTY_PATH, no path walk), its
// listing by getdents64 into a reused buffer, and each record file's statx relative to the folder
// by the name's bytes in that buffer (no string made, none encoded). The entry's type from the
// listing spares the stat of a shard folder or of a file that is no record; a record's own type is
// its statx's. node:fs's readdir + lstat made a second open per folder, a string per name and a
// stat of the folder's absolute path. Anything unusual (a name starting with ".", a link, a name
// statx fails on) is handed back by name for the caller to meet through node:fs as before.

const AT_EMPTY_PATH = 0x1000;
const DT_UNKNOWN = 0;
const DT_DIR = 4;
const DT_REG = 8;
const DT_LNK = 10;
const DOT = 0x2e;
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
  const fd = openFolder(n, dir);
  if (fd < 0) return null;
  const { statx, u32, bufPtr, namePtr, name, getdents } = n;
  if (!dents) {
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const buf = new Uint8Array(BUF_BYTES);
    dents = { buf, ptr: ffi.ptr(buf) };
  }
  const { buf, ptr } = dents;
  const { intptr } = n;
  try {
    name[0] = 0;
    if (statx(fd, namePtr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, MASK, bufPtr) !== 0 || (u32(bufPtr, 0) & MASK) !== MASK) return null;
    if ((u32(bufPtr, 28) & S_IFMT) !== S_IFDIR) return null;
    const sums = emptySums();
    const scan: FolderScan = { mtime: mtimeAt(n, bufPtr), size: intptr(bufPtr, 40), ino: intptr(bufPtr, 32), sums, shards: [], odd: [] };
    // the record files' sums, kept in locals and added once
    let sn = 0;
    let sHigh = 0;
    let sLow = 0;
    let sSize = 0;
    let sMixed = 0;
    for (;;) {
      const got = Number(getdents(fd, ptr, BUF_BYTES));
      if (got === 0) break;
      if (got < 0) throw new Error(`getdents64 failed on ${dir}`);
      // a new view per call, made from its result: no read of it can be placed before the call
      const view = new Uint8Array(buf.buffer, 0, got);
      for (let at = 0; at < got; ) {
        // linux_dirent64: d_ino u64, d_off i64, d_reclen u16 @16, d_type u8 @18, d_name @19 (NUL-ended)
        const start = at + 19;
        const limit = at + (view[at + 16]! | (view[at + 17]! << 8));
        const type = view[at + 18]!;
        at = limit;
        // the name ends at its first NUL; reclen is 19 + the name + its NUL rounded up to 8, so the
        // NUL is in the last 8 bytes (the padding after it is not cleared: search forward from there)
        let end = limit - 8 > start ? limit - 8 : start;
        while (end < limit && view[end] !== 0) end++;
        // the usual entry, inline: a file named like a record (not starting with ".", ending ".json")
        const usual =
          (type === DT_REG || type === DT_UNKNOWN) &&
          end - start > 5 &&
          view[start] !== DOT &&
          view[end - 5] === DOT &&
          view[end - 4] === 0x6a &&
          view[end - 3] === 0x73 &&
          view[end - 2] === 0x6f &&
          view[end - 1] === 0x6e;
        if (!usual) {
          other(scan, view, start, end, type);
          continue;
        }
        if (statx(fd, ptr + start, AT_SYMLINK_NOFOLLOW, MASK, bufPtr) === 0 && (u32(bufPtr, 0) & MASK) === MASK) {
          const kind = u32(bufPtr, 28) & S_IFMT;
          if (kind === S_IFREG) {
            // mtimeAt and addStamp's terms, written out: a call of those small functions per file
            // made JavaScriptCore compile them (DFG, FTL) on its compiler threads, ~5 ms of a
            // status's CPU at 10k (docs/benchmarks.md, status9); tests/store/folder-scan.test.ts
            // holds these sums equal to addStamp's over node:fs's stats
            const mtime = Math.floor(intptr(bufPtr, 112) * 1000 + u32(bufPtr, 120) / 1e6);
            const size = intptr(bufPtr, 40);
            const ino = intptr(bufPtr, 32);
            sn++;
            sHigh += Math.trunc(mtime / HIGH);
            sLow += mtime % HIGH;
            sSize += size;
            sMixed += ((((mtime % P) * 1021 + (size % P)) % P) * (((ino % P) * 7919 + 1) % P)) % P;
            continue;
          }
          // a folder or fifo named like a record counts for nothing; a link is the caller's
          if (kind !== S_IFLNK) continue;
        }
        scan.odd.push(decoder.decode(view.subarray(start, end)));
      }
    }
    sums.n = sn;
    sums.mtimeHigh = sHigh;
    sums.mtimeLow = sLow;
    sums.size = sSize;
    sums.mixed = sMixed;
    return scan;
  } finally {
    closeFolder(fd);
  }
}

/** An entry that is no file named like a record: a shard folder noted, a dot name, link or unknown type left by name, the rest skipped. */
function other(scan: FolderScan, view: Uint8Array, start: number, end: number, type: number): void {
  const len = end - start;
  if (view[start] === DOT) {
    // ".", "..", a temp file or another dot name (the caller's rules, by name)
    if (len === 1 || (len === 2 && view[start + 1] === DOT)) return;
    scan.odd.push(decoder.decode(view.subarray(start, end)));
    return;
  }
  if (type === DT_DIR) {
    // a folder named like a record counts for nothing, as its lstat would tell
    if (len === 2) scan.shards.push(decoder.decode(view.subarray(start, end)));
    return;
  }
  // a link, or a type the listing does not tell; a file or fifo that is no record is nothing to count
  if (type === DT_LNK || type === DT_UNKNOWN) scan.odd.push(decoder.decode(view.subarray(start, end)));
}
