import { COUNTED_FIELDS, inheritedStreams, withStreams } from "./counters.ts";
import { invalidInput } from "./errors.ts";
import { LIMITS, normalizeEntities } from "./labels.ts";
import { type Memory, MemorySchema } from "./model/memory.ts";
import type { Relation } from "./model/relation.ts";
import { IMPORTANCE_LEVELS, type RelationType, STRENGTH_MAX } from "./model/vocab.ts";
import { parseWith } from "./model/validate.ts";
import { createRelation, type JsonObject } from "./records.ts";

// Merging a cluster of near-duplicate memories into one (pure). The rules:
// - content: if every member's text is contained in the longest, the longest; otherwise the
//   distinct texts, longest first, one paragraph each (a text contained in one already kept adds
//   nothing and is left out);
// - tags and entities: the union (past the limits, those most members share come first);
// - created_at the earliest, last_used the latest, use_count / review_count / cross_domain_count
//   summed (each source's streams kept as "<source id>/<stream>"; a stream two sources both
//   hold, e.g. the parts of one split, counted once: core/counters.ts),
//   strength = min(max + min(cohesion · n · 0.1, 0.5), 2.0);
// - a fresh gist of the merged content (given by the caller), no embedding (it described a source);
// - the other fields from the primary member (the longest text; ties: the earliest, then the
//   smallest id), or the first member that has one; fields memsync does not know survive the
//   same way.
// The new memory gets a consolidated_from relation to each source (cluster id and cohesion in its
// metadata); every other relation that named a source is moved onto the new memory.

/** Text compared for containment: case and runs of white space do not matter. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

const byPrimary = (a: Memory, b: Memory) =>
  b.content.length - a.content.length || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Members with the primary first (see above). */
export function primaryFirst(members: readonly Memory[]): Memory[] {
  return [...members].sort(byPrimary);
}

