import { parseJsonText } from "../core/model/validate.ts";
import { writeAtomic } from "./atomic-write.ts";
import { bootId } from "./boot.ts";
import type { StoreFs } from "./fs-port.ts";
import { KIND_DIR, LOCAL_DIR, LOCAL_KIND_DIR } from "./layout.ts";

// A bulk write (an import of thousands of records) writes its new record files without an fsync
// each and makes them durable together at its end, before its journal entry (StoreTx.recordDirs).
// Until then a crash of the machine (not of the process: a killed process leaves every byte it
// wrote in the page cache) may leave some of those files empty or torn. Such a file belongs to a
// change no one was told of, so it may go; this marker, written durably before the first such
// file, says one may be there. The writer removes it under the write lock once its change is in
// the journal and the index; a marker found by the next holder of the lock was left by a writer
// that died. After a process kill (same boot) its files are whole: they are flushed and kept, and
// the next refresh takes them in as changes found on disk. After a machine crash, the record
// files changed since the marker was written that are not JSON are removed: never half a record.

import { BULK_MARKER } from "./fixed-paths.ts";

export { BULK_MARKER };

export function writeBulkMarker(fs: StoreFs, root: string, nowMs: number): void {
  writeAtomic(fs, `${root}/${LOCAL_DIR}`, BULK_MARKER.slice(LOCAL_DIR.length + 1), `${JSON.stringify({ boot: bootId(), started: nowMs })}\n`);
}

export function removeBulkMarker(fs: StoreFs, root: string): void {
  try {
    fs.unlink(`${root}/${BULK_MARKER}`);
  } catch {
    // gone already: the next holder of the lock finds nothing to recover
  }
}

/** Record files (relative) of every record folder, shared and local, flat and sharded. */
function recordFiles(fs: StoreFs, root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = fs.readdir(`${root}/${dir}`);
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile && e.name.endsWith(".json") && !e.name.startsWith(".")) out.push(`${dir}/${e.name}`);
      else if (e.isDir && depth === 0) walk(`${dir}/${e.name}`, 1);
    }
  };
  for (const top of [...Object.values(KIND_DIR), ...Object.values(LOCAL_KIND_DIR)]) walk(top, 0);
  return out;
}

/**
 * Holding the write lock, a marker is there: its writer died. Returns the record files removed
 * as torn (relative paths), which the caller's refresh then finds gone.
 */
export function recoverBulkWrite(fs: StoreFs, root: string): string[] {
  let marker: { boot?: unknown; started?: unknown } = {};
  try {
    const parsed = parseJsonText(fs.readText(`${root}/${BULK_MARKER}`));
    if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null) marker = parsed.value as typeof marker;
  } catch {
    // unreadable: treated as a crash of unknown time (every record file is looked at)
  }
  const removed: string[] = [];
  const boot = bootId();
  const sameBoot = boot !== null && marker.boot === boot;
  if (!sameBoot) {
    // a second of slack: mtimes and the marker's clock may differ by the file system's granularity
    const since = typeof marker.started === "number" ? marker.started - 1000 : 0;
    for (const rel of recordFiles(fs, root)) {
      const st = fs.stat(`${root}/${rel}`);
      if (!st?.isFile || st.mtime < since) continue;
      let whole = false;
      try {
        whole = parseJsonText(fs.readText(`${root}/${rel}`)).ok;
      } catch {
        whole = false;
      }
      if (whole) continue;
      try {
        fs.unlink(`${root}/${rel}`);
        removed.push(rel);
      } catch {
        // left for status to report
      }
    }
  }
  // what the dead writer left (and the removals) made durable before the marker goes
  if (!fs.syncAll(root)) for (const dir of new Set(removed.map((r) => r.slice(0, r.lastIndexOf("/"))))) fs.fsyncDir(`${root}/${dir}`);
  removeBulkMarker(fs, root);
  fs.fsyncDir(`${root}/${LOCAL_DIR}`);
  return removed;
}
