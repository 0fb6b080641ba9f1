import { parseJsonText } from "../core/model/validate.ts";
import { writeAtomic } from "./atomic-write.ts";
import { bootId } from "./boot.ts";
import type { StoreFs } from "./fs-port.ts";
import { type JournalEntry, readJournal, type RedoStamp } from "./journal.ts";
import { dirOf, LOCAL_DIR } from "./layout.ts";

// One durable point per acknowledged write: the journal line. A write of a shared record already
// appends a line holding the text it left at each path and fsyncs it before anyone is told (the
// pending-change journal, journal.ts); that line is the redo log. The record file itself is
// written to a temp file and renamed over the old one as before (so a killed process leaves the
// old file or the new one, whole), but without its own fsync and its folder's: three fsyncs per
// touch became one. A killed process loses nothing this way (its writes are in the page cache);
// only a crash of the machine can leave such a file missing, empty, torn, or the old version.
//
// This marker, written durably with the boot it was made in before the first such write, says
// the journal may hold writes not yet on the disk. It stays until a durable point: a commit,
// which flushes the file system (or each file the journal names) before it drops the journal's
// entries. The first command after a restart that finds it from another boot (Store.open, under
// the write lock, before anything is read) goes through the journal: for each path whose last
// entry was such a write, a file missing or torn, or one older than that write, gets the
// entry's text again (a removal is done again); a file someone changed after the write is kept.
// "Older" is told by the stamp the entry holds for the path: the inode the write made and its
// mtime. A different inode no newer than the write is an old version the crash brought back (the
// rename was lost); the same inode that does not parse is the write's data lost.
//
// Where the boot cannot be told (not Linux), a crash cannot be told from a kill: every write
// stays durable on its own (three fsyncs), as before.

import { REDO_MARKER } from "./fixed-paths.ts";

export { REDO_MARKER };

/** Whether writes may skip their own fsyncs here (a crash of the machine can be told). */
export function redoAvailable(): boolean {
  return bootId() !== null;
}

/** Make sure the marker is there (holding the write lock), before a write that is not durable on its own. */
export function ensureRedoMarker(fs: StoreFs, root: string): void {
  if (fs.stat(`${root}/${REDO_MARKER}`)?.isFile) return;
  writeAtomic(fs, `${root}/${LOCAL_DIR}`, REDO_MARKER.slice(LOCAL_DIR.length + 1), `${JSON.stringify({ boot: bootId(), since: Date.now() })}\n`);
}

/** The marker's boot when it was left by another boot of the machine (a crash since); else null. */
export function crashedRedo(fs: StoreFs, root: string): { boot: unknown } | null {
  const path = `${root}/${REDO_MARKER}`;
  if (!fs.stat(path)) return null;
  let boot: unknown;
  try {
    const parsed = parseJsonText(fs.readText(path));
    if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null) boot = (parsed.value as { boot?: unknown }).boot;
  } catch {
    // unreadable: a crash of unknown boot (the journal is looked at; redoing is idempotent)
  }
  return boot === bootId() ? null : { boot };
}

/** The last journal entry's text and stamp for each path a not-durable write changed. */
function lastWrites(fs: StoreFs, root: string): Map<string, { text: string | null; stamp: RedoStamp }> {
  const last = new Map<string, { text: string | null; stamp: RedoStamp } | null>();
  for (const e of readJournal(fs, root)) {
    for (const p of e.paths) {
      const stamp = e.redo?.[p];
      const text = e.files?.[p];
      // a later entry of another kind (an edit found on disk, a durable write) is what the path holds now
      last.set(p, stamp && text !== undefined ? { text, stamp } : null);
    }
  }
  const out = new Map<string, { text: string | null; stamp: RedoStamp }>();
  for (const [p, w] of last) if (w) out.set(p, w);
  return out;
}

/** Whether the file at `abs` is what a crash left of the write stamped `stamp` that left `text`. */
function needsRedo(fs: StoreFs, abs: string, text: string, [ino, mtime]: RedoStamp): boolean {
  const st = fs.stat(abs);
  if (!st) return true; // the new name was lost
  if (!st.isFile) return false; // not a file memsync made: left for status to report
  let now: string;
  try {
    now = fs.readText(abs);
  } catch {
    return false;
  }
  if (now === text) return false;
  // the write's own inode: its data lost (empty, zeros, cut short); one that still parses was edited in place since
  if (st.ino === ino) return !parseJsonText(now).ok || text.startsWith(now);
  // another inode: the old version the crash brought back (no newer than the write), or a torn
  // one; a whole file written after the write is someone's later change
  return st.mtime <= mtime || !parseJsonText(now).ok;
}

/**
 * After a crash of the machine (the marker is from another boot; the caller holds the write
 * lock): write again each logged write the disk lost, make it durable, and remove the marker.
 * Returns the paths written or removed again.
 */
export function recoverRedo(fs: StoreFs, root: string): string[] {
  const redone: string[] = [];
  for (const [rel, { text, stamp }] of lastWrites(fs, root)) {
    const abs = `${root}/${rel}`;
    const dir = dirOf(rel);
    if (text === null) {
      const st = fs.stat(abs);
      if (st?.isFile && st.mtime <= stamp[1]) {
        fs.unlink(abs);
        fs.fsyncDir(`${root}/${dir}`);
        redone.push(rel);
      }
      continue;
    }
    if (!needsRedo(fs, abs, text, stamp)) continue;
    fs.mkdirp(`${root}/${dir}`);
    writeAtomic(fs, `${root}/${dir}`, rel.slice(dir.length + 1), text);
    redone.push(rel);
  }
  settleRedo(fs, root);
  return redone;
}

/** Above this many paths a durable point flushes the whole file system at once (one syncfs). */
const FSYNC_EACH_UP_TO = 64;

/**
 * A durable point (holding the write lock): every file the journal's not-durable writes left is
 * flushed, then the marker goes. A commit calls this before it drops the entries it committed.
 * A few paths are fsynced one by one (with their folders): syncfs flushes everything every
 * process has written on that file system, seconds on a busy shared disk; many (a server's hours
 * of touches) at once by syncfs, where the backing can.
 */
export function settleRedo(fs: StoreFs, root: string, entries?: readonly JournalEntry[]): void {
  const marker = `${root}/${REDO_MARKER}`;
  if (!fs.stat(marker)) return;
  // every path such a write named, also those changed again since by someone else: a crash after
  // the entries are gone would otherwise be free to bring back an older file
  const paths = new Set<string>();
  // (the caller's entries when it has read the journal already: a commit has, under the same lock)
  for (const e of entries ?? readJournal(fs, root)) for (const p of Object.keys(e.redo ?? {})) paths.add(p);
  if (paths.size > FSYNC_EACH_UP_TO && fs.syncAll(root)) paths.clear();
  const dirs = new Set<string>();
  for (const rel of paths) {
    dirs.add(dirOf(rel));
    if (fs.stat(`${root}/${rel}`)?.isFile) fs.fsyncFile(`${root}/${rel}`);
  }
  for (const dir of dirs) fs.fsyncDir(`${root}/${dir}`);
  try {
    fs.unlink(marker);
  } catch {
    // gone already
  }
}
