import { rereadFields } from "../core/capture/reread.ts";
import { makeGist } from "../core/gist.ts";
import { messages } from "../core/history.ts";
import { withScopeRules } from "../core/scope.ts";
import type { Memory } from "../core/model/memory.ts";
import { type JsonObject, type LabelEdits, updateMemory } from "../core/records.ts";
import type { Store } from "../store/store.ts";
import { refreshVaultNote } from "./vault.ts";

// Changes to existing memories. Each call is one write transaction: every id is read (and
// refused if missing or unreadable) before anything is written.

export interface EditOutcome {
  memories: Memory[];
  unchanged: string[];
  /** Vault notes of promoted memories rewritten to their new content (ops/vault.ts). */
  notes_refreshed?: string[];
}

/**
 * An edit, and what new content brings with it: the decision, entities, entity relations and
 * fingerprint read again from the new text (core/capture/reread.ts) and a new gist, each unless
 * the patch gives it. Pure; update and resolve both go through it.
 */
export function editMemory(before: Memory, patch: JsonObject, now: number, edits: LabelEdits = {}): { memory: Memory; changed: boolean } {
  const newContent = typeof patch.content === "string" && patch.content !== before.content;
  const full = newContent ? { ...rereadFields(before, patch.content as string, patch), ...patch } : patch;
  let { memory, changed, edited } = updateMemory(before, full, now, edits);
  // new content without a new gist: the old gist described the old text, so make a new one
  if (changed && patch.gist === undefined && memory.content !== before.content) {
    memory = { ...memory, gist: makeGist(memory.content, "moderate", memory.entities) };
  }
  // someone worked on it: an edit is a use for decay (last_used, not use_count), as a split is
  // (the seed's split spec), so gc does not prune a memory edited a moment ago, nor one just
  // brought back from the archive; a patch that names last_used keeps its own
  if (edited && patch.last_used === undefined && memory.last_used < now) {
    memory = { ...memory, last_used: now };
  }
  return { memory: withScopeRules(memory), changed };
}

export async function updateMemoryOp(store: Store, id: string, patch: JsonObject, edits: LabelEdits = {}): Promise<EditOutcome> {
  const out = await store.write((tx): EditOutcome => {
    const before = tx.memory(id);
    const { memory, changed } = editMemory(before, patch, tx.now, edits);
    // a file whose scope was changed by hand is moved where its scope says, changed or not
    if (changed || tx.misplaced(memory)) tx.putMemory(memory);
    // a move to local killed halfway left the shared copy too: asking again finishes it
    if (memory.scope === "local") tx.keepLocal("memory", id);
    // a change to or from local moves the file (store.ts): the commit then holds the shared
    // file's deletion, or its first appearance; the message never quotes a local memory
    const to = memory.scope;
    const from = before.scope;
    const moves = from !== to && (from === "local" || to === "local");
    tx.note("update", messages.update(id, memory.content), moves ? messages.scope(id, from, to, to === "local" ? null : memory.content) : undefined);
    return { memories: [memory], unchanged: changed ? [] : [id] };
  }, patch.scope !== undefined ? ["memory", "relation"] : []);
  // after the commit point: a note is a view of the memory, rewritten once the memory is
  const note = out.unchanged.length ? null : refreshVaultNote(out.memories[0]!);
  return note ? { ...out, notes_refreshed: [note] } : out;
}
