import { freshGist } from "../core/fresh-gist.ts";
import { messages } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { newId } from "../core/new-id.ts";
import { updateMemory } from "../core/records.ts";
import { copyRelations, type SplitCandidate, splitCandidates, type SplitPart, splitMemory, splitRelations } from "../core/split.ts";
import type { Store } from "../store/store.ts";
import type { OpsEnv } from "./context.ts";
import { checkMaintenance, takeMaintenance, thisMachine } from "./maintainer.ts";
import { listMemories } from "./query.ts";

// memsync split: one memory into atomic parts (core/split.ts), in one transaction (one commit).
// The original is removed, its relations copied to every part; or, with archive, kept archived
// with its relations, the parts holding only their split_from provenance.

export interface SplitInput {
  id: string;
  parts: SplitPart[];
  archive?: boolean;
  claim?: boolean;
}

export interface SplitOutcome {
  original: string;
  /** removed, or archived (kept, status archived). */
  original_is: "removed" | "archived";
  parts: Memory[];
  relations_created: string[];
  relations_copied: string[];
  relations_removed: string[];
  maintainer: { machine: string; claimed: boolean };
}

export async function splitOp(store: Store, env: OpsEnv, input: SplitInput): Promise<SplitOutcome> {
  const claim = input.claim === true;
  await checkMaintenance(store, env, claim);
  const machine = thisMachine(store, env);
  return store.write((tx) => {
    // everything that can refuse comes before the first write (the role is one)
    const original = tx.memory(input.id);
    const archive = input.archive === true;
    const ids = input.parts.map(() => newId());
    const parts = splitMemory(original, input.parts, { ids, now: tx.now, gist: freshGist, removing: !archive });
    const role = takeMaintenance(tx, machine, claim);
    const provenance = splitRelations(ids, original.id, newId, tx.now);
    const out: SplitOutcome = {
      original: original.id,
      original_is: archive ? "archived" : "removed",
      parts,
      relations_created: provenance.map((r) => r.id),
      relations_copied: [],
      relations_removed: [],
      maintainer: { machine, claimed: role.claimed },
    };
    // the files change in an order where a process killed between two of them leaves every
    // relation's ends there and the original's text whole (the next command commits what it
    // finds as an edit): the parts and their provenance first, then the relations copied to
    // them, and the original archived or removed last, after its relations
    // (the original's relations read before the provenance, which points at it, is written)
    const { outgoing, incoming } = archive ? { outgoing: [], incoming: [] } : tx.relationsOf(original.id);
    const plan = copyRelations([...outgoing, ...incoming], original.id, ids, newId);
    for (const p of parts) tx.putMemory(p);
    for (const r of provenance) tx.putRelation(r);
    if (archive) {
      const { memory, changed } = updateMemory(original, { status: "archived" }, tx.now);
      if (changed) tx.putMemory(memory);
    } else {
      for (const r of plan.copies) tx.putRelation(r);
      for (const id of plan.removed) tx.removeRelation(id);
      tx.removeMemory(original.id);
      out.relations_copied = plan.copies.map((r) => r.id);
      out.relations_removed = plan.removed;
    }
    tx.note("split", messages.split(original.id, ids));
    return out;
  });
}

/** Active memories worth splitting, best first (read only: no role needed). */
export async function splitCandidatesOp(store: Store, limit: number | null): Promise<{ candidates: SplitCandidate[]; total: number; memories: number }> {
  const { memories } = await listMemories(store, { statuses: ["active"] }, null);
  const all = splitCandidates(memories);
  return { candidates: limit === null ? all : all.slice(0, limit), total: all.length, memories: memories.length };
}
