import { removeOldTemps } from "./atomic-write.ts";
import { type JournalEntry, journalEntryOf } from "./journal-entry.ts";
import type { StoreFs } from "./fs-port.ts";
import { LOCAL_DIR } from "./layout.ts";

// The pending-change journal (.memsync/journal.jsonl, machine-local): one line per change that
// has not reached git history yet, with the paths it changed, what it left at each of them (the
// file's text, or null for a removal) and the commit message it earns. Writes append to it inside
// their transaction, so nothing written can be missing from the next commit; `memsync commit`
// turns it into commits, one per entry, each holding the files as that change left them (not as
// they are when the commit runs), and empties it. Changes found on disk that no memsync write
// made (a hand edit, another tool) are journaled, with the text found, by the refresh that finds
// them. Entries of older versions carry no texts: their files are read from disk at commit time.

import { JOURNAL_FILE } from "./fixed-paths.ts";

export { JOURNAL_FILE };
export { type JournalEntry, journalEntryOf, type RedoStamp } from "./journal-entry.ts";

/**
 * The message of a "rescan" entry asked for by an index made when the shared record folders held
 * no record file: nothing was there before the index to miss, so every record file since is one
 * the journal or a refresh knows of, and the next commit compares only the files and history
 * paths no entry took (the full compare read and hashed every file an import had just written).
 */
export const RESCAN_NO_RECORDS = "index made with no record files";

/**
 * The kind of a delete that kept the memories' relations (dangling): a checkout finished after it
 * keeps the relations it brings to those memories too (sync/checkout.ts), as the user asked.
 */
export const DELETE_KEEPING_RELATIONS = "delete-keeping-relations";

export function appendJournal(fs: StoreFs, root: string, entry: JournalEntry): void {
  fs.appendDurable(`${root}/${JOURNAL_FILE}`, `${JSON.stringify(entry)}\n`);
}

/** Entries in order; a torn last line (a crash mid-append) is skipped, as are foreign lines. */
export function readJournal(fs: StoreFs, root: string): JournalEntry[] {
  return readJournalText(fs, root).entries;
}

/** readJournal, with the text its entries were read from (dropJournal need not parse them again). */
export function readJournalText(fs: StoreFs, root: string): { entries: JournalEntry[]; text: string } {
  const path = `${root}/${JOURNAL_FILE}`;
  if (!fs.stat(path)?.isFile) return { entries: [], text: "" };
  const text = fs.readText(path);
  return { entries: entriesOf(text), text };
}

function entriesOf(text: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    const e = journalEntryOf(line);
    if (e) out.push(e);
  }
  return out;
}

/** The journal's own temp files (dropJournal's) that a killed process left, old enough to remove. */
export function removeOldJournalTemps(fs: StoreFs, root: string, nowMs: number): void {
  const prefix = `${JOURNAL_FILE.slice(LOCAL_DIR.length + 1)}.`;
  let names: string[];
  try {
    names = fs.readdir(`${root}/${LOCAL_DIR}`).filter((e) => e.isFile && e.name.startsWith(prefix) && e.name.endsWith(".tmp")).map((e) => e.name);
  } catch {
    return;
  }
  removeOldTemps(fs, root, names.map((n) => `${LOCAL_DIR}/${n}`), nowMs);
}

/**
 * Drop the first `count` entries (those committed), keeping any appended meanwhile. `seen`: the
 * text those entries were read from (readJournalText); when the journal still begins with it,
 * only what was appended after it is parsed (a large import's entry is megabytes of texts).
 */
export function dropJournal(fs: StoreFs, root: string, count: number, seen?: string): void {
  const path = `${root}/${JOURNAL_FILE}`;
  const now = fs.stat(path)?.isFile ? fs.readText(path) : "";
  // a seen text ending mid-line (a torn append) is not a clean boundary: parse it all again
  const clean = seen !== undefined && (seen === "" || seen.endsWith("\n")) && now.startsWith(seen);
  const rest = clean ? entriesOf(now.slice(seen.length)) : entriesOf(now).slice(count);
  if (rest.length === 0) {
    if (fs.stat(path)) fs.unlink(path);
    return;
  }
  rewriteJournal(fs, root, rest);
}

/** Replace the journal with these entries, atomically (a temp file made durable, renamed over it). */
export function rewriteJournal(fs: StoreFs, root: string, entries: JournalEntry[]): void {
  const path = `${root}/${JOURNAL_FILE}`;
  removeOldJournalTemps(fs, root, Date.now());
  const tmp = `${path}.${Date.now()}.tmp`;
  try {
    fs.writeNewDurable(tmp, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
    fs.rename(tmp, path);
  } catch (e) {
    try {
      fs.unlink(tmp);
    } catch {
      // not made
    }
    throw e;
  }
}
