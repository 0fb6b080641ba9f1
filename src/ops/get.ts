import { conflict } from "../core/errors.ts";
import { isShortId } from "../core/ids.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { Store } from "../store/store.ts";

export interface GetOutcome {
  found: { memory: Memory; path: string; outgoing: Relation[]; incoming: Relation[] }[];
  not_found: string[];
  unreadable: { id: string; path: string; problem: string }[];
}

/**
 * Memories by id, each with the relations that leave it and those that point at it. An id may be
 * a short id (its last 8 to 12 hex digits, as recall and commit messages show it); one that fits
 * several memories is refused (conflict), one that fits none is not found.
 */
export async function getMemories(store: Store, ids: readonly string[]): Promise<GetOutcome> {
  const shorts = ids.filter(isShortId);
  await store.refresh(false, shorts.length ? ["relation", "memory"] : ["relation"]);
  const out: GetOutcome = { found: [], not_found: [], unreadable: [] };
  const full: string[] = [];
  for (const raw of ids) {
    if (!isShortId(raw)) {
      full.push(raw);
      continue;
    }
    const suffix = raw.trim().toLowerCase();
    const matches = await store.memoryIdsEndingWith(suffix);
    if (matches.length > 1) throw conflict(`short id ${suffix} fits ${matches.length} memories (${matches.join(", ")}): give more digits or the full id`, { id: suffix });
    if (matches.length === 0) out.not_found.push(suffix);
    else full.push(matches[0]!);
  }
  for (const id of new Set(full)) {
    const hit = await store.readMemory(id);
    if (!hit) out.not_found.push(id);
    else if (!hit.result.ok) out.unreadable.push({ id, path: hit.path, problem: hit.result.problem });
    else out.found.push({ memory: hit.result.record, path: hit.path, ...(await store.relationsOf(id)) });
  }
  return out;
}
