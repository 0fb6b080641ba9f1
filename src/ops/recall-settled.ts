import { IndexDb } from "../store/index-db.ts";
import { SettledIndex } from "../store/settled-index.ts";
import type { OpsEnv } from "./context.ts";
import { mark } from "../runtime/cold-trace.ts";
import { type RecallIndex, recallIn, type RecallOptions, type RecallOutcome } from "./recall.ts";

// Recall from a settled index without the Store (issue 16: a cold hook spent ~5 ms on the store's
// modules, its open, the quick refresh's planner and its close, for a recall that only reads).
// It answers only where the Store's recall reads the same index rows: the store opens cleanly and
// a quick refresh of the memory folders would find nothing (store/settled-index.ts, as a settled
// get checks the relation folders), so ops/recall.ts runs the same queries on the same rows.
// Otherwise null, and the caller takes the Store's path, which applies, recovers or refuses.

// `told.memoryNotCurrent`: set when the memory folders' check failed, so the Store's refresh that
// follows need not repeat the same stats (~0.7-2 ms at 10k right after a save, issue 16).
export async function recallSettled(env: OpsEnv, opts: RecallOptions, told?: { memoryNotCurrent: boolean }): Promise<RecallOutcome | null> {
  // a store kept open, or a test's file system or clock: only the Store's path uses them
  if (env.kept || env.open?.fs || env.open?.nowMs) return null;
  const settled = SettledIndex.open(env.storeRoot, env.open?.busyTimeoutMs ?? 15_000);
  mark("SettledIndex.open");
  if (!settled) return null;
  try {
    if (!settled.foldersCurrent("memory")) {
      if (told) told.memoryNotCurrent = true;
      mark("memory folders not current");
      return null;
    }
    mark("memory folders current");
    const index = IndexDb.reading(settled.connection);
    // the Store's own reads (IndexDb), without its guard: any error falls back to the Store
    const reads: RecallIndex = {
      searchWithTerms: async (match, filter, limit, matchesAbout) => index.searchWithTerms(match, filter, limit, matchesAbout),
      boundedSearchReady: async () => index.boundedSearchReady(),
      countMatches: async (match, filter, upTo) => index.countMatchesOrAll(match, filter, upTo),
      countMatchesPassing: async (match, filter, upTo) => index.countMatchesPassing(match, filter, upTo),
      relationsOfTypeTo: async (type, ids) => index.relationsOfTypeTo(type, ids),
      projects: async () => index.projects(),
      nowSeconds: () => Math.floor(Date.now() / 1000),
      rawSettings: settled.rawSettings,
    };
    return await recallIn(reads, opts, async () => undefined);
  } catch {
    return null;
  } finally {
    settled.close();
    mark("index close");
  }
}
