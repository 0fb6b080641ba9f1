import { normalizeEntities, LIMITS, sanitizeTagList } from "../labels.ts";
import type { EntityRelation, Memory } from "../model/memory.ts";
import type { MemoryType, Outcome, SharingScope } from "../model/vocab.ts";
import { type JsonObject, touchMemory, updateMemory } from "../records.ts";
import { type Capture, fingerprintOf } from "./extract.ts";

// From a capture to the fields of a memory record, and the reinforcement of a memory that says
// the same thing again: one memory, used once more, its labels unioned, never a second copy.

export interface CaptureContext {
  /** The project (normalized remote id), or null for none. */
  project: string | null;
  /** --global: shared across projects, so no project. */
  global?: boolean;
  tags?: readonly string[];
  /** meta.source: "capture", "remember", "claude-code:UserPromptSubmit"... */
  source: string;
  session?: string | null;
  agent?: string | null;
}

/** What a person said on the command line wins over what was read from the text. */
export interface Overrides {
  type?: MemoryType;
  outcome?: Outcome;
  scope?: SharingScope;
  entities?: readonly string[];
  fields?: JsonObject;
}

/**
 * The record fields of a capture. --success/--failed without --type make a pattern / an
 * anti-pattern (what worked, what to avoid); with --type (e.g. solution) they only set outcome.
 */
export function memoryFields(c: Capture, ctx: CaptureContext, o: Overrides = {}): JsonObject {
  const type: MemoryType = o.type ?? (o.outcome === "success" ? "pattern" : o.outcome === "failed" ? "anti-pattern" : c.type);
  const scope: SharingScope = o.scope ?? (ctx.global ? "global" : c.scope);
  const entities = normalizeEntities([...c.entities, ...(o.entities ?? [])]).slice(0, LIMITS.entitiesMax);
  const fields: JsonObject = {
    content: c.content,
    type,
    decision: c.decision ? structuredClone(c.decision) : null,
    entities,
    confidence: c.confidence,
    category: c.category,
    importance: c.importance,
    scope,
    // a memory shared across projects belongs to none of them
    project: scope === "global" ? null : ctx.project,
    fingerprint: fingerprintOf(type, c.decision?.what ?? c.content),
    meta: { tags: [...(ctx.tags ?? [])], source: ctx.source, context: null, extra: {} },
    captured_by: { agent: ctx.agent ?? null, session: ctx.session ?? null },
  };
  const known = new Set(entities.map((e) => e.toLowerCase()));
  const rels = c.entity_relations.filter((r) => known.has(r.from.toLowerCase()) && known.has(r.to.toLowerCase()));
  if (rels.length) fields.entity_relations = rels;
  if (o.outcome) fields.outcome = o.outcome;
  Object.assign(fields, o.fields ?? {});
  return fields;
}

function union<T>(a: readonly T[], b: readonly T[], key: (x: T) => string = String): T[] {
  const seen = new Set(a.map(key));
  return [...a, ...b.filter((x) => !seen.has(key(x)) && seen.add(key(x)))];
}

const relKey = (r: EntityRelation) => `${r.from.toLowerCase()}\u0000${r.type}\u0000${r.to.toLowerCase()}`;

/**
 * The same statement captured again: one more use of the memory that has it (use_count + 1 on
 * this checkout's stream, last_used now), its labels unioned with the new ones (tags, entities, entity relations,
 * alternatives, constraints, tradeoffs), a reason filled in if it had none, the higher confidence.
 */
export function reinforceMemory(existing: Memory, fields: JsonObject, now: number, stream: string): Memory {
  const patch: JsonObject = {};
  const newEntities = Array.isArray(fields.entities) ? (fields.entities as string[]) : [];
  const entities = union(existing.entities, newEntities, (e) => e.toLowerCase()).slice(0, LIMITS.entitiesMax);
  if (entities.length !== existing.entities.length) patch.entities = entities;
  const newTags = sanitizeTagList(((fields.meta as JsonObject | undefined)?.tags as string[] | undefined) ?? []);
  const tags = union(existing.meta.tags, newTags).slice(0, LIMITS.tagsMax);
  if (tags.length !== existing.meta.tags.length) patch.meta = { tags };
  const names = new Set(entities.map((e) => e.toLowerCase()));
  const rels = union(existing.entity_relations ?? [], (fields.entity_relations as EntityRelation[] | undefined) ?? [], relKey).filter(
    (r) => names.has(r.from.toLowerCase()) && names.has(r.to.toLowerCase()),
  );
  if (rels.length !== (existing.entity_relations ?? []).length) patch.entity_relations = rels;
  const d = fields.decision as Capture["decision"] | undefined;
  if (existing.decision && d) {
    const next = {
      ...existing.decision,
      why: existing.decision.why ?? d.why,
      alternatives: union(existing.decision.alternatives, d.alternatives, (x) => x.toLowerCase()),
      constraints: union(existing.decision.constraints, d.constraints, (x) => x.toLowerCase()),
      tradeoffs: union(existing.decision.tradeoffs, d.tradeoffs, (x) => x.toLowerCase()),
    };
    if (JSON.stringify(next) !== JSON.stringify(existing.decision)) patch.decision = next;
  } else if (!existing.decision && d) {
    patch.decision = d;
  }
  if (typeof fields.confidence === "number" && (existing.confidence === null || fields.confidence > existing.confidence)) patch.confidence = fields.confidence;
  if (existing.category === null && typeof fields.category === "string") patch.category = fields.category;
  if (existing.fingerprint === undefined && typeof fields.fingerprint === "string") patch.fingerprint = fields.fingerprint;
  const updated = Object.keys(patch).length ? updateMemory(existing, patch, now).memory : existing;
  return touchMemory(updated, now, false, stream);
}
