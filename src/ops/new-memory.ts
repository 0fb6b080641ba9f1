import { tooShortForGist } from "../core/gist-size.ts";
import { parseId } from "../core/ids.ts";
import type { Memory } from "../core/model/memory.ts";
import { newId } from "../core/new-id.ts";
import { createMemory, type JsonObject, type Origin } from "../core/records.ts";
import { withScopeRules } from "../core/scope.ts";

/**
 * A memory from fields: its id (given or new), validated, with a gist unless one was given. The
 * gist rules (core/gist.ts) are loaded only for a text long enough to have a gist.
 */
export async function newMemory(fields: JsonObject, origin: Origin): Promise<Memory> {
  const id = typeof fields.id === "string" ? parseId(fields.id) : newId();
  const made = createMemory(fields, id, origin);
  // no gist given (an explicit null is a choice): make one, keeping the memory's entities whole
  if (fields.gist !== undefined) return withScopeRules(made);
  const gist = tooShortForGist(made.content) ? null : (await import("../core/gist.ts")).makeGist(made.content, "moderate", made.entities);
  return withScopeRules({ ...made, gist });
}
