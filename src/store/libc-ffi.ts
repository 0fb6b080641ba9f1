import type { FFIFunction, Library } from "bun:ffi";

// libc's functions through bun:ffi, for the system calls node:fs lacks (renameat2) or makes dear
// (statx relative to an open folder, getdents64): one place that knows libc's names, glibc's
// libc.so.6 and musl's libc.so. null where bun:ffi or the symbols are not there: callers keep a
// node:fs way for that.

/** The symbols of `spec` from libc, or null (not Bun, not Linux, or a libc without them). */
export function libcSymbols<Fns extends Record<string, FFIFunction>>(spec: Fns): Library<Fns>["symbols"] | null {
  if (typeof Bun === "undefined" || process.platform !== "linux") return null;
  let ffi: typeof import("bun:ffi");
  try {
    ffi = require("bun:ffi") as typeof import("bun:ffi");
  } catch {
    return null;
  }
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      return ffi.dlopen(name, spec).symbols;
    } catch {
      // the next name, or none
    }
  }
  return null;
}
