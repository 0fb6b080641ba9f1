// The heartbeat of this process's held write locks, apart from the lock itself (node:sqlite): the
// merge driver and other light paths call heartbeat() without loading it.

/** What a held lock does when this process says it is moving. */
export interface Beating {
  beat(): void;
}

/** The locks this process holds now (store/write-lock.ts adds and removes them). */
export const heldHere = new Set<Beating>();

/**
 * Say that what this process does under its locks is moving (a repack, a merge, a checkout of
 * thousands of files): the lock file's mtime, at most once a second, which every waiter's
 * progress check reads. Without it a holder busy for over the busy timeout (a repack under load:
 * 17 s) made another process's write give up, "store busy", though nothing was stuck.
 */
export function heartbeat(): void {
  for (const lock of heldHere) lock.beat();
}
