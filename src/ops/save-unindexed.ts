import { unavailable } from "../core/errors.ts";
import { messages } from "../core/history.ts";
import { memoryToJson } from "../core/model/memory.ts";
import { layoutSettingsFrom } from "../core/model/vocab.ts";
import type { JsonObject } from "../core/records.ts";
import { writeAtomic } from "../store/atomic-write.ts";
import { diskRefusal } from "../store/disk-errors.ts";
import { BULK_MARKER, LOCK_FILE } from "../store/fixed-paths.ts";
import { nodeFs } from "../store/fs-port.ts";
import { FILL_MARKER } from "../store/journal-fill.ts";
import { appendJournal } from "../store/journal.ts";
import { allCandidatePaths, dirOf, recordPath } from "../store/layout.ts";
import { busyAsUnavailable, writersProgress } from "../store/lock-terms.ts";
import { refuseUnwritable } from "../store/record-limits.ts";
import { ensureRedoMarker, redoAvailable } from "../store/redo.ts";
import { settledMeta } from "../store/settled-meta.ts";
import { WriteLock } from "../store/write-lock.ts";
import { faultPoint } from "../sync/fault.ts";
import type { OpsEnv } from "./context.ts";
import { newMemory } from "./new-memory.ts";
import { originIn } from "./origin.ts";
import type { SaveOutcome } from "./save.ts";

// A save of one new memory that writes only what must be durable: its record file and its
// journal entry (the durable point, which the next commit takes, store/journal.ts), under the
// store's write lock. Its index row is left to the next command's refresh: the index is derived,
// and the new file moves its shard folder's mtime, so the next refresh lists that folder, indexes
// the file, and finds the journal already holding its text (store/journaled.ts: no outside edit).
// A cold save so loads neither the index nor the Store (issue 16: ~4-5 ms less CPU at 10k). The
// next command that reads the memory folders pays part of it back (the file parsed and indexed:
// recall and the hook +2-4 ms, paired); a get reads it from the journal (settled-index.ts).
//
// Only the plain case: a store that opens with nothing to recover (settled-meta.ts settledMeta),
// a new id, a shared scope, and a shard folder already there for it (a store whose new records go
// to shard folders). Anything else is null, and the Store's path saves as before.

export async function saveUnindexed(env: OpsEnv, fields: JsonObject): Promise<SaveOutcome | null> {
  // (a store kept open, or a test's file system port: the Store's path, as get-settled.ts refuses them)
  if (env.kept || env.open?.fs || fields.id !== undefined) return null;
  const root = env.storeRoot;
  const meta = settledMeta(root);
  if (!meta || layoutSettingsFrom(meta.settings).layout === "flat") return null;
  const nowMs = env.open?.nowMs ?? Date.now;
  const memory = await newMemory(fields, originIn(nodeFs, root, env, Math.floor(nowMs() / 1000)));
  if (memory.scope === "local") return null;
  const path = recordPath("memory", memory.id, true);
  const dir = dirOf(path);
  const json = memoryToJson(memory);
  refuseUnwritable("memory", memory.id, json);
  let lock: WriteLock;
  try {
    lock = WriteLock.open(`${root}/${LOCK_FILE}`, env.open?.busyTimeoutMs ?? 15_000, writersProgress(nodeFs, root));
  } catch {
    return null; // the Store's path opens it, or says why it cannot
  }
  try {
    return lock.hold(() => (plainPlace(root, memory.id, dir) ? writeSaved(root, path, json, messages.save(memory.id, memory.content), nowMs) && { memory, path } : null));
  } catch (e) {
    throw busyAsUnavailable(e, root);
  } finally {
    lock.close();
  }
}

/**
 * Holding the lock: nothing for the Store to recover first (a bulk write's or an import's marker,
 * left by a writer that died), no file of this id anywhere, and its shard folder a real folder.
 */
function plainPlace(root: string, id: string, dir: string): boolean {
  if (nodeFs.stat(`${root}/${BULK_MARKER}`) || nodeFs.stat(`${root}/${FILL_MARKER}`)) return false;
  if (allCandidatePaths("memory", id).some((rel) => nodeFs.lstat(`${root}/${rel}`))) return false;
  const folder = nodeFs.lstat(`${root}/${dir}`);
  return folder?.isDir === true && !folder.isLink;
}

/**
 * The record file, then its journal entry, as StoreTx writes a shared record (redo.ts: the
 * journal's line its durable point where a crash of the machine can be told). A failure after
 * the file is written removes it again, so a refused save leaves nothing.
 */
function writeSaved(root: string, path: string, json: string, message: string, nowMs: () => number): true {
  const logged = redoAvailable();
  if (logged) ensureRedoMarker(nodeFs, root);
  const dir = dirOf(path);
  writeAtomic(nodeFs, `${root}/${dir}`, path.slice(dir.length + 1), json, !logged);
  try {
    faultPoint("record");
    const st = nodeFs.stat(`${root}/${path}`);
    if (logged && !st) nodeFs.fsyncDir(`${root}/${dir}`); // gone already (a racing hand removal): nothing to redo
    const redo = logged && st ? { redo: { [path]: [st.ino, st.mtime] as [number, number] } } : {};
    appendJournal(nodeFs, root, { op: "save", message, paths: [path], files: { [path]: json }, ...redo, at: Math.floor(nowMs() / 1000) });
    return true;
  } catch (e) {
    try {
      nodeFs.unlink(`${root}/${path}`);
    } catch {
      // already gone
    }
    const refusal = diskRefusal(e);
    throw refusal ? unavailable(refusal) : e;
  }
}
