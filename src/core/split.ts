import { contentTerms } from "./cluster/features.ts";
import { inheritedStreams, withStreams } from "./counters.ts";
import { invalidInput } from "./errors.ts";
import { normalizeEntities, sanitizeTags } from "./labels.ts";
import { type Memory, MemorySchema } from "./model/memory.ts";
import type { Relation } from "./model/relation.ts";
import { parseWith } from "./model/validate.ts";
import { createRelation, type JsonObject } from "./records.ts";

// Splitting a memory into atomic parts (pure), and finding memories worth splitting.
//
// Each part inherits the original's fields (strength, use_count, created_at, review counters, their
// streams as "<original id>/<stream>" (core/counters.ts), type, project, scope, provenance, fields
// memsync does not know) except: its own content and a fresh gist; its own tags and entities when
// given, else the original's; last_used = now (the split is a use); updated_at = now; status
// active; no embedding, promotion or decision (those described the whole); cross_domain_count 0 (it
// measured the composite). Each part gets a split_from relation to the original with split_index
// and total_splits in its metadata.

const SUCCESSION = new Set(["consolidated_from", "split_from"]);

export interface SplitPart {
  content: string;
  tags?: readonly string[];
  entities?: readonly string[];
  /** Other record fields for this part (type, importance, meta.context ...), over the inherited ones. */
  fields?: JsonObject;
}

