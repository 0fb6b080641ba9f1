import type { StoreFs } from "./fs-port.ts";
import { readJournal } from "./journal.ts";

// A refresh journals what it finds changed on disk as an edit made outside memsync. A write that
// journaled its file and left the index row to the next refresh (ops/save-unindexed.ts) is not
// such an edit: the journal already holds that file's text, and a second entry would commit an
// "edit" over the save in history.

/**
 * The paths whose last journal entry left exactly the text now found there (`found`: path ->
 * text, null where the file is gone): already journaled, so not an outside edit.
 */
export function journaledAsFound(fs: StoreFs, root: string, found: Readonly<Record<string, string | null>>): Set<string> {
  const last = new Map<string, string | null | undefined>();
  for (const e of readJournal(fs, root)) for (const p of e.paths) if (p in found) last.set(p, e.files?.[p]);
  const out = new Set<string>();
  for (const [p, text] of last) if (typeof text === "string" && text === found[p]) out.add(p);
  return out;
}
