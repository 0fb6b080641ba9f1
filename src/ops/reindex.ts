import type { Store } from "../store/store.ts";

export interface ReindexOutcome {
  memories: number;
  relations: number;
  problems: number;
  millis: number;
}

/** Throw the derived index away and rebuild it from the record files. */
export async function reindex(store: Store): Promise<ReindexOutcome> {
  const t0 = performance.now();
  await store.rebuildIndex();
  return {
    memories: store.index.memoryCount(),
    relations: store.index.relationCount(),
    problems: store.index.problems().length,
    millis: Math.round(performance.now() - t0),
  };
}
