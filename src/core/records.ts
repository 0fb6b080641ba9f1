import { COUNTED_FIELDS, LEGACY_STREAM, USAGE_FIELDS, increment, normalizeCounts, streamsOf, sumOf, withStreams } from "./counters.ts";
import { invalidInput } from "./errors.ts";
import { cloneJson } from "./json-clone.ts";
import { jsonEqual } from "./merge/json-merge.ts";
import { checkTagCount, normalizeEntities, sanitizeTagList, sanitizeTags } from "./labels.ts";
import { type Memory, MemorySchema } from "./model/memory.ts";
import { STRENGTH_MAX } from "./model/vocab.ts";
import { type Relation, RelationSchema } from "./model/relation.ts";
import type { RelationType } from "./model/vocab.ts";
import { parseWith } from "./model/validate.ts";
import { cleanRecord } from "./redact.ts";

// Pure record transitions: making, editing, touching memories and relations. No I/O here; the
// store persists what these return. Every result is validated against its schema, and every
// string in it has been through cleanRecord first (core/redact.ts): whatever path a record
// comes by (CLI, hooks, API, import), no secret and no <private> span reaches a file.

export type JsonObject = Record<string, unknown>;

export interface Origin {
  now: number;
  machine: string | null;
  user: string | null;
  /** This checkout's stream for counts (machine-local, unique per clone; see core/counters.ts). */
  replica?: string | null;
}

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function validMemory(candidate: unknown): Memory {
  const r = parseWith(MemorySchema, candidate);
  if (!r.ok) throw invalidInput(`invalid memory: ${r.problem}`);
  checkEntityRelations(r.value);
  return r.value;
}

/** A valid memory whose totals are the sums of their streams (given or hand-edited counts kept). */
function validCounted(candidate: unknown): Memory {
  const m = validMemory(candidate);
  const n = normalizeCounts(m);
  return n === m ? m : validMemory(n);
}

/** An entity relation connects two of the memory's own entities, never free text. */
function checkEntityRelations(m: Memory): void {
  if (!m.entity_relations?.length) return;
  const names = new Set(m.entities.map((e) => e.toLowerCase()));
  for (const r of m.entity_relations) {
    for (const end of [r.from, r.to]) {
      if (!names.has(end.toLowerCase())) {
        throw invalidInput(`entity_relations: ${JSON.stringify(end.slice(0, 60))} is not one of the memory's entities (a relation connects two entities)`);
      }
    }
  }
}

/**
 * Redact secrets and drop <private> spans from every string of a record (in place). A text
 * that was nothing but private is refused: there is nothing left to store.
 */
function cleanFields(obj: JsonObject, opts: { keys?: boolean } = {}): void {
  const before = typeof obj.content === "string" ? obj.content : undefined;
  const { privateRemoved } = cleanRecord(obj, opts);
  if (privateRemoved && before !== undefined && before.trim() !== "" && typeof obj.content === "string" && obj.content.trim() === "") {
    throw invalidInput("nothing to store: the text is entirely <private>");
  }
}

/**
 * A project given as text names one: "" or spaces would be stored as a project no filter or
 * context block can ask for (a memory of no project has none, null). Checked where fields are
 * given (a new memory, a patch), never on a record read from a file.
 */
function checkProject(obj: JsonObject): void {
  if (typeof obj.project === "string" && obj.project.trim() === "") {
    throw invalidInput("project must not be empty: give a name, or null for none", { fields: ["project"] });
  }
}

/** Labels arrive from people and agents: sanitize before the schema judges them. */
function normalizeLabels(obj: JsonObject): void {
  const meta = obj.meta;
  if (isPlainObject(meta) && meta.tags !== undefined) {
    if (!Array.isArray(meta.tags) || !meta.tags.every((t) => typeof t === "string")) throw invalidInput("tags must be a list of strings");
    meta.tags = sanitizeTags(meta.tags);
  }
  if (obj.entities !== undefined) {
    if (!Array.isArray(obj.entities) || !obj.entities.every((t) => typeof t === "string")) {
      throw invalidInput("entities must be a list of strings");
    }
    obj.entities = normalizeEntities(obj.entities);
  }
}

/**
 * A new memory from fields in the file format (content required). A top-level `tags` list is
 * accepted as a shorthand for meta.tags.
 */
export function createMemory(fields: JsonObject, id: string, origin: Origin): Memory {
  const obj: JsonObject = cloneJson(fields);
  checkProject(obj);
  cleanFields(obj);
  if (obj.tags !== undefined) {
    const meta = isPlainObject(obj.meta) ? obj.meta : {};
    meta.tags = obj.tags;
    obj.meta = meta;
    delete obj.tags;
  }
  normalizeLabels(obj);
  const capturedBy = { user: origin.user, machine: origin.machine, agent: null, session: null };
  // an imported memory keeps its age: a given created_at is also when it was last changed and used
  const born = typeof obj.created_at === "number" ? obj.created_at : origin.now;
  const candidate: JsonObject = {
    created_at: origin.now,
    last_used: born,
    updated_at: born,
    ...obj,
    // given provenance adds to what this machine knows of itself rather than erasing it
    captured_by: isPlainObject(obj.captured_by) ? { ...capturedBy, ...obj.captured_by } : (obj.captured_by ?? capturedBy),
    id,
  };
  // given counts are kept: a total beyond a given map is the legacy part
  return validCounted(candidate);
}

