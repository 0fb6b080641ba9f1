import { unavailable } from "../core/errors.ts";
import type { StoreFs } from "./fs-port.ts";
import { INDEX_FILE, JOURNAL_FILE } from "./fixed-paths.ts";
import { LockBusyError } from "./write-lock.ts";

/**
 * What a waiter for the store's write lock watches for progress (WriteLock.open): every change
 * commits to the index's WAL or appends to the journal, so their stats move while writers finish.
 */
export function writersProgress(fs: Pick<StoreFs, "stat">, root: string): () => string {
  const sig = (rel: string) => {
    const st = fs.stat(`${root}/${rel}`);
    return st ? `${st.mtime}:${st.size}:${st.ino}` : "-";
  };
  return () => `${sig(`${INDEX_FILE}-wal`)} ${sig(JOURNAL_FILE)}`;
}

/** SQLite's "database is locked" from the write lock's wait, said as the store being busy; anything else as it is. */
export function busyAsUnavailable(e: unknown, root: string): unknown {
  if (e instanceof Error && /database is locked|SQLITE_BUSY/i.test(e.message)) {
    const holder = e instanceof LockBusyError ? `: ${e.holder}` : "";
    return unavailable(`the store is busy: another memsync process held its write lock too long (${root})${holder}`);
  }
  return e;
}
