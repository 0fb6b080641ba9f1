import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import { parseIdRef } from "../core/ids.ts";
import type { Store } from "../store/store.ts";
import { type OpsEnv, withStore } from "./context.ts";
import { lookUpIds } from "./id-lookup.ts";

export { lookUpIds, resolveId, resolveIds } from "./id-lookup.ts";

export interface GetOutcome {
  found: { memory: Memory; path: string; outgoing: Relation[]; incoming: Relation[] }[];
  not_found: string[];
  unreadable: { id: string; path: string; problem: string }[];
}

/**
 * Memories by id, each with the relations that leave it and those that point at it. An id may be
 * abbreviated (ops/id-lookup.ts: leading or trailing hex digits); one that fits several memories
 * is refused (conflict), one that fits none is not found. Every command resolves ids this way.
 */
export async function getMemories(store: Store, ids: readonly string[]): Promise<GetOutcome> {
  const looked = await lookUpIds(store, ids);
  await store.refresh(false, ["relation"]);
  const out: GetOutcome = { found: [], not_found: [...looked.not_found], unreadable: [] };
  for (const id of new Set(looked.ids)) {
    const hit = await store.readMemory(id);
    if (!hit) out.not_found.push(id);
    else if (!hit.result.ok) out.unreadable.push({ id, path: hit.path, problem: hit.result.problem });
    else out.found.push({ memory: hit.result.record, path: hit.path, ...(await store.relationsOf(id)) });
  }
  return out;
}

/** The catalogue's get (ops/catalogue/records.ts, direct.ts): every id parsed before the store is opened. */
export function getByIds(env: OpsEnv, ids: readonly string[]): Promise<GetOutcome> {
  for (const id of ids) parseIdRef(id);
  return withStore(env, (store) => getMemories(store, ids));
}
