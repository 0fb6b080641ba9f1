import { scoreMemory } from "../core/decay.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { MemoryFilter } from "../store/index-db.ts";
import type { Store } from "../store/store.ts";
import { currentScoring } from "./score.ts";

// The store as a graph, one page at a time: memories newest first, the relations that touch
// them, and the totals a reader needs to page on (CortexGraph's read_graph is built on it). A
// page is bounded; the whole graph of a large store is never one answer.

export interface GraphPage {
  memories: Memory[];
  /** Every relation from or to a memory of this page (each once). */
  relations: Relation[];
  /** Memories matching the filter, and relations in the store. */
  total_memories: number;
  total_relations: number;
  /** Over every memory matching the statuses (not only this page). */
  avg_score: number;
  avg_use_count: number;
  offset: number;
  limit: number;
  decay_scores: Record<string, number>;
}

export async function graphPage(store: Store, filter: MemoryFilter, offset: number, limit: number): Promise<GraphPage> {
  await store.refresh(false, ["memory", "relation"]);
  const { memories, total } = await store.list(filter, offset + limit);
  const page = memories.slice(offset);
  const seen = new Set<string>();
  const relations: Relation[] = [];
  for (const m of page) {
    const { outgoing, incoming } = await store.relationsOf(m.id);
    for (const r of [...outgoing, ...incoming]) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      relations.push(r);
    }
  }
  // the averages from the index's scoring rows: no record is read for them
  const settings = currentScoring(store);
  const now = store.nowSeconds();
  const rows = await store.scoringRows(filter.statuses?.length ? filter.statuses : ["active", "promoted", "archived"]);
  let scoreSum = 0;
  let useSum = 0;
  for (const r of rows) {
    scoreSum += scoreMemory(r, now, settings.decay);
    useSum += r.use_count;
  }
  const decay_scores: Record<string, number> = {};
  for (const m of page) decay_scores[m.id] = scoreMemory(m, now, settings.decay);
  return {
    memories: page,
    relations,
    total_memories: total,
    total_relations: store.index.relationCount(),
    avg_score: rows.length ? scoreSum / rows.length : 0,
    avg_use_count: rows.length ? useSum / rows.length : 0,
    offset,
    limit,
    decay_scores,
  };
}
