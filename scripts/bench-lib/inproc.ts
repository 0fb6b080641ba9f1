// In-process timings, on the source under Bun (the runtime the binary embeds): a full load of every
// record file, a full index rebuild, and searches through the index. Each is repeated; the median
// is what the report quotes.

import { loadAll } from "../../src/store/load-all.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { loadCodec, Store } from "../../src/store/store.ts";
import { searchMemories } from "../../src/ops/query.ts";
import { getMemories } from "../../src/ops/get.ts";
import { type Stat, statOf } from "./cold.ts";

export interface InprocResult {
  load: Stat & { memories: number; relations: number; problems: number };
  rebuild: Stat;
  searchCommon: Stat & { matches: number };
  searchCommonAll: Stat;
  searchRare: Stat & { matches: number };
  get: Stat;
}

function repeat(n: number, fn: () => void): number[] {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

async function repeatAsync(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

const DEFAULT_FILTER = { statuses: ["active", "promoted"] };
/** `memsync search` shows the 20 best matches unless --limit says otherwise. */
export const SEARCH_LIMIT = 20;

/**
 * `dir` is read only (load, search, get); `scratch` is a copy whose index the rebuild may replace.
 * Repetitions scale down with size so 50k stays within budget.
 */
export async function measureInproc(dir: string, scratch: string, size: number, ids: { old: string }, queries: { common: string; rare: string }): Promise<InprocResult> {
  await loadCodec(); // module load is start-up cost, measured by the cold runs, not here
  const reps = size >= 50_000 ? 5 : size >= 10_000 ? 10 : 20;

  let counts = { memories: 0, relations: 0, problems: 0 };
  loadAll(nodeFs, dir); // one untimed pass: page cache and JIT warm, as for the cold runs
  const load = repeat(reps, () => {
    const l = loadAll(nodeFs, dir);
    counts = { memories: l.memories.size, relations: l.relations.size, problems: l.problems.length };
  });

  const scratchStore = await Store.open(scratch);
  let rebuild: number[];
  try {
    rebuild = await repeatAsync(Math.max(3, Math.ceil(reps / 2)), () => scratchStore.rebuildIndex());
  } finally {
    scratchStore.close();
  }

  const store = await Store.open(dir);
  let common = 0;
  let rare = 0;
  let searchCommon: number[];
  let searchCommonAll: number[];
  let searchRare: number[];
  let get: number[];
  try {
    // as the search command runs it: refresh (nothing changed), FTS5 match with a count of all
    // matches, the best SEARCH_LIMIT parsed; and once with every match parsed
    await searchMemories(store, queries.common, DEFAULT_FILTER, SEARCH_LIMIT);
    searchCommon = await repeatAsync(reps * 2, async () => {
      common = (await searchMemories(store, queries.common, DEFAULT_FILTER, SEARCH_LIMIT)).total;
    });
    searchCommonAll = await repeatAsync(reps * 2, () => searchMemories(store, queries.common, DEFAULT_FILTER, null));
    searchRare = await repeatAsync(reps * 2, async () => {
      rare = (await searchMemories(store, queries.rare, DEFAULT_FILTER, SEARCH_LIMIT)).total;
    });
    get = await repeatAsync(reps * 2, () => getMemories(store, [ids.old]));
  } finally {
    store.close();
  }
  return {
    load: { ...statOf(load), ...counts },
    rebuild: statOf(rebuild),
    searchCommon: { ...statOf(searchCommon), matches: common },
    searchCommonAll: statOf(searchCommonAll),
    searchRare: { ...statOf(searchRare), matches: rare },
    get: statOf(get),
  };
}
