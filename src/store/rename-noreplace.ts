import fs from "node:fs";
import { libcSymbols } from "./libc-ffi.ts";

// A rename that never replaces what is at the new name: renameat2(2) with RENAME_NOREPLACE through
// bun:ffi where libc has it and the file system takes the flag; anywhere else a hard link to the
// new name (which fails when something is there) and the old name's unlink. The fallback leaves the
// file under both names for a moment; renameat2 never does.

type Renameat2 = (olddirfd: number, oldpath: Uint8Array, newdirfd: number, newpath: Uint8Array, flags: number) => number;

const AT_FDCWD = -100;
const RENAME_NOREPLACE = 1;

let bound: Renameat2 | null | undefined;

function bind(): Renameat2 | null {
  try {
    if (typeof Bun === "undefined") return null;
    const { FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const fn = libcSymbols({ renameat2: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 } })?.renameat2;
    return fn ? (fn as unknown as Renameat2) : null;
  } catch {
    return null; // no bun:ffi: the fallback
  }
}

const cString = (s: string): Uint8Array => Buffer.from(`${s}\0`, "utf8");

const exists = (p: string): boolean => {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/**
 * Move `from` to `to` unless something is at `to`. Returns false, changing nothing, when `to`
 * exists or `from` does not; throws on any other failure (nothing moved).
 */
export function renameNoReplace(from: string, to: string): boolean {
  if (bound === undefined) bound = process.env.MEMSYNC_RENAMEAT2 === "0" ? null : bind();
  if (bound && bound(AT_FDCWD, cString(from), AT_FDCWD, cString(to), RENAME_NOREPLACE) === 0) return true;
  // refused: something at the new name, nothing at the old, or a file system without the flag
  return renameByLink(from, to);
}

/** renameNoReplace without renameat2: a hard link to the new name, then the old name's unlink. */
export function renameByLink(from: string, to: string): boolean {
  if (exists(to) || !exists(from)) return false;
  try {
    fs.linkSync(from, to);
  } catch (e) {
    if ((e as { code?: string }).code === "EEXIST") return false;
    throw e;
  }
  fs.unlinkSync(from);
  return true;
}
