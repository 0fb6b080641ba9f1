import type { StoreFs } from "./fs-port.ts";

// A crash never leaves a torn record: the text goes to a temp file in the same folder, is
// fsynced, renamed over the target (atomic on POSIX), and the folder is fsynced. A write that
// fails (a full disk fails the write or the fsync, not only the rename) removes its temp file;
// one left by a killed process is removed by a later writer once it is old (OLD_TEMP_MS).

export const TEMP_SUFFIX = ".tmp";

/** A temp file this old was left by a process that died: no write takes minutes. */
export const OLD_TEMP_MS = 5 * 60_000;

export function isTempName(name: string): boolean {
  return name.startsWith(".") && name.endsWith(TEMP_SUFFIX);
}

/**
 * `durable: false` (a bulk write): no fsync of the file or its folder here; the caller makes the
 * whole batch durable at one point before it acknowledges anything (StoreTx.makeDurable). The
 * rename is still atomic, so a killed process leaves the old file or the new one, whole.
 * `onTemp`: told the temp file's name before it is made (a watch told of a process's own writes).
 */
export function writeAtomic(fs: StoreFs, dir: string, name: string, text: string, durable = true, onTemp?: (tempName: string) => void): void {
  const tempName = tempNameFor(name);
  onTemp?.(tempName);
  writeAtomicVia(fs, dir, tempName, name, text, durable);
}

/** A fresh temp name beside `name` (a leftover of it is cleared as any other temp file). */
export function tempNameFor(name: string): string {
  return `.${name}.${randomHex(6)}${TEMP_SUFFIX}`;
}

/** writeAtomic through a temp name chosen already (tempNameFor). */
export function writeAtomicVia(fs: StoreFs, dir: string, tempName: string, name: string, text: string, durable = true): void {
  const tmp = `${dir}/${tempName}`;
  try {
    if (durable) fs.writeNewDurable(tmp, text);
    else fs.writeNew(tmp, text);
    fs.rename(tmp, `${dir}/${name}`);
  } catch (e) {
    try {
      fs.unlink(tmp);
    } catch {
      // not made, or cannot be removed: a later writer removes it once it is old
    }
    throw e;
  }
  if (durable) fs.fsyncDir(dir);
}

/** Remove the temp files (relative to root) old enough to be leftovers; best effort. Returns those removed. */
export function removeOldTemps(fs: StoreFs, root: string, paths: readonly string[], nowMs: number): string[] {
  const removed: string[] = [];
  for (const rel of paths) {
    try {
      const st = fs.stat(`${root}/${rel}`);
      if (st?.isFile && nowMs - st.mtime > OLD_TEMP_MS) {
        fs.unlink(`${root}/${rel}`);
        removed.push(rel);
      }
    } catch {
      // gone meanwhile, or not ours to remove: status still reports it
    }
  }
  return removed;
}

/**
 * Temp files outside the record folders (relative to root): the store's own files (.meta.json,
 * .gitattributes...) at its top, and the machine-local folder's (machine.json, the journal's
 * `journal.jsonl.<hex>.tmp`). The record folders' are found by the refresh that lists them.
 * `alsoLocal`: other names of the machine-local folder to take with them (one listing for both).
 */
export function storeLevelTemps(fs: StoreFs, root: string, localDir: string, alsoLocal: (name: string) => boolean = () => false): string[] {
  const found: string[] = [];
  for (const dir of ["", localDir]) {
    let entries;
    try {
      entries = fs.readdir(dir ? `${root}/${dir}` : root);
    } catch {
      continue;
    }
    for (const e of entries) {
      const temp = isTempName(e.name) || (dir !== "" && (/^journal\.jsonl\..+\.tmp$/.test(e.name) || alsoLocal(e.name)));
      if (e.isFile && temp) found.push(dir ? `${dir}/${e.name}` : e.name);
    }
  }
  return found.sort();
}

const pool = new Uint8Array(4096);
let poolAt = pool.length;
/**
 * Two hex digits a byte, picked from this string: no table to build (a 256-entry table made at
 * the first draw cost a save ~0.27 ms of CPU before any JIT, a compiled probe; at module load it
 * cost every command that imports this ~0.3 ms).
 */
const DIGITS = "0123456789abcdef";

/** Random hex from Web Crypto (node:crypto costs ~6 ms to load in a compiled Bun binary). */
export function randomHex(bytes: number): string {
  let s = "";
  for (let i = 0; i < bytes; i++) {
    // drawn from a pool filled 4 KiB at a time: an import names 13,000 temp files (a call each was ~0.1 s)
    if (poolAt === pool.length) {
      crypto.getRandomValues(pool);
      poolAt = 0;
    }
    const b = pool[poolAt++]!;
    s += DIGITS[b >> 4]! + DIGITS[b & 15]!;
  }
  return s;
}
