import { COUNTED_FIELDS, carryStreams, mergeStreams, raiseToCarried, streamsOf, withStreams } from "../counters.ts";
import { LIMITS } from "../labels.ts";
import { type Json, isObject, jsonCompare, jsonEqual, merge3, mergeSet } from "./json-merge.ts";

// memsync's semantic merge of one record, field by field against the base (DESIGN.md section 4):
// usage counts take each stream's larger count (core/counters.ts), times of use take the later,
// label sets take the union minus what either side removed, strength takes the larger, a field
// changed on one side takes that side, unknown fields survive. Content edited differently on both
// sides keeps the later edit and keeps the other text in `content_conflicts`, so no user text is
// lost and the result is still one valid file (a git merge driver can only write one file).
// Every rule is symmetric, so both machines arrive at the same bytes.

export type JsonObject = Record<string, Json>;

export interface FieldConflict {
  field: string;
  kept: Json | undefined;
  lost: Json | undefined;
}

export interface RecordMerge {
  value: JsonObject;
  conflicts: FieldConflict[];
}

const num = (v: Json | undefined): number => (typeof v === "number" ? v : 0);

function maxOf(a: Json | undefined, b: Json | undefined): Json | undefined {
  if (typeof a !== "number") return b ?? a;
  if (typeof b !== "number") return a;
  return Math.max(a, b);
}

function minOf(a: Json | undefined, b: Json | undefined): Json | undefined {
  if (typeof a !== "number") return b ?? a;
  if (typeof b !== "number") return a;
  return Math.min(a, b);
}

/** Which side's record is the later one, the same answer whichever side asks. */
function oursIsLater(ours: JsonObject, theirs: JsonObject): boolean {
  const key = (r: JsonObject) => [num(r.updated_at ?? r.created_at), num(r.last_used)];
  const [ou, ol] = key(ours);
  const [tu, tl] = key(theirs);
  if (ou !== tu) return ou! > tu!;
  if (ol !== tl) return ol! > tl!;
  return jsonCompare(ours, theirs) > 0;
}

/** Counts: each field's streams merged (core/counters.ts), the totals their sums. */
function mergeCounts(base: JsonObject, ours: JsonObject, theirs: JsonObject, merged: JsonObject, conflicts: FieldConflict[]): void {
  // unknown keys of `counters` merged as any field; the counted ones are set below
  let counted: JsonObject = isObject(merged.counters) ? { counters: merged.counters } : {};
  for (const f of COUNTED_FIELDS) counted = withStreams(counted, f, mergeStreams(streamsOf(base, f), streamsOf(ours, f), streamsOf(theirs, f)));
  for (const f of COUNTED_FIELDS) settle(merged, conflicts, f, counted[f]);
  for (let i = conflicts.length - 1; i >= 0; i--) {
    const f = conflicts[i]!.field;
    if (COUNTED_FIELDS.some((c) => f === `counters.${c}` || f.startsWith(`counters.${c}.`)) || f === "counters") conflicts.splice(i, 1);
  }
  if (counted.counters === undefined) delete merged.counters;
  else merged.counters = counted.counters;
}

function generic(base: JsonObject, ours: JsonObject, theirs: JsonObject, conflicts: FieldConflict[]): JsonObject {
  const later = oursIsLater(ours, theirs);
  const merged = merge3(base, ours, theirs, (a, b) => (later ? a : b), (field, kept, lost) => conflicts.push({ field, kept, lost }));
  return (isObject(merged) ? merged : ours) as JsonObject;
}

/** A field both sides set to a different value: a rule decides, which is not a conflict. */
function settle(merged: JsonObject, conflicts: FieldConflict[], field: string, value: Json | undefined): void {
  for (let i = conflicts.length - 1; i >= 0; i--) {
    const f = conflicts[i]!.field;
    if (f === field || f.startsWith(`${field}.`)) conflicts.splice(i, 1);
  }
  if (value === undefined) delete merged[field];
  else merged[field] = value;
}

interface ContentConflict {
  content: string;
  updated_at: Json | undefined;
  machine: Json | undefined;
}

function contentConflicts(r: JsonObject): ContentConflict[] {
  return Array.isArray(r.content_conflicts) ? (r.content_conflicts.filter(isObject) as unknown as ContentConflict[]) : [];
}

