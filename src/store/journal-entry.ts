import { parseJsonText } from "../core/model/validate.ts";

// One journal entry (journal.ts has the journal itself), apart from the journal's writers: a
// settled get that reads an entry (settled-index.ts journaledFile, through journaled.ts) so loads
// neither the writers nor their atomic-write and disk-error modules (issue 16: a cold get's CPU).

export interface JournalEntry {
  /** The kind of change: save, update, touch, archive, delete (or DELETE_KEEPING_RELATIONS), relate, unrelate, edit. */
  op: string;
  message: string;
  paths: string[];
  /**
   * What the change left at each path: the file's text, or null where it removed the file. A path
   * missing here (or an entry without it) is read from disk when committed.
   */
  files?: Record<string, string | null>;
  /**
   * The paths this change wrote without an fsync of their own (store/redo.ts): for each, the
   * inode its new file got and its mtime (0 and the time of the removal for a file removed).
   * After a crash of the machine the entry's texts are written again where the disk lost them.
   */
  redo?: Record<string, RedoStamp>;
  /**
   * Written without the texts of the files it created (an import's megabytes): they are on disk,
   * and the next holder of the write lock fills them in before it writes anything (journal-fill.ts).
   */
  fill?: boolean;
  at: number;
}

/** [inode of the file written (0: removed), its mtime or the removal's time, in ms]. */
export type RedoStamp = [number, number];

function redoOf(v: unknown): Record<string, RedoStamp> | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, RedoStamp> = Object.create(null);
  for (const [k, x] of Object.entries(v)) if (Array.isArray(x) && x.length === 2 && typeof x[0] === "number" && typeof x[1] === "number") out[k] = [x[0], x[1]];
  return out;
}

/** A journal entry's files, kept only when each is a text or null (anything else: read the disk). */
function filesOf(v: unknown): Record<string, string | null> | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string | null> = Object.create(null);
  for (const [k, x] of Object.entries(v)) if (typeof x === "string" || x === null) out[k] = x;
  return out;
}

/** One line of the journal as an entry; null for a blank, torn or foreign line. */
export function journalEntryOf(line: string): JournalEntry | null {
  if (!line.trim()) return null;
  const parsed = parseJsonText(line);
  const e = parsed.ok ? (parsed.value as Partial<JournalEntry>) : null;
  if (!e || typeof e.op !== "string" || typeof e.message !== "string" || !Array.isArray(e.paths)) return null;
  const files = filesOf(e.files);
  const redo = redoOf(e.redo);
  const fill = e.fill === true ? { fill: true } : {};
  return { op: e.op, message: e.message, paths: e.paths.filter((p): p is string => typeof p === "string"), ...(files ? { files } : {}), ...(redo ? { redo } : {}), ...fill, at: typeof e.at === "number" ? e.at : 0 };
}
