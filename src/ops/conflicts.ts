import { corrupt, invalidInput, notFound } from "../core/errors.ts";
import { type ConflictEntry, conflictOf, type OtherText } from "../core/conflict-view.ts";
import { rereadFields } from "../core/capture/reread.ts";
import { messages, short } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import type { JsonObject } from "../core/records.ts";
import type { Store } from "../store/store.ts";
import { editMemory } from "./edit.ts";
import { getMemories } from "./get.ts";
import { refreshVaultNote } from "./vault.ts";

export { type ConflictEntry, conflictOf, type OtherText };

// Content conflicts made visible and settled. When two machines edit a memory's content at once,
// the merge keeps the later edit as the content and every other text in content_conflicts
// (core/merge/record-merge.ts): nothing is lost, but until someone looks, the memory says only
// one of them. These are the use cases behind `memsync conflicts`, `status` and `resolve`, plain
// values in and out, so the HTTP API calls the same functions.

export interface ConflictsOutcome {
  total: number;
  conflicts: ConflictEntry[];
}

/** Every memory with unresolved content conflicts (any status), newest first. */
export async function listConflicts(store: Store): Promise<ConflictsOutcome> {
  await store.refresh(false, ["memory"]);
  const conflicts = (await store.withContentConflicts()).map(conflictOf).filter((c): c is ConflictEntry => c !== null);
  return { total: conflicts.length, conflicts };
}

/** How a conflict is settled. theirs with several other texts needs pick (1-based). */
export type Resolution = { keep: "ours" } | { keep: "theirs"; pick?: number } | { keep: "both" } | { content: string };

export interface ResolveOutcome {
  memory: Memory;
  /** ours, theirs, both or content. */
  resolution: string;
  /** The texts the memory held before (current first), for the record of what was settled. */
  before: { content: string; others: OtherText[] };
  /** The promoted memory's vault note, rewritten to the kept content (ops/vault.ts). */
  note_refreshed?: string;
}

/** Both texts in one: the current text, then each other text in stored order, a blank line between. */
export const JOIN = "\n\n";

function newContent(entry: ConflictEntry, r: Resolution): string {
  if ("content" in r) return r.content;
  if (r.keep === "ours") return entry.content;
  if (r.keep === "both") return [entry.content, ...entry.others.map((o) => o.content)].join(JOIN);
  const n = entry.others.length;
  if (r.pick === undefined) {
    if (n === 1) return entry.others[0]!.content;
    throw invalidInput(`memory ${entry.short_id} has ${n} other texts: say which with pick 1..${n} (as conflicts numbers them), or take them all with keep both`, { id: entry.id, fields: ["pick", "keep"] });
  }
  if (!Number.isInteger(r.pick) || r.pick < 1 || r.pick > n) {
    throw invalidInput(`pick must be a number from 1 to ${n} for memory ${entry.short_id}, got ${r.pick}`, { id: entry.id, fields: ["pick"] });
  }
  return entry.others[r.pick - 1]!.content;
}

/** The memory a user's id names, by the same path `get` resolves ids (full or short). */
async function memoryIdOf(store: Store, raw: string): Promise<string> {
  const out = await getMemories(store, [raw]);
  const bad = out.unreadable[0];
  if (bad) throw corrupt(`memory ${bad.id} cannot be read: ${bad.path} is ${bad.problem}`, { id: bad.id });
  const hit = out.found[0];
  if (!hit) throw notFound(`memory ${raw} not found`, { id: raw });
  return hit.memory.id;
}

/**
 * Settle one memory's content conflict: the new content (ours, theirs, both joined, or a text
 * given), content_conflicts emptied, updated_at now, and what new content brings (decision,
 * entities, gist read again unless ...) as update does. One write, so one journal entry and one
 * commit (`resolve: <id8> ...`). A memory with no conflict is refused and nothing changes.
 */
export async function resolveConflict(store: Store, rawId: string, r: Resolution): Promise<ResolveOutcome> {
  const id = await memoryIdOf(store, rawId);
  const out = await store.write((tx) => {
    const current = tx.memory(id);
    const entry = conflictOf(current);
    if (!entry) throw invalidInput(`memory ${short(id)} has no content conflict to resolve (memsync conflicts lists those that do)`, { id });
    const content = newContent(entry, r);
    const { content_conflicts: _, ...rest } = current;
    // what was read from any of the texts is read again from the one kept (the merge unioned
    // the entities of both sides; ours keeps the content but not the other text's entities)
    const allTexts = { ...rest, content: [entry.content, ...entry.others.map((o) => o.content)].join(JOIN) } as Memory;
    const patch: JsonObject = { ...rereadFields(allTexts, content, {}), ...(content === current.content ? {} : { content }) };
    const edited = editMemory(rest as Memory, patch, tx.now).memory;
    const memory: Memory = { ...edited, updated_at: Math.max(tx.now, current.updated_at ?? 0) };
    tx.putMemory(memory);
    const resolution = "content" in r ? "content" : r.keep;
    tx.note("resolve", messages.resolve(id, resolution, memory.content));
    return { memory, resolution, before: { content: entry.content, others: entry.others } };
  }, []);
  const note = refreshVaultNote(out.memory);
  return note ? { ...out, note_refreshed: note } : out;
}