export function mergeMemory(base: JsonObject | null, ours: JsonObject, theirs: JsonObject): RecordMerge {
  const b = base ?? {};
  // a side that changed nothing gives way to the other whole (as git does with files)
  if (jsonEqual(ours, theirs) || (base !== null && jsonEqual(b, theirs))) return { value: structuredClone(ours), conflicts: [] };
  if (base !== null && jsonEqual(b, ours)) return { value: structuredClone(theirs), conflicts: [] };
  const conflicts: FieldConflict[] = [];
  const merged = generic(b, ours, theirs, conflicts);

  mergeCounts(b, ours, theirs, merged, conflicts);
  for (const f of ["last_used", "last_review_at", "updated_at"]) settle(merged, conflicts, f, maxOf(ours[f], theirs[f]));
  settle(merged, conflicts, "strength", maxOf(ours.strength, theirs.strength));
  if (!jsonEqual(ours.created_at, theirs.created_at) && !jsonEqual(b.created_at, ours.created_at) && !jsonEqual(b.created_at, theirs.created_at)) {
    settle(merged, conflicts, "created_at", minOf(ours.created_at, theirs.created_at));
  }

  const om = isObject(ours.meta) ? ours.meta : {};
  const tm = isObject(theirs.meta) ? theirs.meta : {};
  const bm = isObject(b.meta) ? b.meta : undefined;
  const tags = mergeSet(bm && Array.isArray(bm.tags) ? (bm.tags as string[]) : undefined, (om.tags as string[]) ?? [], (tm.tags as string[]) ?? []);
  if (isObject(merged.meta)) {
    merged.meta.tags = tags.slice(0, LIMITS.tagsMax);
    for (let i = conflicts.length - 1; i >= 0; i--) if (conflicts[i]!.field.startsWith("meta.tags")) conflicts.splice(i, 1);
  }
  if (tags.length > LIMITS.tagsMax) conflicts.push({ field: "meta.tags", kept: tags.slice(0, LIMITS.tagsMax), lost: tags.slice(LIMITS.tagsMax) });
  const lower = (s: string) => s.toLowerCase();
  const entities = mergeSet(Array.isArray(b.entities) ? (b.entities as string[]) : undefined, (ours.entities as string[]) ?? [], (theirs.entities as string[]) ?? [], lower);
  settle(merged, conflicts, "entities", entities.slice(0, LIMITS.entitiesMax));
  // a union past a record's limits keeps the base's labels and the first additions, and says so
  if (entities.length > LIMITS.entitiesMax) conflicts.push({ field: "entities", kept: entities.slice(0, LIMITS.entitiesMax), lost: entities.slice(LIMITS.entitiesMax) });
  mergeEntityRelations(b, ours, theirs, merged, conflicts, entities.slice(0, LIMITS.entitiesMax));

  // kept texts are a set like the labels: a text one side settled (memsync resolve removed it
  // from content_conflicts) stays settled, whatever the other side did meanwhile
  const texts = (r: JsonObject) => new Set(contentConflicts(r).map((c) => c.content));
  const [bt, ot, tt] = [texts(b), texts(ours), texts(theirs)];
  const settled = new Set([...bt].filter((c) => !ot.has(c) || !tt.has(c)));
  // content: both edited it differently -> the later edit wins, the other text is kept
  const lost: ContentConflict[] = [...contentConflicts(ours), ...contentConflicts(theirs)].filter((c) => !settled.has(c.content));
  const contentClash = !jsonEqual(ours.content, theirs.content) && !jsonEqual(b.content, ours.content) && !jsonEqual(b.content, theirs.content);
  if (contentClash) {
    const later = oursIsLater(ours, theirs);
    const [win, lose] = later ? [ours, theirs] : [theirs, ours];
    settle(merged, conflicts, "content", win.content);
    // what was read from the text goes with the text (the loser's is read again on resolve)
    settle(merged, conflicts, "gist", win.gist);
    settle(merged, conflicts, "decision", win.decision);
    settle(merged, conflicts, "fingerprint", win.fingerprint);
    lost.push({
      content: String(lose.content),
      updated_at: lose.updated_at ?? null,
      machine: isObject(lose.captured_by) ? (lose.captured_by.machine ?? null) : null,
    });
    conflicts.push({ field: "content", kept: win.content, lost: lose.content });
  }
  // the gist is a short form of the content: when one side alone changed the content, its gist
  // goes with it (a gist the other side made meanwhile describes the old text)
  const contentSide = jsonEqual(b.content, theirs.content) ? ours : jsonEqual(b.content, ours.content) ? theirs : null;
  if (!contentClash && contentSide && !jsonEqual(b.content, contentSide.content)) settle(merged, conflicts, "gist", contentSide.gist ?? null);
  const seen = new Set<string>();
  const kept = lost
    .filter((c) => c.content !== merged.content && !seen.has(c.content) && seen.add(c.content))
    .sort((x, y) => jsonCompare(x, y));
  if (kept.length) merged.content_conflicts = kept as unknown as Json;
  else delete merged.content_conflicts;
  for (let i = conflicts.length - 1; i >= 0; i--) if (conflicts[i]!.field.startsWith("content_conflicts")) conflicts.splice(i, 1);
  return { value: merged, conflicts };
}