export function mergedContent(members: readonly Memory[]): string {
  const kept: { text: string; norm: string }[] = [];
  for (const m of primaryFirst(members)) {
    const norm = normalized(m.content);
    if (kept.some((k) => k.norm.includes(norm))) continue;
    kept.push({ text: m.content, norm });
  }
  return kept.length === 1 ? kept[0]!.text : kept.map((k) => k.text.trim()).join("\n\n");
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function mergedStrength(strengths: readonly number[], cohesion: number): number {
  const max = Math.max(...strengths);
  return round6(Math.min(max + Math.min(cohesion * strengths.length * 0.1, 0.5), STRENGTH_MAX));
}

/** A union in first-seen order; past `max`, the items most lists share are kept. */
function unionCapped(lists: readonly (readonly string[])[], max: number, key: (s: string) => string = (s) => s): string[] {
  const first = new Map<string, { value: string; order: number; count: number }>();
  for (const list of lists) {
    for (const v of new Set(list)) {
      const k = key(v);
      const seen = first.get(k);
      if (seen) seen.count++;
      else first.set(k, { value: v, order: first.size, count: 1 });
    }
  }
  let all = [...first.values()];
  if (all.length > max) all = all.sort((a, b) => b.count - a.count || a.order - b.order).slice(0, max).sort((a, b) => a.order - b.order);
  return all.map((x) => x.value);
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first value that is not null or undefined, in member order. */
function firstGiven<T>(members: readonly Memory[], get: (m: Memory) => T | null | undefined): T | null {
  for (const m of members) {
    const v = get(m);
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** Key by key, the earlier object wins (members are in primary-first order). */
function layered(objects: readonly JsonObject[]): JsonObject {
  const out: JsonObject = {};
  for (const o of [...objects].reverse()) Object.assign(out, o);
  return out;
}

/** The value that occurs most often; of those tied, the first. */
function mostCommon<T extends string>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0]!;
  for (const v of values) if (counts.get(v)! > counts.get(best)!) best = v;
  return best;
}

export interface MergeContext {
  id: string;
  now: number;
  cohesion: number;
  gist: (content: string, entities: readonly string[]) => string | null;
}

/** The memory a cluster becomes. Refuses (invalid input) what no valid memory could hold. */
export function mergeMemories(sources: readonly Memory[], ctx: MergeContext): Memory {
  if (sources.length < 2) throw invalidInput("a consolidation needs at least two memories");
  const members = primaryFirst(sources);
  const primary = members[0]!;
  const content = mergedContent(members);
  if ([...content].length > LIMITS.contentMax) {
    throw invalidInput(`the merged content would be ${[...content].length} characters, over the limit of ${LIMITS.contentMax}`);
  }
  const tags = unionCapped(members.map((m) => m.meta.tags), LIMITS.tagsMax);
  const entities = normalizeEntities(unionCapped(members.map((m) => m.entities), LIMITS.entitiesMax, (e) => e.toLowerCase()));
  // the type most members have; on a tie, the primary's (members are in primary-first order)
  const type = mostCommon(members.map((m) => m.type));
  const maxOf = (get: (m: Memory) => number | null) => {
    const xs = members.map(get).filter((x): x is number => x !== null);
    return xs.length ? Math.max(...xs) : null;
  };
  const sum = (get: (m: Memory) => number) => members.reduce((a, m) => a + get(m), 0);
  const importance = IMPORTANCE_LEVELS[Math.max(...members.map((m) => IMPORTANCE_LEVELS.indexOf(m.importance)))]!;
  const conflicts = members.flatMap((m) => m.content_conflicts ?? []);

  const candidate: JsonObject = {
    // unknown fields (and the rest) from the members, the primary's winning
    ...layered(members as unknown as JsonObject[]),
    id: ctx.id,
    content,
    gist: ctx.gist(content, entities),
    meta: {
      ...layered(members.map((m) => m.meta as JsonObject)),
      tags,
      source: firstGiven(members, (m) => m.meta.source),
      context: firstGiven(members, (m) => m.meta.context),
      extra: layered(members.map((m) => (isObject(m.meta.extra) ? m.meta.extra : {}))),
    },
    created_at: Math.min(...members.map((m) => m.created_at)),
    last_used: Math.max(...members.map((m) => m.last_used)),
    use_count: sum((m) => m.use_count),
    strength: mergedStrength(members.map((m) => m.strength), ctx.cohesion),
    status: "active",
    promoted_at: null,
    promoted_to: null,
    embed: null,
    entities,
    review_priority: maxOf((m) => m.review_priority) ?? 0,
    last_review_at: maxOf((m) => m.last_review_at),
    review_count: sum((m) => m.review_count),
    cross_domain_count: sum((m) => m.cross_domain_count),
    type,
    decision: firstGiven(
      members.filter((m) => m.type === type),
      (m) => m.decision,
    ),
    confidence: maxOf((m) => m.confidence),
    category: firstGiven(members, (m) => m.category),
    importance,
    project: primary.project,
    scope: primary.scope,
    captured_by: firstGiven(members, (m) => m.captured_by),
    updated_at: ctx.now,
  };
  if (conflicts.length) candidate.content_conflicts = conflicts;
  else delete candidate.content_conflicts;
  let counted: JsonObject = candidate;
  for (const f of COUNTED_FIELDS) counted = withStreams(counted, f, inheritedStreams(members as unknown as JsonObject[], f));
  const r = parseWith(MemorySchema, counted);
  if (!r.ok) throw invalidInput(`the merged memory would be invalid: ${r.problem}`);
  return r.value;
}

/** consolidated_from from the new memory to each source, with the cluster in the metadata. */
export function provenanceRelations(
  newId: string,
  sources: readonly string[],
  meta: { clusterId: string; cohesion: number },
  ids: () => string,
  now: number,
): Relation[] {
  return [...sources].sort().map((s) =>
    createRelation(
      { from: newId, to: s, type: "consolidated_from", metadata: { cluster_id: meta.clusterId, cluster_cohesion: meta.cohesion } },
      ids(),
      now,
    ),
  );
}

export interface Rewiring {
  /** Provenance naming a source as what it replaced (consolidated_from, split_from): left as it is. */
  kept: string[];
  /** Relations rewritten to name the new memory instead of a source (same ids). */
  moved: Relation[];
  /** Relations removed: they would relate the new memory to itself, or repeat another (from, to, type). */
  dropped: { id: string; reason: "self" | "duplicate" }[];
}

const relKey = (from: string, to: string, type: RelationType | string) => `${from} ${to} ${type}`;

const SUCCESSION = new Set(["consolidated_from", "split_from"]);

/**
 * Move every relation naming a source onto the new memory. A relation between two sources would
 * relate the new memory to itself and goes; of several that become the same (from, to, type) the
 * oldest stays, with the largest strength among them. `taken` says whether a relation other than
 * these already has that (from, to, type). A consolidated_from / split_from naming a source as
 * what it replaced stays: provenance keeps naming the memory that is gone.
 */
export function rewireRelations(
  relations: readonly Relation[],
  sources: ReadonlySet<string>,
  newId: string,
  taken: (from: string, to: string, type: string) => boolean = () => false,
): Rewiring {
  const out: Rewiring = { kept: [], moved: [], dropped: [] };
  const byKey = new Map<string, Relation>();
  const ordered = [...new Map(relations.map((r) => [r.id, r])).values()].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  for (const r of ordered) {
    if (SUCCESSION.has(r.relation_type) && sources.has(r.to_memory_id) && !sources.has(r.from_memory_id)) {
      out.kept.push(r.id);
      continue;
    }
    const from = sources.has(r.from_memory_id) ? newId : r.from_memory_id;
    const to = sources.has(r.to_memory_id) ? newId : r.to_memory_id;
    if (from === to) {
      out.dropped.push({ id: r.id, reason: "self" });
      continue;
    }
    const key = relKey(from, to, r.relation_type);
    const kept = byKey.get(key);
    if (kept) {
      kept.strength = Math.max(kept.strength, r.strength);
      out.dropped.push({ id: r.id, reason: "duplicate" });
      continue;
    }
    if (taken(from, to, r.relation_type)) {
      out.dropped.push({ id: r.id, reason: "duplicate" });
      continue;
    }
    const moved = { ...r, from_memory_id: from, to_memory_id: to };
    byKey.set(key, moved);
    out.moved.push(moved);
  }
  return out;
}
