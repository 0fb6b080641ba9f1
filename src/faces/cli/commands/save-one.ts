import { usageError } from "../../../core/errors.ts";
import { IMPORTANCE_LEVELS, MEMORY_TYPES, SHARING_SCOPES } from "../../../core/model/vocab.ts";
import type { Memory } from "../../../core/model/memory.ts";
import type { JsonObject } from "../../../core/records.ts";
import { call } from "../call.ts";
import { json } from "../json-text.ts";
import { type Flags, list, num, oneOf, opsEnv, str, textArg } from "../options.ts";
import type { CommandResult } from "../result.ts";

// `save` of one memory, from its words and flags (and a record from --input): what write.ts's save
// runs for it, and what the quick route (faces/cli/quick.ts) runs for a plain `save TEXT [--tag
// T]` without loading write.ts and the other writing commands (issue 16: a cold save's CPU).

/** Record fields common to save and update, from flags. */
export function fieldFlags(flags: Flags, into: JsonObject): void {
  const set = (k: string, v: unknown) => {
    if (v !== undefined) into[k] = v;
  };
  set("type", oneOf(flags, "type", MEMORY_TYPES));
  set("project", str(flags, "project"));
  set("scope", oneOf(flags, "scope", SHARING_SCOPES));
  set("importance", oneOf(flags, "importance", IMPORTANCE_LEVELS));
  set("confidence", num(flags, "confidence", { min: 0, max: 1 }));
  set("category", str(flags, "category"));
  set("strength", num(flags, "strength", { min: 0, max: 2 }));
  set("gist", str(flags, "gist"));
  const source = str(flags, "source");
  const context = str(flags, "context");
  if (source !== undefined || context !== undefined) {
    const meta = (typeof into.meta === "object" && into.meta !== null ? into.meta : {}) as JsonObject;
    if (source !== undefined) meta.source = source;
    if (context !== undefined) meta.context = context;
    into.meta = meta;
  }
}

/** The flags' fields over a record's; its project, when none is given, the catalogue's save resolves. */
export function withFlags(fields: JsonObject, flags: Flags): JsonObject {
  fieldFlags(flags, fields);
  const tags = list(flags, "tag");
  if (tags.length) fields.tags = [...(Array.isArray(fields.tags) ? fields.tags : []), ...tags];
  const entities = list(flags, "entity");
  if (entities.length) fields.entities = [...(Array.isArray(fields.entities) ? fields.entities : []), ...entities];
  return fields;
}

export type Saved = { memory: Memory; path: string; store_created: boolean };

/** Save one memory: its text from `words` (or from `fields`, the record --input gave), the flags' fields over it. */
export async function saveOne(words: string[], fields: JsonObject, flags: Flags): Promise<CommandResult> {
  if (words.length > 0 || fields.content === undefined) {
    if (fields.content !== undefined) throw usageError("give the memory text either as an argument or in --input, not both");
    fields.content = await textArg(words, "memory text");
  }
  const out = await call<Saved>("save", flags, { memory: withFlags(fields, flags) });
  return {
    stdout: flags.json ? json(out) : `saved ${out.memory.id}  (${out.path})\n`,
    stderr: out.store_created && !flags.json ? createdNote(flags) : "",
  };
}

export const createdNote = (flags: Flags) => `memsync: created a new store at ${opsEnv(flags).storeRoot}\n`;
