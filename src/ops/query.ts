import type { Memory } from "../core/model/memory.ts";
import { searchTerms } from "../core/search-query.ts";
import type { MemoryFilter } from "../store/index-db.ts";
import type { Store } from "../store/store.ts";

// Reading many memories: list (newest first) and search (ranked). Both see every memory in the
// store, however old; filters narrow, they never sample.

export interface ListOutcome {
  memories: Memory[];
  total: number;
}

export async function listMemories(store: Store, filter: MemoryFilter, limit: number | null): Promise<ListOutcome> {
  await store.refresh(false, ["memory"]);
  return store.list(filter, limit);
}

export interface SearchOutcome {
  query: string;
  words: string[];
  hits: { memory: Memory; score: number }[];
  total: number;
}

export async function searchMemories(
  store: Store,
  query: string,
  filter: MemoryFilter,
  limit: number | null,
  mode: "all" | "any" = "all",
): Promise<SearchOutcome> {
  const terms = searchTerms(query, mode);
  await store.refresh(false, ["memory"]);
  const { hits, total } = await store.search(terms.match, filter, limit);
  return { query, words: terms.words, hits, total };
}
