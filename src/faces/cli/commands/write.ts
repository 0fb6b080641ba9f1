import { invalidInput, isMemsyncError, usageError } from "../../../core/errors.ts";
import { IMPORTANCE_LEVELS, MEMORY_STATUSES, MEMORY_TYPES, RELATION_TYPES, SHARING_SCOPES } from "../../../core/model/vocab.ts";
import type { Memory } from "../../../core/model/memory.ts";
import type { Relation } from "../../../core/model/relation.ts";
import type { JsonObject } from "../../../core/records.ts";
import type { DeleteOutcome } from "../../../ops/delete.ts";
import type { EditOutcome } from "../../../ops/edit.ts";
import { call } from "../call.ts";
import { type Flags, idArg, ids, jsonInput, jsonRecords, list, num, oneOf, opsEnv, pairs, str, textArg, wordsOf } from "../options.ts";
import { json } from "../format.ts";
import type { CommandResult } from "../result.ts";

// save/remember, update, touch, archive, delete, relate, unrelate: the commands that write,
// and so load the schemas (get, list and search do not).

/** Record fields common to save and update, from flags. */
function fieldFlags(flags: Flags, into: JsonObject): void {
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
function withFlags(fields: JsonObject, flags: Flags): JsonObject {
  fieldFlags(flags, fields);
  const tags = list(flags, "tag");
  if (tags.length) fields.tags = [...(Array.isArray(fields.tags) ? fields.tags : []), ...tags];
  const entities = list(flags, "entity");
  if (entities.length) fields.entities = [...(Array.isArray(fields.entities) ? fields.entities : []), ...entities];
  return fields;
}

type Saved = { memory: Memory; path: string; store_created: boolean };

export async function save(rawWords: string[], flags: Flags): Promise<CommandResult> {
  const words = wordsOf(rawWords, flags);
  const input = await jsonRecords(flags);
  if (input?.many) {
    if (words.length > 0) throw usageError("--input gave a list of records: give no memory text as an argument too");
    if (input.records.length === 0) throw invalidInput(`--input ${input.source}: no records`);
    const out = await call<{ saved: Saved[]; store_created: boolean }>("save", flags, { memories: input.records.map((r) => withFlags(r, flags)), labels: input.labels });
    const n = out.saved.length;
    return {
      stdout: flags.json ? json(out) : `saved ${n} ${n === 1 ? "memory" : "memories"}\n${out.saved.map((o) => `  ${o.memory.id}\n`).join("")}`,
      stderr: out.store_created && !flags.json ? createdNote(flags) : "",
    };
  }
  const fields: JsonObject = input?.records[0] ?? {};
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

const createdNote = (flags: Flags) => `memsync: created a new store at ${opsEnv(flags).storeRoot}\n`;

export async function update(rawId: string, flags: Flags): Promise<CommandResult> {
  const given = idArg(rawId);
  const patch: JsonObject = (await jsonInput(flags)) ?? {};
  const content = str(flags, "content");
  if (content !== undefined) patch.content = await textArg([content], "new content");
  fieldFlags(flags, patch);
  const status = oneOf(flags, "status", MEMORY_STATUSES);
  if (status) patch.status = status;
  if (flags.tag !== undefined) patch.meta = { ...((patch.meta as JsonObject) ?? {}), tags: list(flags, "tag") };
  if (flags.entity !== undefined) patch.entities = list(flags, "entity");
  const edits = {
    add_tags: list(flags, "addTag"),
    remove_tags: list(flags, "removeTag"),
    add_entities: list(flags, "addEntity"),
    remove_entities: list(flags, "removeEntity"),
  };
  const out = await call<EditOutcome>("update", flags, { id: given, patch, edits }).catch((e: unknown) => {
    // the catalogue's "patch and edits are both empty", said as the flags that fill them
    if (isMemsyncError(e) && e.code === "usage" && e.message.startsWith("nothing to update")) throw usageError("nothing to update: give --content, --tag, --type ... or --input");
    throw e;
  });
  const id = out.memories[0]!.id;
  const notes = (out.notes_refreshed ?? []).map((p) => `note refreshed: ${p}\n`).join("");
  return { stdout: flags.json ? json(out) : out.unchanged.length ? `unchanged ${id}\n` : `updated ${id}\n${notes}` };
}

export async function touch(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const out = await call<EditOutcome>("touch", flags, { ids: ids(rawIds), boost: Boolean(flags.boost) });
  return {
    stdout: flags.json
      ? json(out)
      : out.memories.map((m) => `touched ${m.id}  uses: ${m.use_count}  strength: ${m.strength}\n`).join(""),
  };
}

export async function archive(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const out = await call<EditOutcome>("archive", flags, { ids: ids(rawIds) });
  return {
    stdout: flags.json
      ? json(out)
      : out.memories.map((m) => `${out.unchanged.includes(m.id) ? "already archived" : "archived"} ${m.id}\n`).join(""),
  };
}

export async function remove(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const out = await call<DeleteOutcome>("delete", flags, { ids: ids(rawIds), keep_relations: Boolean(flags.keepRelations) });
  if (flags.json) return { stdout: json(out) };
  const lines = out.deleted.map((id) => `deleted ${id}`);
  if (out.relations_removed.length) lines.push(`removed ${out.relations_removed.length} relation(s): ${out.relations_removed.join(", ")}`);
  if (out.relations_dangling.length) lines.push(`kept ${out.relations_dangling.length} relation(s) that now point at nothing: ${out.relations_dangling.join(", ")}`);
  return { stdout: `${lines.join("\n")}\n` };
}

export async function relate(rawFrom: string, rawTo: string, flags: Flags): Promise<CommandResult> {
  const from = idArg(rawFrom, "from id");
  const to = idArg(rawTo, "to id");
  const type = oneOf(flags, "type", RELATION_TYPES) ?? "related";
  const strength = num(flags, "strength", { min: 0, max: 1 });
  const metadata = pairs(list(flags, "meta"), "meta");
  const out = await call<{ relation: Relation; path: string }>("relate", flags, { from, to, type, strength, metadata });
  return { stdout: flags.json ? json(out) : `related ${out.relation.from_memory_id} -${type}-> ${out.relation.to_memory_id}  (relation ${out.relation.id})\n` };
}

export async function unrelateCmd(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const out = await call<{ removed: string[] }>("unrelate", flags, { ids: ids(rawIds, "relation id") });
  return { stdout: flags.json ? json(out) : out.removed.map((id) => `removed relation ${id}\n`).join("") };
}
