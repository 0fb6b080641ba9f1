import type { StoreFs } from "./fs-port.ts";
import { JOURNAL_FILE } from "./fixed-paths.ts";
import { journalEntryOf } from "./journal-entry.ts";

// A refresh journals what it finds changed on disk as an edit made outside memsync. A write that
// journaled its file and left the index row to the next refresh (ops/save-unindexed.ts) is not
// such an edit: the journal already holds that file's text, and a second entry would commit an
// "edit" over the save in history.

/**
 * The paths whose last journal entry left exactly the text now found there (`found`: path ->
 * text): already journaled, so not an outside edit. Only the line naming a path last is parsed:
 * a path is a JSON string token of its entry's line (within a quoted file text its quotes are
 * escaped), and parsing every line of a journal of a hundred entries cost ~3 ms per refresh.
 */
export function journaledAsFound(fs: Pick<StoreFs, "stat" | "readText">, root: string, found: Readonly<Record<string, string | null>>): Set<string> {
  const path = `${root}/${JOURNAL_FILE}`;
  return Object.values(found).some((t) => typeof t === "string") && fs.stat(path)?.isFile ? journaledIn(fs.readText(path), found) : new Set();
}

/** journaledAsFound on the journal's text. */
export function journaledIn(journal: string, found: Readonly<Record<string, string | null>>): Set<string> {
  const out = new Set<string>();
  for (const [p, text] of Object.entries(found)) {
    if (typeof text !== "string") continue;
    const at = journal.lastIndexOf(JSON.stringify(p));
    if (at < 0) continue;
    const end = journal.indexOf("\n", at);
    // a torn last line (a crash mid-append) parses as nothing: the file is journaled as found
    const entry = journalEntryOf(journal.slice(journal.lastIndexOf("\n", at) + 1, end < 0 ? journal.length : end));
    if (entry?.paths.includes(p) && entry.files?.[p] === text) out.add(p);
  }
  return out;
}
