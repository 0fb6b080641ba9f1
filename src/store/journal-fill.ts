import { writeAtomic } from "./atomic-write.ts";
import type { StoreFs } from "./fs-port.ts";
import { type JournalEntry, readJournal, rewriteJournal } from "./journal.ts";
import { LOCAL_DIR } from "./layout.ts";

// An import's journal entry would hold the text of every file it created (megabytes, written,
// then read and parsed again by its commit). It is written without them instead, marked `fill`,
// and the import commits it itself from the texts it has in memory, under the same hold of the
// write lock. Should it die before that commit, the texts are only on disk, where any later
// change may overwrite them; so this marker, made durable before the entry is appended, tells the
// next holder of the lock to copy them from disk into the entry (fillJournal) before it writes
// anything of its own. The files are as the import left them then: every writer holds the lock.

export const FILL_MARKER = `${LOCAL_DIR}/journal-fill.json`;

export function writeFillMarker(fs: StoreFs, root: string, nowMs: number): void {
  writeAtomic(fs, `${root}/${LOCAL_DIR}`, FILL_MARKER.slice(LOCAL_DIR.length + 1), `${JSON.stringify({ started: nowMs })}\n`);
}

export function hasFillMarker(fs: StoreFs, root: string): boolean {
  return fs.stat(`${root}/${FILL_MARKER}`) !== null;
}

/** Remove the marker, durably (its entry is filled or committed). */
export function removeFillMarker(fs: StoreFs, root: string): void {
  try {
    fs.unlink(`${root}/${FILL_MARKER}`);
  } catch {
    return; // gone already
  }
  fs.fsyncDir(`${root}/${LOCAL_DIR}`);
}

/** The text at a path now, or null where there is no file (it goes from history too). */
function textOnDisk(fs: StoreFs, root: string, rel: string): string | null {
  if (!fs.stat(`${root}/${rel}`)?.isFile) return null;
  try {
    return fs.readText(`${root}/${rel}`);
  } catch {
    return null;
  }
}

/**
 * Holding the write lock, the marker is there and not this process's own: give every `fill`
 * entry the texts it lacks from the files on disk, rewrite the journal atomically and durably,
 * then remove the marker. Returns how many entries were filled.
 */
export function fillJournal(fs: StoreFs, root: string): number {
  let filled = 0;
  const entries = readJournal(fs, root).map((e): JournalEntry => {
    if (!e.fill) return e;
    filled++;
    const files: Record<string, string | null> = { ...e.files };
    for (const p of e.paths) if (!Object.hasOwn(files, p)) files[p] = textOnDisk(fs, root, p);
    const { fill: _, ...rest } = e;
    return { ...rest, files };
  });
  if (filled) {
    rewriteJournal(fs, root, entries);
    // the filled journal is in place durably before the marker that asks for it goes
    fs.fsyncDir(`${root}/${LOCAL_DIR}`);
  }
  removeFillMarker(fs, root);
  return filled;
}
