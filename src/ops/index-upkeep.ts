import type { KeptStore } from "./kept-store.ts";

// A long-running process (serve, mcp) keeps its store's full-text index merged, in small steps
// taken only while no request is running: every write leaves a small segment and the rows it
// deleted behind in the index, and a store written one memory at a time answers a recall's
// searches several times slower than the same index merged (store/index-db.ts mergeStep). A step
// writes a few pages (about a millisecond on a quiet machine), so a request that arrives during
// one waits at most that long; a merge found done is looked at again only after AGAIN_MS.

/** Pages written per step. */
const PAGES = 8;
/** Between steps while merging, and between looks for idle time. */
const STEP_MS = 25;
/** After a merge completed (or failed: another process was writing), the next look. */
const AGAIN_MS = 30_000;
/** After the start: the first requests come first. */
const FIRST_MS = 1_000;

export interface Upkeep {
  stop(): void;
}

/** Merge `kept`'s index whenever `idle()` says no request runs; stop() ends it. */
export function keepIndexMerged(kept: Pick<KeptStore, "use">, idle: () => boolean): Upkeep {
  let next = Date.now() + FIRST_MS;
  let running = false;
  const timer = setInterval(() => {
    if (running || Date.now() < next || !idle()) return;
    running = true;
    kept
      .use((store) => store.mergeIndexStep(PAGES))
      .then(
        (more) => {
          if (!more) next = Date.now() + AGAIN_MS;
        },
        () => {
          next = Date.now() + AGAIN_MS;
        },
      )
      .finally(() => {
        running = false;
      });
  }, STEP_MS);
  // never what keeps the process alive
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