const IMMUTABLE = new Set(["id"]);

/** Merge a patch into an object: nested objects merge, everything else replaces. */
function mergePatch(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    const cur = out[k];
    out[k] = isPlainObject(v) && isPlainObject(cur) ? mergePatch(cur, v) : v;
  }
  return out;
}

/** Additions and removals to a memory's labels, applied after the patch. */
export interface LabelEdits {
  addTags?: readonly string[];
  removeTags?: readonly string[];
  addEntities?: readonly string[];
  removeEntities?: readonly string[];
}

function editLabels(memory: Memory, patch: JsonObject, edits: LabelEdits): void {
  const { addTags = [], removeTags = [], addEntities = [], removeEntities = [] } = edits;
  if (addTags.length || removeTags.length) {
    const meta = isPlainObject(patch.meta) ? patch.meta : {};
    const base = Array.isArray(meta.tags) ? (meta.tags as string[]) : memory.meta.tags;
    const drop = new Set(sanitizeTagList(removeTags));
    meta.tags = checkTagCount(sanitizeTagList([...base, ...addTags]).filter((t) => !drop.has(t)));
    patch.meta = meta;
  }
  if (addEntities.length || removeEntities.length) {
    const base = Array.isArray(patch.entities) ? (patch.entities as string[]) : memory.entities;
    const drop = new Set(normalizeEntities(removeEntities).map((e) => e.toLowerCase()));
    patch.entities = normalizeEntities([...base, ...addEntities]).filter((e) => !drop.has(e.toLowerCase()));
  }
}

/**
 * Apply an edit. Editing content without giving a gist clears the gist (it described the old
 * text). Any change besides usage counters moves updated_at.
 */
export function updateMemory(memory: Memory, patch: JsonObject, now: number, edits: LabelEdits = {}): { memory: Memory; changed: boolean; edited: boolean } {
  for (const k of Object.keys(patch)) {
    if (IMMUTABLE.has(k) && patch[k] !== memory[k as keyof Memory]) throw invalidInput(`${k} cannot be changed`);
  }
  checkProject(patch);
  const p: JsonObject = countsPatched(memory, structuredClone(patch));
  // the patch's keys are cleaned once merged: a new secret key then sits beside an older one
  cleanFields(p, { keys: false });
  normalizeLabels(p);
  editLabels(memory, p, edits);
  // a deep copy: cleaning must not touch the memory passed in (nested objects are shared)
  const merged = structuredClone(mergePatch(memory as JsonObject, p));
  // text stored before redaction existed is cleaned on its next rewrite
  cleanRecord(merged);
  if (p.content !== undefined && p.content !== memory.content && p.gist === undefined) merged.gist = null;
  const before = JSON.stringify(memory);
  const next = validCounted(merged);
  if (JSON.stringify(next) === before) return { memory, changed: false, edited: false };
  // edited: more than the usage fields (counts, last use, strength) changed
  const edited = Object.keys(p).some((k) => !USAGE_FIELDS.has(k));
  return { memory: edited ? { ...next, updated_at: now } : next, changed: true, edited };
}

/**
 * Counts only grow (they sum every machine's streams): a patch may raise a total, which adds to
 * the legacy part as an absolute value would, and may repeat the counters map as it is.
 */
function countsPatched(memory: Memory, p: JsonObject): JsonObject {
  if (p.counters !== undefined) {
    if (!jsonEqual(p.counters, memory.counters)) throw invalidInput("counters are kept by memsync: give use_count, review_count or cross_domain_count instead");
    delete p.counters;
  }
  let counted: JsonObject = memory as JsonObject;
  for (const f of COUNTED_FIELDS) {
    const total = p[f];
    if (typeof total !== "number" || !Number.isInteger(total) || total === memory[f]) continue;
    if (total < memory[f]) throw invalidInput(`${f} cannot go down from ${memory[f]} to ${total}: it sums the counts of every machine`);
    const s = streamsOf(memory as JsonObject, f);
    s[LEGACY_STREAM] = (s[LEGACY_STREAM] ?? 0) + Math.max(0, total - sumOf(s));
    counted = withStreams(counted, f, s);
  }
  if (counted !== memory && counted.counters !== undefined) p.counters = counted.counters;
  return p;
}

/**
 * A use: one more use on this checkout's stream, last used now; with boost, strength + 0.1
 * (capped at 2.0).
 */
export function touchMemory(memory: Memory, now: number, boost: boolean, stream: string): Memory {
  const strength = boost ? Math.min(STRENGTH_MAX, Math.round((memory.strength + 0.1) * 1e6) / 1e6) : memory.strength;
  return { ...increment(memory, "use_count", stream), last_used: Math.max(memory.last_used, now), strength };
}

export function createRelation(
  fields: { from: string; to: string; type: RelationType; strength?: number; metadata?: JsonObject },
  id: string,
  now: number,
): Relation {
  if (fields.from === fields.to) throw invalidInput("a memory cannot be related to itself");
  const metadata = structuredClone(fields.metadata ?? {});
  cleanRecord(metadata);
  const r = parseWith(RelationSchema, {
    id,
    from_memory_id: fields.from,
    to_memory_id: fields.to,
    relation_type: fields.type,
    strength: fields.strength ?? 1,
    created_at: now,
    metadata,
  });
  if (!r.ok) throw invalidInput(`invalid relation: ${r.problem}`);
  return r.value;
}
