import type { StoreFs } from "./fs-port.ts";

// A crash never leaves a torn record: the text goes to a temp file in the same folder, is
// fsynced, renamed over the target (atomic on POSIX), and the folder is fsynced.

export const TEMP_SUFFIX = ".tmp";

export function isTempName(name: string): boolean {
  return name.startsWith(".") && name.endsWith(TEMP_SUFFIX);
}

export function writeAtomic(fs: StoreFs, dir: string, name: string, text: string): void {
  const tmp = `${dir}/.${name}.${randomHex(6)}${TEMP_SUFFIX}`;
  fs.writeNewDurable(tmp, text);
  try {
    fs.rename(tmp, `${dir}/${name}`);
  } catch (e) {
    try {
      fs.unlink(tmp);
    } catch {
      // leave it; status reports leftover temp files
    }
    throw e;
  }
  fs.fsyncDir(dir);
}

/** Random hex from Web Crypto (node:crypto costs ~6 ms to load in a compiled Bun binary). */
export function randomHex(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}
