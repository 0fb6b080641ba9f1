import type { KeptStore } from "./kept-store.ts";

// A long-running process keeps its store's index in shape in the gaps between requests:
// - The full-text index kept merged, in small steps taken only while no request runs and nothing
//   has written the index for QUIET_MS: every write of a memory's text leaves a small segment and
//   the rows it deleted behind in the index, and a store written one memory at a time answers a
//   recall's searches several times slower than the same index merged (store/index-db.ts
//   mergeStep). A step writes a few pages (about a millisecond on a quiet machine), so a request
//   that arrives during one waits at most that long. Under a stream of writes nothing is merged
//   (each merge rewrites the whole index, and the next write would undo it): the merge waits for
//   the writes to pause, and resumes where it stopped.
// - The WAL checkpointed once the index has been left alone for CHECKPOINT_QUIET_MS after a
//   write (the kept store's commits no longer do it: ops/kept-store.ts WAL_BOUND_PAGES). SQLite's
//   own checkpoint copied 1,000 pages into the index file inside the commit that filled them, a
//   few milliseconds in one request of every 35 to 100 touches: the touch p99.

/** Pages written per step. */
const PAGES = 8;
/** Between steps while merging. */
const STEP_MS = 25;
/** Between looks while waiting for the index to be left alone. */
const LOOK_MS = 250;
/** How long no one may have written the index before a step. */
const QUIET_MS = 1_000;
/** After a merge completed (or failed: another process was writing), the next look. */
const AGAIN_MS = 30_000;
/** How long no one may have written the index before its WAL is checkpointed, and between looks for that. */
const CHECKPOINT_QUIET_MS = 100;

export interface Upkeep {
  stop(): void;
}

/** Keep `kept`'s index merged and its WAL checkpointed whenever `idle()` says no request runs and the index was left alone; stop() ends it. */
export function keepIndexMerged(kept: Pick<KeptStore, "use">, idle: () => boolean, o: { quietMs?: number; checkpointQuietMs?: number } = {}): Upkeep {
  const quietMs = o.quietMs ?? QUIET_MS;
  const checkpointQuietMs = o.checkpointQuietMs ?? CHECKPOINT_QUIET_MS;
  let nextMerge = Date.now() + LOOK_MS;
  let nextLook = Date.now() + checkpointQuietMs;
  let running = false;
  /** The index's state after the last look or step of ours, and since when it has been so. */
  let seen = "";
  let quietSince = Date.now();
  /** The index's state when its WAL was last checkpointed whole. */
  let checkpointed = "";
  const timer = setInterval(() => {
    const now = Date.now();
    if (running || (now < nextMerge && now < nextLook) || !idle()) return;
    running = true;
    kept
      .use(async (store) => {
        const state = store.indexState();
        if (state !== seen) {
          // written since (a request, another process): wait for it to be left alone
          seen = state;
          quietSince = now;
        }
        nextLook = now + checkpointQuietMs;
        if (state !== checkpointed && now - quietSince >= checkpointQuietMs) {
          // a reader of another process may keep some pages in the WAL: copied at a later look
          if (await store.checkpointIndex()) checkpointed = state;
        }
        if (now < nextMerge) return;
        if (now - quietSince < quietMs) return (nextMerge = now + LOOK_MS);
        const more = await store.mergeIndexStep(PAGES);
        seen = store.indexState();
        nextMerge = now + (more ? STEP_MS : AGAIN_MS);
      })
      .catch(() => {
        nextMerge = Date.now() + AGAIN_MS;
      })
      .finally(() => {
        running = false;
      });
  }, STEP_MS);
  // never what keeps the process alive
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
