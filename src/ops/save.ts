import { conflict } from "../core/errors.ts";
import { makeGist } from "../core/gist.ts";
import { parseId } from "../core/ids.ts";
import { messages } from "../core/history.ts";
import { withScopeRules } from "../core/scope.ts";
import { newId } from "../core/new-id.ts";
import type { Memory } from "../core/model/memory.ts";
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

/** Store a new memory from fields in the file format (content required, the rest optional). */
export function saveMemory(store: Store, env: OpsEnv, fields: JsonObject): Promise<SaveOutcome> {
  const id = typeof fields.id === "string" ? parseId(fields.id) : newId();
  const origin = originOf(store, env);
  const made = createMemory(fields, id, origin);
  // no gist given (an explicit null is a choice): make one, keeping the memory's entities whole
  const memory = withScopeRules(fields.gist === undefined ? { ...made, gist: makeGist(made.content, "moderate", made.entities) } : made);
  return store.write((tx) => {
    if (tx.memoryExists(id)) throw conflict(`memory ${id} already exists`, { id });
    const path = tx.putMemory(memory);
    tx.note("save", messages.save(id, memory.content));
    return { memory, path };
  }, []);
}
