import { makeGist } from "../core/gist.ts";
import { parseId } from "../core/ids.ts";
import type { Memory } from "../core/model/memory.ts";
import { newId } from "../core/new-id.ts";
import { createMemory, type JsonObject, type Origin } from "../core/records.ts";
import { withScopeRules } from "../core/scope.ts";

/** A memory from fields: its id (given or new), validated, with a gist unless one was given. */
export function newMemory(fields: JsonObject, origin: Origin): Memory {
  const id = typeof fields.id === "string" ? parseId(fields.id) : newId();
  const made = createMemory(fields, id, origin);
  // no gist given (an explicit null is a choice): make one, keeping the memory's entities whole
  return withScopeRules(fields.gist === undefined ? { ...made, gist: makeGist(made.content, "moderate", made.entities) } : made);
}

