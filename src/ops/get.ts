import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { Store } from "../store/store.ts";

export interface GetOutcome {
  found: { memory: Memory; path: string; outgoing: Relation[]; incoming: Relation[] }[];
  not_found: string[];
  unreadable: { id: string; path: string; problem: string }[];
}

/** Memories by id, each with the relations that leave it and those that point at it. */
export async function getMemories(store: Store, ids: readonly string[]): Promise<GetOutcome> {
  await store.refresh(false, ["relation"]);
  const out: GetOutcome = { found: [], not_found: [], unreadable: [] };
  for (const id of new Set(ids)) {
    const hit = await store.readMemory(id);
    if (!hit) out.not_found.push(id);
    else if (!hit.result.ok) out.unreadable.push({ id, path: hit.path, problem: hit.result.problem });
    else out.found.push({ memory: hit.result.record, path: hit.path, ...(await store.relationsOf(id)) });
  }
  return out;
}
