import { LOCAL_DIR } from "../store/layout.ts";
import type { Store } from "../store/store.ts";
import { WriteLock } from "../store/write-lock.ts";
import type { RepackOutcome } from "../sync/repack.ts";

// Repacking the store's git objects (see sync/repack.ts): on demand (`memsync repack`), and after
// a commit or sync once the loose objects or the packs pass git's gc.auto / gc.autoPackLimit. It
// runs holding both of the store's locks: whole syncs take turns through the sync lock (their
// fetch reads packs outside the write lock), and every commit and merge holds the write lock, so
// no memsync process reads a pack while it is replaced.

/** Whole syncs of one store take turns through this lock (released by the OS when a process dies). */
export const SYNC_LOCK = `${LOCAL_DIR}/sync.lock`;

/** Repack now; `holdsSyncLock` when the caller already holds the sync lock. */
export async function repackStore(store: Store, opts: { all?: boolean; holdsSyncLock?: boolean; waitMs?: number } = {}): Promise<RepackOutcome> {
  const { repack } = await import("../sync/repack.ts");
  const run = () => store.exclusive(() => repack(`${store.root}/.git`, { all: opts.all ?? false }));
  if (opts.holdsSyncLock) return run();
  const lock = WriteLock.open(`${store.root}/${SYNC_LOCK}`, opts.waitMs ?? 120_000);
  try {
    return await lock.holdAsync(run);
  } finally {
    lock.close();
  }
}

/**
 * After a commit or sync: repack when due (a listing of one or two folders when not). Like git's
 * `gc --auto`, never the cause of a failure: a repack that cannot run now (a sync holds the lock
 * for long, a damaged pack) is left to a later command, and what was committed stands.
 */
export async function autoRepack(store: Store, holdsSyncLock: boolean): Promise<RepackOutcome | null> {
  try {
    const { repackDue } = await import("../sync/repack.ts");
    const due = await repackDue(`${store.root}/.git`);
    if (!due) return null;
    return await repackStore(store, { all: due === "packs", holdsSyncLock, waitMs: 2_000 });
  } catch {
    return null;
  }
}
