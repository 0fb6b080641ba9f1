import { lazyFs } from "./lazy-fs.ts";
import { libcSymbols } from "./libc-ffi.ts";

// The lstat of each name in one folder, the cheapest way this process has: on Linux under Bun,
// statx(2) through bun:ffi, relative to the open folder (one path component for the kernel to
// walk instead of the whole absolute path) into one reused buffer (no Stats object per file):
// at 10k, 45 against 57 ms of CPU for the 13,900 stats and 983 listings of a status (warm, one
// thread; docs/benchmarks.md, branch status7). Anywhere else, or when the call fails for a
// name, the caller asks node:fs as before, so every error and odd case is node:fs's own.

/** What a name is, as lstat tells it; NONE: the fast call failed or is not there (ask node:fs). */
export const NONE = 0;
export const FILE = 1;
export const DIR = 2;
export const LINK = 3;
export const OTHER = 4;

/** A folder's lstat by name: the kind (above), and for FILE/DIR/LINK/OTHER its stamp in `stamp`. */
export interface FolderLstat {
  /** Fills stamp (mtime in whole ms as Bun's mtimeMs floors, size, inode) and returns the kind; NONE: ask node:fs. */
  lstat(name: string): number;
  readonly stamp: Float64Array;
  close(): void;
}

type Statx = (dirfd: number, path: number, flags: number, mask: number, buf: number) => number;
type Getdents = (fd: number, buf: number, count: number) => number;
type Open = (path: number, flags: number) => number;
type Close = (fd: number) => number;

export const AT_SYMLINK_NOFOLLOW = 0x100;
// STATX_TYPE | STATX_MODE | STATX_MTIME | STATX_INO | STATX_SIZE
export const MASK = 0x1 | 0x2 | 0x40 | 0x100 | 0x200;
export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;
const O_RDONLY = 0;
const O_CLOEXEC = 0o2000000;

export interface Native {
  statx: Statx;
  /** bun:ffi's raw reads: a typed array over the buffer would be read before the call by optimized code (its loads are not ordered after an FFI call). */
  u32: (ptr: number, offset: number) => number;
  /** bun:ffi's raw read of a signed 64-bit integer as a number (exact below 2^53: inodes, sizes, seconds). */
  intptr: (ptr: number, offset: number) => number;
  /** Kept here so that the memory behind bufPtr and namePtr lives as long as the binding. */
  buf: Uint32Array;
  bufPtr: number;
  name: Uint8Array;
  namePtr: number;
  /** getdents64(2) (glibc 2.30+), for folder-scan.ts: one open per folder; null where libc lacks it. */
  getdents: Getdents | null;
}

let native: Native | null | undefined;

/** The statx binding, or null where there is none (not Bun, not Linux, not little-endian, no libc statx). */
export function load(): Native | null {
  if (native === undefined) native = bind();
  return native;
}

function bind(): Native | null {
  try {
    // MEMSYNC_FOLDER_STATX=0: node:fs alone (a comparison, or a way out should the binding misbehave somewhere)
    if (process.env.MEMSYNC_FOLDER_STATX === "0") return null;
    if (typeof Bun === "undefined" || process.platform !== "linux" || new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return null;
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const { FFIType } = ffi;
    const statx = libcSymbols({ statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 } })?.statx;
    if (!statx) return null;
    // an older libc has no getdents64: folders are then listed by node:fs
    const getdents = (libcSymbols({ getdents64: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64_fast } })?.getdents64 ?? null) as Getdents | null;
    const buf = new Uint32Array(64); // struct statx is 256 bytes
    const name = new Uint8Array(4096);
    return {
      statx: statx as unknown as Statx,
      u32: ffi.read.u32 as (ptr: number, offset: number) => number,
      intptr: ffi.read.intptr as (ptr: number, offset: number) => number,
      buf,
      bufPtr: ffi.ptr(buf),
      name,
      namePtr: ffi.ptr(name),
      getdents,
    };
  } catch {
    return null;
  }
}

const encoder = new TextEncoder();

