import fs from "node:fs";
import path from "node:path";
import { JOURNAL_FILE } from "../../store/journal.ts";

// Whether the store changed, by any writer: this server, the command line, another server, a
// sync. Every memsync write appends to the pending-change journal and renames a record file into
// memories/ or relations/ (or a shard folder under them), and a pull moves HEAD: a cheap stat of
// those, polled only while a client is subscribed, sees each of them without reading a record.

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
  const parts = [stamp(path.join(root, JOURNAL_FILE)), stamp(path.join(root, ".git", "HEAD")), stamp(path.join(root, ".git", "index"))];
  for (const dir of ["memories", "relations"]) {
    const top = path.join(root, dir);
    parts.push(stamp(top));
    let shards: fs.Dirent[] = [];
    try {
      shards = fs.readdirSync(top, { withFileTypes: true });
    } catch {
      /* no folder yet */
    }
    for (const d of shards) if (d.isDirectory()) parts.push(stamp(path.join(top, d.name)));
  }
  return parts.join("|");
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
