import { conflict } from "../core/errors.ts";
import { messages } from "../core/history.ts";
import { newId } from "../core/new-id.ts";
import type { Relation } from "../core/model/relation.ts";
import type { RelationType } from "../core/model/vocab.ts";
import { createRelation, type JsonObject } from "../core/records.ts";
import type { Store } from "../store/store.ts";

export interface RelateInput {
  from: string;
  to: string;
  type: RelationType;
  strength?: number;
  metadata?: JsonObject;
}

/** Relate two existing memories; the same from/to/type twice is refused. */
export function relateMemories(store: Store, input: RelateInput): Promise<{ relation: Relation; path: string }> {
  return store.write((tx) => {
    tx.memory(input.from);
    tx.memory(input.to);
    const relation = createRelation(input, newId(), tx.now);
    const existing = tx.findRelation(input.from, input.to, input.type);
    if (existing) throw conflict(`relation ${input.type} from ${input.from} to ${input.to} already exists (${existing})`, { id: existing });
    const path = tx.putRelation(relation);
    tx.note("relate", messages.relate(input.from, input.type, input.to));
    return { relation, path };
  }, ["relation"]);
}

/** Remove relations by id. */
export function unrelate(store: Store, ids: readonly string[]): Promise<{ removed: string[] }> {
  return store.write((tx) => {
    const unique = [...new Set(ids)];
    for (const id of unique) tx.relation(id);
    const removed = unique.filter((id) => tx.removeRelation(id));
    tx.note("unrelate", messages.unrelate(removed.length));
    return { removed };
  }, ["relation"]);
}