/**
 * Entity relations are a set like the labels: the union minus what either side removed, and only
 * between entities the merged memory still has. Each relation keeps its own unknown fields.
 */
function mergeEntityRelations(b: JsonObject, ours: JsonObject, theirs: JsonObject, merged: JsonObject, conflicts: FieldConflict[], entities: readonly string[]): void {
  if (ours.entity_relations === undefined && theirs.entity_relations === undefined) return;
  const byKey = new Map<string, Json>();
  const keys = (v: Json | undefined): string[] | undefined => {
    if (!Array.isArray(v)) return undefined;
    return v.filter(isObject).map((r) => {
      const k = JSON.stringify([String(r.from).toLowerCase(), String(r.type), String(r.to).toLowerCase()]);
      // one relation written two ways: the same choice on both machines (symmetric)
      const had = byKey.get(k);
      if (had === undefined || jsonCompare(r, had) < 0) byKey.set(k, r);
      return k;
    });
  };
  const [kb, ko, kt] = [keys(b.entity_relations), keys(ours.entity_relations) ?? [], keys(theirs.entity_relations) ?? []];
  const names = new Set(entities.map((e) => e.toLowerCase()));
  const rels = mergeSet(kb, ko, kt)
    .filter((k) => {
      const [from, , to] = JSON.parse(k) as string[];
      return names.has(from!) && names.has(to!);
    })
    .map((k) => byKey.get(k)!);
  settle(merged, conflicts, "entity_relations", rels.length ? rels : undefined);
}

export function mergeRelation(base: JsonObject | null, ours: JsonObject, theirs: JsonObject): RecordMerge {
  const b = base ?? {};
  const conflicts: FieldConflict[] = [];
  const merged = generic(b, ours, theirs, conflicts);
  settle(merged, conflicts, "strength", maxOf(ours.strength, theirs.strength));
  if (!jsonEqual(ours.created_at, theirs.created_at)) settle(merged, conflicts, "created_at", minOf(ours.created_at, theirs.created_at));
  return { value: merged, conflicts };
}

export function mergeStoreMeta(base: JsonObject | null, ours: JsonObject, theirs: JsonObject): RecordMerge {
  const b = base ?? {};
  const conflicts: FieldConflict[] = [];
  const merged = generic(b, ours, theirs, conflicts);
  for (const f of ["last_gc_at", "last_consolidation_at"]) settle(merged, conflicts, f, maxOf(ours[f], theirs[f]));
  if (!jsonEqual(ours.created_at, theirs.created_at)) settle(merged, conflicts, "created_at", minOf(ours.created_at, theirs.created_at));
  return { value: merged, conflicts };
}

/**
 * Usage a machine added to a memory that was meanwhile merged away into `successor` (by
 * consolidation or split): the source's use and review streams carried to the successor
 * (core/counters.ts carryStreams: the same bytes on both machines, nothing counted twice), and
 * the later last_used.
 */
export function carryUsage(successor: JsonObject, sourceId: string, base: JsonObject | null, kept: JsonObject): JsonObject {
  let out: JsonObject = successor;
  for (const f of ["use_count", "review_count"] as const) {
    out = withStreams(out, f, carryStreams(streamsOf(successor, f), sourceId, streamsOf(base ?? {}, f), streamsOf(kept, f)));
  }
  const last = maxOf(successor.last_used, kept.last_used);
  return last === undefined ? out : { ...out, last_used: last };
}

/**
 * A memory brought back beside its successors (an edit beyond usage won over its consolidation or
 * split): its use and review streams raised to what the successors carry of them
 * (core/counters.ts raiseToCarried), so a use that moved to them meanwhile is not counted anew.
 */
export function usageBesideSuccessors(restored: JsonObject, sourceId: string, successors: readonly JsonObject[]): JsonObject {
  let out: JsonObject = restored;
  for (const f of ["use_count", "review_count"] as const) {
    out = withStreams(out, f, raiseToCarried(streamsOf(restored, f), sourceId, successors.map((s) => streamsOf(s, f))));
  }
  return out;
}

/** A record file's text as an object; null for no text, text that does not parse, or another JSON value. */
export function parseObject(text: string | null): JsonObject | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : null;
  } catch {
    return null;
  }
}