export interface SplitContext {
  ids: readonly string[];
  now: number;
  gist: (content: string, entities: readonly string[]) => string | null;
  /** The original is removed (true) or kept archived: its content_conflicts go with part 1 only if removed. */
  removing: boolean;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Fields a part does not take from its input: inherited, or set by the split itself. */
const FIXED = new Set(["id", "content", "gist", "created_at", "use_count", "review_count", "cross_domain_count", "counters", "strength", "last_used", "status", "updated_at"]);

export function splitMemory(original: Memory, parts: readonly SplitPart[], ctx: SplitContext): Memory[] {
  if (parts.length < 2) throw invalidInput("a split needs at least two parts");
  if (ctx.ids.length !== parts.length) throw new Error("one id per part");
  return parts.map((part, i) => {
    if (part.content.trim() === "") throw invalidInput(`part ${i + 1} is empty`);
    const extra = part.fields ?? {};
    for (const k of Object.keys(extra)) {
      if (FIXED.has(k)) throw invalidInput(`part ${i + 1}: ${k} is not given per part (it is inherited or made by the split)`);
    }
    const tags = part.tags ? sanitizeTags(part.tags) : original.meta.tags;
    const entities = part.entities ? normalizeEntities(part.entities) : original.entities;
    const { content_conflicts, counters: _, ...inherited } = original;
    const meta = { ...original.meta, ...(isObject(extra.meta) ? extra.meta : {}), tags };
    const candidate: JsonObject = {
      ...inherited,
      promoted_at: null,
      promoted_to: null,
      embed: null,
      decision: null,
      cross_domain_count: 0,
      ...extra,
      id: ctx.ids[i],
      content: part.content,
      gist: ctx.gist(part.content, entities),
      meta,
      entities,
      status: "active",
      last_used: Math.max(ctx.now, original.last_used),
      updated_at: ctx.now,
    };
    if (i === 0 && ctx.removing && content_conflicts?.length) candidate.content_conflicts = content_conflicts;
    const uses = withStreams(candidate, "use_count", inheritedStreams([original], "use_count"));
    const r = parseWith(MemorySchema, withStreams(uses, "review_count", inheritedStreams([original], "review_count")));
    if (!r.ok) throw invalidInput(`part ${i + 1} would be an invalid memory: ${r.problem}`);
    return r.value;
  });
}

/** split_from from each part to the original, in part order. */
export function splitRelations(partIds: readonly string[], originalId: string, ids: () => string, now: number): Relation[] {
  return partIds.map((p, i) =>
    createRelation({ from: p, to: originalId, type: "split_from", metadata: { split_index: i, total_splits: partIds.length } }, ids(), now),
  );
}

/**
 * The original's relations when it is removed: each is copied to every part (the part in the
 * original's place), and the original ones go. A consolidated_from / split_from naming the
 * original as what it replaced stays as it is: provenance keeps naming the memory that is gone.
 */
export function copyRelations(
  relations: readonly Relation[],
  originalId: string,
  partIds: readonly string[],
  ids: () => string,
): { copies: Relation[]; removed: string[]; kept: string[] } {
  const out = { copies: [] as Relation[], removed: [] as string[], kept: [] as string[] };
  const seen = new Set<string>();
  const ordered = [...new Map(relations.map((r) => [r.id, r])).values()].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  for (const r of ordered) {
    if (r.to_memory_id === originalId && SUCCESSION.has(r.relation_type) && r.from_memory_id !== originalId) {
      out.kept.push(r.id);
      continue;
    }
    out.removed.push(r.id);
    for (const p of partIds) {
      const from = r.from_memory_id === originalId ? p : r.from_memory_id;
      const to = r.to_memory_id === originalId ? p : r.to_memory_id;
      const key = `${from} ${to} ${r.relation_type}`;
      if (from === to || seen.has(key)) continue;
      seen.add(key);
      out.copies.push({ ...r, id: ids(), from_memory_id: from, to_memory_id: to });
    }
  }
  return out;
}

// --- candidates -------------------------------------------------------------------------------

export const SPLIT_SIGNALS = {
  /** Content at least this long (characters). */
  longChars: 500,
  /** At least this many tags: many domains in one note. */
  manyTags: 6,
  /** At least this many entities: many topics in one note. */
  manyEntities: 6,
  /** Used in at least this many different contexts. */
  crossDomain: 3,
  /** Two passages share less than this (Jaccard of content words) to count as different ideas. */
  ideaOverlap: 0.15,
} as const;

/** A sentence opening with one of these carries on the one before it. */
const CONTINUES = new Set([
  "it", "its", "this", "that", "these", "those", "they", "them", "their", "he", "she", "also", "so", "but", "because",
  "however", "therefore", "then", "which", "and", "or", "otherwise", "instead", "thus", "hence", "here", "there",
]);

/** Paragraphs or list items when the text has several; else sentences. */
export function passages(content: string): string[] {
  const blocks = content
    .split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)/)
    .map((b) => b.trim())
    .filter(Boolean);
  if (blocks.length > 1) return blocks;
  return content
    .split(/(?<=[.!?])\s+(?=["'(\[]?[A-Z0-9])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function jaccardOf(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return 0;
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n / (a.size + b.size - n);
}

/** The distinct ideas of a text: consecutive passages that share words or refer back stay together. */
export function ideasOf(content: string): string[] {
  const groups: { texts: string[]; terms: Set<string> }[] = [];
  for (const p of passages(content)) {
    const terms = new Set(contentTerms(p).terms);
    const first = /^[\s"'(\[-]*([A-Za-z]+)/.exec(p)?.[1]?.toLowerCase() ?? "";
    const last = groups[groups.length - 1];
    if (last && (CONTINUES.has(first) || jaccardOf(terms, last.terms) >= SPLIT_SIGNALS.ideaOverlap || terms.size === 0)) {
      last.texts.push(p);
      for (const t of terms) last.terms.add(t);
    } else {
      groups.push({ texts: [p], terms });
    }
  }
  return groups.map((g) => g.texts.join(" "));
}

export interface SplitCandidate {
  id: string;
  score: number;
  reasons: string[];
  /** Suggested parts: the distinct ideas found. */
  parts: string[];
  content: string;
}

/**
 * Memories worth splitting: more than one distinct idea, and long, or with many tags, many
 * entities, or used across many contexts. Best first (more ideas and more signals first).
 */
export function splitCandidates(memories: readonly Memory[]): SplitCandidate[] {
  const out: SplitCandidate[] = [];
  for (const m of memories) {
    const chars = [...m.content].length;
    const signals: string[] = [];
    let score = 0;
    if (chars >= SPLIT_SIGNALS.longChars) {
      signals.push(`long: ${chars} characters`);
      score += Math.min(chars / SPLIT_SIGNALS.longChars, 4);
    }
    if (m.meta.tags.length >= SPLIT_SIGNALS.manyTags) {
      signals.push(`${m.meta.tags.length} tags`);
      score += m.meta.tags.length / SPLIT_SIGNALS.manyTags;
    }
    if (m.entities.length >= SPLIT_SIGNALS.manyEntities) {
      signals.push(`${m.entities.length} entities`);
      score += m.entities.length / SPLIT_SIGNALS.manyEntities;
    }
    if (m.cross_domain_count >= SPLIT_SIGNALS.crossDomain) {
      signals.push(`used across ${m.cross_domain_count} contexts (cross_domain_count)`);
      score += m.cross_domain_count / SPLIT_SIGNALS.crossDomain;
    }
    if (signals.length === 0) continue;
    const ideas = ideasOf(m.content);
    if (ideas.length < 2) continue;
    out.push({ id: m.id, score: Math.round((score + ideas.length - 1) * 100) / 100, reasons: [`${ideas.length} distinct ideas`, ...signals], parts: ideas, content: m.content });
  }
  return out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
