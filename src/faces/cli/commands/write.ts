import { invalidInput, isMemsyncError, usageError } from "../../../core/errors.ts";
import { MEMORY_STATUSES, RELATION_TYPES } from "../../../core/model/vocab.ts";
import type { Memory } from "../../../core/model/memory.ts";
import type { Relation } from "../../../core/model/relation.ts";
import type { JsonObject } from "../../../core/records.ts";
import type { DeleteOutcome } from "../../../ops/delete.ts";
import type { EditOutcome } from "../../../ops/edit.ts";
import { call } from "../call.ts";
import { type Flags, idArg, ids, jsonInput, jsonRecords, list, num, oneOf, pairs, str, textArg, wordsOf } from "../options.ts";
import { json } from "../format.ts";
import type { CommandResult } from "../result.ts";
import { createdNote, fieldFlags, type Saved, saveOne, withFlags } from "./save-one.ts";

// save/remember, update, touch, archive, delete, relate, unrelate: the commands that write,
// and so load the schemas (get, list and search do not).

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
  return saveOne(words, input?.records[0] ?? {}, flags);
}

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
