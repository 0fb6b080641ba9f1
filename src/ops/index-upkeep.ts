import type { KeptStore } from "./kept-store.ts";

// A long-running process (serve, mcp) keeps its store's full-text index merged, in small steps
// taken only while no request runs and nothing has written the index for QUIET_MS: every write
// leaves a small segment and the rows it deleted behind in the index, and a store written one
// memory at a time answers a recall's searches several times slower than the same index merged
// (store/index-db.ts mergeStep). A step writes a few pages (about a millisecond on a quiet
// machine), so a request that arrives during one waits at most that long. Under a stream of
// writes nothing is merged (each merge rewrites the whole index, and the next write would undo
// it): the merge waits for the writes to pause, and resumes where it stopped.

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

export interface Upkeep {
  stop(): void;
}

/** Merge `kept`'s index whenever `idle()` says no request runs and the index was left alone; stop() ends it. */
export function keepIndexMerged(kept: Pick<KeptStore, "use">, idle: () => boolean, o: { quietMs?: number } = {}): Upkeep {
  const quietMs = o.quietMs ?? QUIET_MS;
  let next = Date.now() + LOOK_MS;
  let running = false;
  /** The index's state after the last look or step of ours, and since when it has been so. */
  let seen = "";
  let quietSince = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    if (running || now < next || !idle()) return;
    running = true;
    kept
      .use(async (store) => {
        const state = store.indexState();
        if (state !== seen) {
          // written since (a request, another process): wait for it to be left alone
          seen = state;
          quietSince = now;
        }
        if (now - quietSince < quietMs) return (next = now + LOOK_MS);
        const more = await store.mergeIndexStep(PAGES);
        seen = store.indexState();
        next = now + (more ? STEP_MS : AGAIN_MS);
      })
      .catch(() => {
        next = Date.now() + AGAIN_MS;
      })
      .finally(() => {
        running = false;
      });
  }, STEP_MS);
  // never what keeps the process alive
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
