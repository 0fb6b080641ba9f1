import { conflict, isMemsyncError, MemsyncError } from "../core/errors.ts";
import { parseId } from "../core/ids.ts";
import { messages } from "../core/history.ts";
import { newId } from "../core/new-id.ts";
import type { Memory } from "../core/model/memory.ts";
import { newMemory } from "./new-memory.ts";
import { createMemory, type JsonObject } from "../core/records.ts";
import type { Store } from "../store/store.ts";
import { type OpsEnv, originOf } from "./context.ts";

export interface SaveOutcome {
  memory: Memory;
  path: string;
}

/** Validate fields for a new memory without touching any store (bad input changes nothing). */
export function checkNewMemory(fields: JsonObject): void {
  if (typeof fields.id === "string") parseId(fields.id);
  createMemory(fields, newId(), { now: Math.floor(Date.now() / 1000), machine: null, user: null });
}

/**
 * Many new memories in one operation (one journal entry, one commit `save: N memories`): every
 * record is made and checked first, and one that is bad or whose id is taken (in the store or
 * twice in the list) refuses them all, naming it (labels: "record 3", "line 7"); nothing is written.
 */
export async function saveMemories(store: Store, env: OpsEnv, records: readonly JsonObject[], labels: readonly string[]): Promise<SaveOutcome[]> {
  const memories: Memory[] = [];
  for (const [i, fields] of records.entries()) {
    try {
      memories.push(await newMemory(fields, originOf(store, env)));
    } catch (e) {
      throw named(e, labels[i] ?? `record ${i + 1}`);
    }
  }
  const seen = new Map<string, number>();
  memories.forEach((m, i) => {
    const before = seen.get(m.id);
    if (before !== undefined) throw conflict(`${labels[i]}: id ${m.id} is also ${labels[before]}'s`, { id: m.id });
    seen.set(m.id, i);
  });
  return store.write((tx) => {
    memories.forEach((m, i) => {
      if (tx.memoryExists(m.id)) throw conflict(`${labels[i]}: memory ${m.id} already exists`, { id: m.id });
    });
    const out = memories.map((memory) => ({ memory, path: tx.putMemory(memory) }));
    tx.note("save", memories.length === 1 ? messages.save(memories[0]!.id, memories[0]!.content) : `save: ${memories.length} memories`);
    return out;
  }, []);
}

/** The same error, its message prefixed with the record it is about. */
function named(e: unknown, label: string): unknown {
  if (!isMemsyncError(e)) return e;
  return new MemsyncError(e.code, `${label}: ${e.message}`, e.data);
}

/** Store a new memory from fields in the file format (content required, the rest optional). */
export async function saveMemory(store: Store, env: OpsEnv, fields: JsonObject): Promise<SaveOutcome> {
  const memory = await newMemory(fields, originOf(store, env));
  const id = memory.id;
  return store.write((tx) => {
    if (tx.memoryExists(id)) throw conflict(`memory ${id} already exists`, { id });
    const path = tx.putMemory(memory);
    tx.note("save", messages.save(id, memory.content));
    return { memory, path };
  }, []);
}
