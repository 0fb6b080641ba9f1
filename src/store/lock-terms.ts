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

/** How long a client refused because its wait passed its limit is told to wait before it asks again (Retry-After). */
export const RETRY_AFTER_LIMIT_S = 5;

/**
 * SQLite's "database is locked" from the write lock's wait, said as the store being busy (with the
 * holder's note; a wait cut by its own limit says so, and when to ask again: `retry_after_s`);
 * anything else as it is.
 */
export function busyAsUnavailable(e: unknown, root: string): unknown {
  if (e instanceof Error && /database is locked|SQLITE_BUSY/i.test(e.message)) {
    const holder = e instanceof LockBusyError ? `: ${e.holder}` : "";
    const limit = e instanceof LockBusyError ? e.limitPassed : null;
    if (limit) {
      return unavailable(
        `the store is busy: this request waited ${Math.round(limit.waitedMs / 1000)} s, its limit, for the write lock another memsync process holds while it works (${root})${holder}; nothing was changed: send it again in a few seconds`,
        { retry_after_s: RETRY_AFTER_LIMIT_S },
      );
    }
    return unavailable(`the store is busy: another memsync process held its write lock too long (${root})${holder}`);
  }
  return e;
}