// How record folders are opened for folder-scan.ts. Where node:fs is loaded anyway (the main
// thread) its open and close are the cheaper calls (libc's through bun:ffi cost a status at 10k
// without a thread ~0.8 ms more, measured: docs/benchmarks.md, status28); a stat thread opens
// through libc, so that it never loads node:fs (stat-worker.ts).
let throughLibc = false;

/** This JS world opens folders through libc's open(2) and close(2) (a stat thread: stat-worker.ts). */
export function openFoldersThroughLibc(): void {
  throughLibc = true;
}

interface DirCalls {
  open: Open;
  close: Close;
  /** O_RDONLY | O_DIRECTORY | O_CLOEXEC, as node:fs opens a folder. */
  flags: number;
}

let dirCalls: DirCalls | null | undefined;

/** libc's open and close, bound on first use; null where O_DIRECTORY's value is not known (it differs between Bun's two architectures). */
function bindDirCalls(): DirCalls | null {
  const directory = process.arch === "x64" ? 0o200000 : process.arch === "arm64" ? 0o40000 : null;
  if (directory === null) return null;
  const { FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  const libc = libcSymbols({ open: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 }, close: { args: [FFIType.i32], returns: FFIType.i32 } });
  return libc ? { open: libc.open as unknown as Open, close: libc.close as unknown as Close, flags: O_RDONLY | directory | O_CLOEXEC } : null;
}

/**
 * A folder opened for reading (the descriptor), or -1 where it cannot be (not there, not a folder,
 * no access). In a stat thread by libc's open(2) on the path's bytes in `n.name`; elsewhere, or
 * where the path does not fit, by node:fs. Uses `n.name`.
 */
export function openFolder(n: Native, dir: string): number {
  const libc = throughLibc && !dir.includes("\0") ? (dirCalls === undefined ? (dirCalls = bindDirCalls()) : dirCalls) : null;
  if (libc) {
    const { read, written } = encoder.encodeInto(dir, n.name);
    if (read === dir.length && written < n.name.length) {
      n.name[written] = 0;
      return libc.open(n.namePtr, libc.flags);
    }
  }
  try {
    const fs = lazyFs();
    return fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  } catch {
    return -1;
  }
}

/** Close what openFolder opened (a descriptor is one whichever call made it). */
export function closeFolder(fd: number): void {
  if (throughLibc && dirCalls) dirCalls.close(fd);
  else lazyFs().closeSync(fd);
}

/** The folder's lstat by name, or null where the fast call is not available (ask node:fs). Throws as fs.openSync would. */
export function folderLstat(dir: string): FolderLstat | null {
  const n = load();
  if (!n) return null;
  const fs = lazyFs();
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  const stamp = new Float64Array(3);
  const { statx, u32, intptr, bufPtr, name, namePtr } = n;
  return {
    stamp,
    lstat(entry) {
      const { written, read } = encoder.encodeInto(entry, name);
      if (read !== entry.length || written >= name.length) return NONE;
      name[written] = 0;
      if (statx(fd, namePtr, AT_SYMLINK_NOFOLLOW, MASK, bufPtr) !== 0) return NONE;
      // struct statx: stx_mask u32 @0, stx_mode u16 @28, stx_ino u64 @32, stx_size u64 @40, stx_mtime @112 (i64 sec, u32 nsec)
      if ((u32(bufPtr, 0) & MASK) !== MASK) return NONE;
      stamp[0] = mtimeAt(n, bufPtr);
      stamp[1] = intptr(bufPtr, 40);
      stamp[2] = intptr(bufPtr, 32);
      const type = u32(bufPtr, 28) & S_IFMT;
      return type === S_IFREG ? FILE : type === S_IFDIR ? DIR : type === S_IFLNK ? LINK : OTHER;
    },
    close() {
      fs.closeSync(fd);
    },
  };
}

/** stx_mtime @112 (i64 sec, u32 nsec) as Bun's Stats gives mtimeMs, floored as the index's stamps are. */
export function mtimeAt(n: Pick<Native, "u32" | "intptr">, p: number): number {
  return Math.floor(n.intptr(p, 112) * 1000 + n.u32(p, 120) / 1e6);
}
