import { invalidInput, isMemsyncError, MemsyncError, usageError } from "../../../core/errors.ts";
import { IMPORTANCE_LEVELS, MEMORY_STATUSES, MEMORY_TYPES, RELATION_TYPES, SHARING_SCOPES } from "../../../core/model/vocab.ts";
import type { JsonObject, LabelEdits } from "../../../core/records.ts";
import { withStore } from "../../../ops/context.ts";
import { deleteMemories } from "../../../ops/delete.ts";
import { resolveId, resolveIds } from "../../../ops/id-lookup.ts";
import { archiveMemories, touchMemories, updateMemoryOp } from "../../../ops/edit.ts";
import { ensureStore, storeExists } from "../../../ops/init.ts";
import { relateMemories, unrelate } from "../../../ops/relate.ts";
import { currentProject } from "../../../ops/project.ts";
import { checkNewMemory, saveMemories, saveMemory } from "../../../ops/save.ts";
import { cwd } from "../../../runtime/host.ts";
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

/**
 * The flags' fields over a record's, and its project: --project, else the record's own, else
 * none for a global memory, else the working directory's (as remember and capture do).
 */
function withFlags(fields: JsonObject, flags: Flags): JsonObject {
  fieldFlags(flags, fields);
  const tags = list(flags, "tag");
  if (tags.length) fields.tags = [...(Array.isArray(fields.tags) ? fields.tags : []), ...tags];
  const entities = list(flags, "entity");
  if (entities.length) fields.entities = [...(Array.isArray(fields.entities) ? fields.entities : []), ...entities];
  if (fields.project === undefined && fields.scope !== "global") {
    const here = currentProject(cwd());
    if (here !== null) fields.project = here;
  }
  return fields;
}

export async function save(rawWords: string[], flags: Flags): Promise<CommandResult> {
  const words = wordsOf(rawWords, flags);
  const input = await jsonRecords(flags);
  if (input?.many) {
    if (words.length > 0) throw usageError("--input gave a list of records: give no memory text as an argument too");
    return saveMany(input.records.map((r) => withFlags(r, flags)), input.labels, input.source, flags);
  }
  const fields: JsonObject = input?.records[0] ?? {};
  if (words.length > 0 || fields.content === undefined) {
    if (fields.content !== undefined) throw usageError("give the memory text either as an argument or in --input, not both");
    fields.content = await textArg(words, "memory text");
  }
  withFlags(fields, flags);
  const env = opsEnv(flags);
  // where the first save would create the store, bad input must be refused before that
  if (!storeExists(env)) checkNewMemory(fields);
  const created = await ensureStore(env);
  const out = await withStore(env, (store) => saveMemory(store, env, fields));
  return {
    stdout: flags.json ? json({ ...out, store_created: created }) : `saved ${out.memory.id}  (${out.path})\n`,
    stderr: created && !flags.json ? `memsync: created a new store at ${env.storeRoot}\n` : "",
  };
}

/** save --input with a list: every record checked first, then one operation, one commit. */
async function saveMany(records: JsonObject[], labels: string[], source: string, flags: Flags): Promise<CommandResult> {
  if (records.length === 0) throw invalidInput(`--input ${source}: no records`);
  const env = opsEnv(flags);
  if (!storeExists(env)) {
    records.forEach((r, i) => {
      try {
        checkNewMemory(r);
      } catch (e) {
        if (isMemsyncError(e)) throw new MemsyncError(e.code, `${labels[i]}: ${e.message}`, e.data);
        throw e;
      }
    });
  }
  const created = await ensureStore(env);
  const out = await withStore(env, (store) => saveMemories(store, env, records, labels));
  return {
    stdout: flags.json
      ? json({ saved: out, store_created: created })
      : `saved ${out.length} ${out.length === 1 ? "memory" : "memories"}\n${out.map((o) => `  ${o.memory.id}\n`).join("")}`,
    stderr: created && !flags.json ? `memsync: created a new store at ${env.storeRoot}\n` : "",
  };
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
  const edits: LabelEdits = {
    addTags: list(flags, "addTag"),
    removeTags: list(flags, "removeTag"),
    addEntities: list(flags, "addEntity"),
    removeEntities: list(flags, "removeEntity"),
  };
  const nothing = Object.keys(patch).length === 0 && Object.values(edits).every((v) => v.length === 0);
  if (nothing) throw usageError("nothing to update: give --content, --tag, --type ... or --input");
  let id = "";
  const out = await withStore(opsEnv(flags), async (store) => updateMemoryOp(store, (id = await resolveId(store, given)), patch, edits));
  return { stdout: flags.json ? json(out) : out.unchanged.length ? `unchanged ${id}\n` : `updated ${id}\n` };
}

export async function touch(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const wanted = ids(rawIds);
  const env = opsEnv(flags);
  const out = await withStore(env, async (store) => touchMemories(store, env, await resolveIds(store, wanted), Boolean(flags.boost)));
  return {
    stdout: flags.json
      ? json(out)
      : out.memories.map((m) => `touched ${m.id}  uses: ${m.use_count}  strength: ${m.strength}\n`).join(""),
  };
}

export async function archive(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const wanted = ids(rawIds);
  const out = await withStore(opsEnv(flags), async (store) => archiveMemories(store, await resolveIds(store, wanted)));
  return {
    stdout: flags.json
      ? json(out)
      : out.memories.map((m) => `${out.unchanged.includes(m.id) ? "already archived" : "archived"} ${m.id}\n`).join(""),
  };
}

export async function remove(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const wanted = ids(rawIds);
  const out = await withStore(opsEnv(flags), async (store) => deleteMemories(store, await resolveIds(store, wanted), Boolean(flags.keepRelations)));
  if (flags.json) return { stdout: json(out) };
  const lines = out.deleted.map((id) => `deleted ${id}`);
  if (out.relations_removed.length) lines.push(`removed ${out.relations_removed.length} relation(s): ${out.relations_removed.join(", ")}`);
  if (out.relations_dangling.length) lines.push(`kept ${out.relations_dangling.length} relation(s) that now point at nothing: ${out.relations_dangling.join(", ")}`);
  return { stdout: `${lines.join("\n")}\n` };
}

export async function relate(rawFrom: string, rawTo: string, flags: Flags): Promise<CommandResult> {
  const givenFrom = idArg(rawFrom, "from id");
  const givenTo = idArg(rawTo, "to id");
  const type = oneOf(flags, "type", RELATION_TYPES) ?? "related";
  const strength = num(flags, "strength", { min: 0, max: 1 });
  const metadata = pairs(list(flags, "meta"), "meta");
  let from = "";
  let to = "";
  const out = await withStore(opsEnv(flags), async (store) => {
    [from, to] = [await resolveId(store, givenFrom, "memory", "from id"), await resolveId(store, givenTo, "memory", "to id")];
    return relateMemories(store, { from, to, type, strength, metadata });
  });
  return { stdout: flags.json ? json(out) : `related ${from} -${type}-> ${to}  (relation ${out.relation.id})\n` };
}

export async function unrelateCmd(rawIds: string[], flags: Flags): Promise<CommandResult> {
  const wanted = ids(rawIds, "relation id");
  const out = await withStore(opsEnv(flags), async (store) => unrelate(store, await resolveIds(store, wanted, "relation", "relation id")));
  return { stdout: flags.json ? json(out) : out.removed.map((id) => `removed relation ${id}\n`).join("") };
}
