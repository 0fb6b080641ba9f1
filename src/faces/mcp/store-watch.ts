import fs from "node:fs";
import path from "node:path";
import { JOURNAL_FILE } from "../../store/journal.ts";

// Whether the store changed, by any writer: this server, the command line, another server, a
// sync. Every memsync write appends to the pending-change journal inside its transaction (and a
// commit empties it), a pull or commit moves the branch's ref, and a new record in a flat layout
// changes its folder: a few stats of those, polled while a client may be listening, see each of
// them without reading a record.

const POLL_MS = 250;

function stamp(file: string): string {
  try {
    const s = fs.statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return "-";
  }
}

/** One line that differs whenever a record, the journal or the checked-out commit changed. */
export function storeStamp(root: string): string {
  // a handful of stats, whatever the store's size: no folder of records is listed
  const files = [JOURNAL_FILE, ".git/HEAD", ".git/packed-refs", ".git/refs/heads", "memories", "relations"];
  return files.map((f) => stamp(path.join(root, f))).join("|");
}

/** Calls onChange after each change seen, until stopped. */
export function watchStore(root: string, onChange: () => void): () => void {
  let last = storeStamp(root);
  const timer = setInterval(() => {
    const now = storeStamp(root);
    if (now === last) return;
    last = now;
    onChange();
  }, POLL_MS);
  // never what keeps the process alive (stdio ends when stdin does)
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
