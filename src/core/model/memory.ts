import * as z from "zod/mini";
import { canonicalJson } from "../canonical-json.ts";
import { LIMITS, charLength, sanitizeTag } from "../labels.ts";
import { CountSchema, FreeObject, IdSchema, NullableText, NullableTimestamp, TimestampSchema, UnitInterval } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { ENTITY_RELATION_TYPES, IMPORTANCE_LEVELS, MEMORY_STATUSES, MEMORY_TYPES, OUTCOMES, SHARING_SCOPES, STRENGTH_MAX } from "./vocab.ts";

// The memory record: every field of the CortexGraph per-file spec (in its order), then what a
// captured decision needs (OrchestKit's record). Objects are loose: fields memsync does not know
// survive load and save unchanged.

export const ContentSchema = z.string().check(
  z.refine((s) => s.trim().length > 0, { message: "must not be empty" }),
  // a string of n UTF-16 units has at most n characters: count only when it could be over
  z.refine((s) => s.length <= LIMITS.contentMax || charLength(s) <= LIMITS.contentMax, { message: `must be at most ${LIMITS.contentMax} characters` }),
);

const usableTag = (t: string) => {
  const s = sanitizeTag(t);
  return s.length > 0 && charLength(s) <= LIMITS.tagMax;
};

/**
 * Tags in a file are sanitized on read (a hand-written "Machine Learning" becomes
 * machine_learning); a tag that cannot be made usable makes the file invalid rather than vanish.
 */
export const TagsSchema = z.pipe(
  z
    .array(z.string().check(z.refine(usableTag, { message: `must have a letter or digit and at most ${LIMITS.tagMax} characters` })))
    .check(z.maxLength(LIMITS.tagsMax)),
  z.transform((tags: string[]) => [...new Set(tags.map(sanitizeTag))]),
);

export const EntitiesSchema = z.array(z.string().check(z.minLength(1), z.maxLength(LIMITS.entityMax * 2))).check(
  z.maxLength(LIMITS.entitiesMax),
);

/**
 * A typed relation between two entities of the same memory ("redis" CHOSE_OVER "memcached").
 * Relations between memories are files of their own (relation.ts); what a sentence says about two
 * entities belongs to the memory that says it. Both ends must be among the memory's entities
 * (records.ts checks it): never an edge to free text.
 */
export const EntityRelationSchema = z.looseObject({
  from: z.string().check(z.minLength(1), z.maxLength(LIMITS.entityMax)),
  type: z.enum(ENTITY_RELATION_TYPES),
  to: z.string().check(z.minLength(1), z.maxLength(LIMITS.entityMax)),
});

export type EntityRelation = z.output<typeof EntityRelationSchema>;

export const DecisionContentSchema = z.looseObject({
  what: z.string().check(z.minLength(1)),
  why: NullableText,
  alternatives: z._default(z.array(z.string()), []),
  constraints: z._default(z.array(z.string()), []),
  tradeoffs: z._default(z.array(z.string()), []),
});

export const MemoryMetaSchema = z.looseObject({
  tags: z._default(TagsSchema, []),
  source: NullableText,
  context: NullableText,
  extra: FreeObject,
});

export const CapturedBySchema = z.looseObject({
  user: NullableText,
  machine: NullableText,
  agent: NullableText,
  session: NullableText,
});

/** A stream of a count: a checkout's replica id, "~" (legacy), or "<source id>/<stream>" (inherited). */
const StreamKey = z.string().check(z.minLength(1), z.maxLength(200), z.regex(/^[A-Za-z0-9~._+\/-]+$/, { message: "must be a stream name" }));
const StreamCounts = z.record(StreamKey, z.int().check(z.minimum(0)));

/**
 * Per-stream counts whose sums are use_count, review_count and cross_domain_count (a grow-only
 * counter per field; see core/counters.ts). Absent for a field counted by its total alone.
 */
export const CountersSchema = z.looseObject({
  use_count: z.optional(StreamCounts),
  review_count: z.optional(StreamCounts),
  cross_domain_count: z.optional(StreamCounts),
});

export const MemorySchema = z.looseObject({
  id: IdSchema,
  content: ContentSchema,
  gist: NullableText,
  meta: z._default(MemoryMetaSchema, { tags: [], source: null, context: null, extra: {} }),
  created_at: TimestampSchema,
  last_used: TimestampSchema,
  use_count: CountSchema,
  strength: z._default(z.number().check(z.minimum(0), z.maximum(STRENGTH_MAX)), 1),
  status: z._default(z.enum(MEMORY_STATUSES), "active"),
  promoted_at: NullableTimestamp,
  promoted_to: NullableText,
  embed: z._default(z.nullable(z.array(z.number())), null),
  entities: z._default(EntitiesSchema, []),
  /** Typed relations between this memory's entities (absent when there are none). */
  entity_relations: z.optional(z.array(EntityRelationSchema).check(z.maxLength(LIMITS.entitiesMax * 2))),
  review_priority: z._default(UnitInterval, 0),
  last_review_at: NullableTimestamp,
  review_count: CountSchema,
  cross_domain_count: CountSchema,
  // memsync's additions, for captured knowledge
  type: z._default(z.enum(MEMORY_TYPES), "fact"),
  decision: z._default(z.nullable(DecisionContentSchema), null),
  /** remember --success / --failed: a pattern that worked, an anti-pattern, a solution that failed. */
  outcome: z.optional(z.enum(OUTCOMES)),
  confidence: z._default(z.nullable(UnitInterval), null),
  category: NullableText,
  importance: z._default(z.enum(IMPORTANCE_LEVELS), "medium"),
  project: NullableText,
  scope: z._default(z.enum(SHARING_SCOPES), "team"),
  captured_by: z._default(z.nullable(CapturedBySchema), null),
  /** When content or labels last changed (touches do not count); the merge keeps the later edit. */
  updated_at: NullableTimestamp,
  /** The streams use_count, review_count and cross_domain_count are the sums of (merge without loss). */
  counters: z.optional(CountersSchema),
  /**
   * What makes two captures the same memory: type and the normalized "what" (aliases made
   * canonical, fillers dropped), e.g. "decision:postgresql for analytics db". Capture finds an
   * earlier memory by it in the index and reinforces that one instead of adding a second.
   */
  fingerprint: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
  /** Texts that lost to a later edit when two machines changed the content at once (never dropped). */
  content_conflicts: z.optional(
    z.array(
      z.looseObject({
        content: z.string(),
        updated_at: NullableTimestamp,
        machine: NullableText,
      }),
    ),
  ),
});

export type Memory = z.output<typeof MemorySchema>;

const MEMORY_ORDER = keyOrderOf(MemorySchema);

export function memoryToJson(m: Memory): string {
  return canonicalJson(m, MEMORY_ORDER);
}
