import { messages } from "../core/history.ts";
import { DELETE_KEEPING_RELATIONS } from "../store/journal.ts";
import type { Store } from "../store/store.ts";

export interface DeleteOutcome {
  deleted: string[];
  relations_removed: string[];
  /** With keepRelations: relations left pointing at a deleted memory. */
  relations_dangling: string[];
}

/** Delete memories and, unless asked to keep them, every relation that names them. */
export function deleteMemories(store: Store, ids: readonly string[], keepRelations = false): Promise<DeleteOutcome> {
  return store.write((tx) => {
    const unique = [...new Set(ids)];
    for (const id of unique) tx.memory(id); // refuse missing or unreadable ones before changing anything
    const rels = new Set<string>();
    for (const id of unique) {
      const { outgoing, incoming } = tx.relationsOf(id);
      for (const r of [...outgoing, ...incoming]) rels.add(r.id);
    }
    const out: DeleteOutcome = { deleted: [], relations_removed: [], relations_dangling: [] };
    // relations first: a delete killed midway then leaves at worst a memory without its relations
    // (repeating the delete finishes it), never a relation pointing at a memory that is gone
    for (const rid of [...rels].sort()) {
      if (keepRelations) out.relations_dangling.push(rid);
      else if (tx.removeRelation(rid)) out.relations_removed.push(rid);
    }
    for (const id of unique) if (tx.removeMemory(id)) out.deleted.push(id);
    tx.note(keepRelations ? DELETE_KEEPING_RELATIONS : "delete", messages.delete(out.deleted.length, out.relations_removed.length));
    return out;
  });
}
