import * as v from "./valibot.ts";
import { canonicalJson } from "../canonical-json.ts";
import { LIMITS, charLength, sanitizeTag } from "../labels.ts";
import { CountSchema, FreeObject, IdSchema, Int, Num, NullableText, NullableTimestamp, TimestampSchema, UnitInterval } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { ENTITY_RELATION_TYPES, IMPORTANCE_LEVELS, MEMORY_STATUSES, MEMORY_TYPES, OUTCOMES, SHARING_SCOPES, STRENGTH_MAX } from "./vocab.ts";

// The memory record: every field of the CortexGraph per-file spec (in its order), then what a
// captured decision needs (OrchestKit's record). Objects are loose: fields memsync does not know
// survive load and save unchanged.

export const ContentSchema = v.pipe(
  v.string(),
  v.check((s) => s.trim().length > 0, "must not be empty"),
  // a string of n UTF-16 units has at most n characters: count only when it could be over
  v.check((s) => s.length <= LIMITS.contentMax || charLength(s) <= LIMITS.contentMax, `must be at most ${LIMITS.contentMax} characters`),
);

const usableTag = (t: string) => {
  const s = sanitizeTag(t);
  return s.length > 0 && charLength(s) <= LIMITS.tagMax;
};

/**
 * Tags in a file are sanitized on read (a hand-written "Machine Learning" becomes
 * machine_learning); a tag that cannot be made usable makes the file invalid rather than vanish.
 */
export const TagsSchema = v.pipe(
  v.array(v.pipe(v.string(), v.check(usableTag, `must have a letter or digit and at most ${LIMITS.tagMax} characters`))),
  v.maxLength(LIMITS.tagsMax),
  v.transform((tags: string[]) => [...new Set(tags.map(sanitizeTag))]),
);

export const EntitiesSchema = v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.entityMax * 2))), v.maxLength(LIMITS.entitiesMax));

/**
 * A typed relation between two entities of the same memory ("redis" CHOSE_OVER "memcached").
 * Relations between memories are files of their own (relation.ts); what a sentence says about two
 * entities belongs to the memory that says it. Both ends must be among the memory's entities
 * (records.ts checks it): never an edge to free text.
 */
export const EntityRelationSchema = v.looseObject({
  from: v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.entityMax)),
  type: v.picklist(ENTITY_RELATION_TYPES),
  to: v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.entityMax)),
});

export type EntityRelation = v.InferOutput<typeof EntityRelationSchema>;

export const DecisionContentSchema = v.looseObject({
  what: v.pipe(v.string(), v.minLength(1)),
  why: NullableText,
  alternatives: v.optional(v.array(v.string()), []),
  constraints: v.optional(v.array(v.string()), []),
  tradeoffs: v.optional(v.array(v.string()), []),
});

export const MemoryMetaSchema = v.looseObject({
  tags: v.optional(TagsSchema, []),
  source: NullableText,
  context: NullableText,
  extra: FreeObject,
});

export const CapturedBySchema = v.looseObject({
  user: NullableText,
  machine: NullableText,
  agent: NullableText,
  session: NullableText,
});

/** A stream of a count: a checkout's replica id, "~" (legacy), or "<source id>/<stream>" (inherited). */
const StreamKey = v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.regex(/^[A-Za-z0-9~._+\/-]+$/, "must be a stream name"));
const StreamCounts = v.record(StreamKey, v.pipe(Int(), v.minValue(0)));

/**
 * Per-stream counts whose sums are use_count, review_count and cross_domain_count (a grow-only
 * counter per field; see core/counters.ts). Absent for a field counted by its total alone.
 */
export const CountersSchema = v.looseObject({
  use_count: v.optional(StreamCounts),
  review_count: v.optional(StreamCounts),
  cross_domain_count: v.optional(StreamCounts),
});

export const MemorySchema = v.looseObject({
  id: IdSchema,
  content: ContentSchema,
  gist: NullableText,
  meta: v.optional(MemoryMetaSchema, { tags: [], source: null, context: null, extra: {} }),
  created_at: TimestampSchema,
  last_used: TimestampSchema,
  use_count: CountSchema,
  strength: v.optional(v.pipe(Num(), v.minValue(0), v.maxValue(STRENGTH_MAX)), 1),
  status: v.optional(v.picklist(MEMORY_STATUSES), "active"),
  promoted_at: NullableTimestamp,
  promoted_to: NullableText,
  embed: v.optional(v.nullable(v.array(Num())), null),
  entities: v.optional(EntitiesSchema, []),
  /** Typed relations between this memory's entities (absent when there are none). */
  entity_relations: v.optional(v.pipe(v.array(EntityRelationSchema), v.maxLength(LIMITS.entitiesMax * 2))),
  review_priority: v.optional(UnitInterval, 0),
  last_review_at: NullableTimestamp,
  review_count: CountSchema,
  cross_domain_count: CountSchema,
  // memsync's additions, for captured knowledge
  type: v.optional(v.picklist(MEMORY_TYPES), "fact"),
  decision: v.optional(v.nullable(DecisionContentSchema), null),
  /** remember --success / --failed: a pattern that worked, an anti-pattern, a solution that failed. */
  outcome: v.optional(v.picklist(OUTCOMES)),
  confidence: v.optional(v.nullable(UnitInterval), null),
  category: NullableText,
  importance: v.optional(v.picklist(IMPORTANCE_LEVELS), "medium"),
  project: NullableText,
  scope: v.optional(v.picklist(SHARING_SCOPES), "team"),
  captured_by: v.optional(v.nullable(CapturedBySchema), null),
  /** When content or labels last changed (touches do not count); the merge keeps the later edit. */
  updated_at: NullableTimestamp,
  /** The streams use_count, review_count and cross_domain_count are the sums of (merge without loss). */
  counters: v.optional(CountersSchema),
  /**
   * What makes two captures the same memory: type and the normalized "what" (aliases made
   * canonical, fillers dropped), e.g. "decision:postgresql for analytics db". Capture finds an
   * earlier memory by it in the index and reinforces that one instead of adding a second.
   */
  fingerprint: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
  /** Texts that lost to a later edit when two machines changed the content at once (never dropped). */
  content_conflicts: v.optional(
    v.array(
      v.looseObject({
        content: v.string(),
        updated_at: NullableTimestamp,
        machine: NullableText,
      }),
    ),
  ),
});

export type Memory = v.InferOutput<typeof MemorySchema>;

const MEMORY_ORDER = keyOrderOf(MemorySchema);

export function memoryToJson(m: Memory): string {
  return canonicalJson(m, MEMORY_ORDER);
}
