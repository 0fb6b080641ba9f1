import * as v from "../../core/model/valibot.ts";
import { Num } from "../../core/model/common.ts";
import { sanitizeTags } from "../../core/labels.ts";
import { MEMORY_STATUSES, MEMORY_TYPES } from "../../core/model/vocab.ts";
import { parseSince } from "../../core/time.ts";
import { usageError } from "../../core/errors.ts";
import type { MemoryFilter } from "../../store/index-db.ts";
import type { Store } from "../../store/store.ts";
import { withStore } from "../context.ts";
import { CONTEXT_DEFAULTS, projectContext } from "../project-context.ts";
import { projectOf } from "../project.ts";
import { listMemories, searchMemories } from "../query.ts";
import { RECALL_DEFAULTS, recall } from "../recall.ts";
import type { Memory } from "../../core/model/memory.ts";
import { QUERY_LIMITS } from "./limits.ts";
import { def, IdList, int, parseIds, Texts } from "./schema.ts";

// The reads: list, search, recall, context, score. Their defaults and limits live here (limits.ts
// QUERY_LIMITS, which the CLI reads its flags against without loading this module).

/** Shown unless a status is asked for; "all" asks for every status. */
const DEFAULT_STATUSES = ["active", "promoted"] as const;

const filterShape = () => ({
  status: v.optional(v.array(v.picklist([...MEMORY_STATUSES, "all"])), []),
  type: v.optional(v.array(v.picklist(MEMORY_TYPES)), []),
  tag: v.optional(Texts, []),
  entity: v.optional(Texts, []),
  project: v.optional(v.pipe(v.string(), v.maxLength(500))),
  /** Created since: 7d, 12h, 2026-11-01 or Unix seconds. */
  since: v.optional(v.pipe(v.string(), v.maxLength(100))),
  /** Created before (not at): the same forms; with since, a date range. */
  before: v.optional(v.pipe(v.string(), v.maxLength(100))),
  /** Each shown memory's decay score too. */
  scores: v.optional(v.boolean(), false),
});

type FilterInput = { status: string[]; type: string[]; tag: string[]; entity: string[]; project?: string | undefined; since?: string | undefined; before?: string | undefined };

function filterOf(f: FilterInput): MemoryFilter {
  const filter: MemoryFilter = {
    statuses: f.status.includes("all") ? [] : f.status.length ? f.status : DEFAULT_STATUSES,
    types: f.type,
    tags: sanitizeTags(f.tag),
    entities: f.entity,
  };
  if (f.project !== undefined) filter.project = f.project;
  const now = Math.floor(Date.now() / 1000);
  if (f.since !== undefined) filter.since = parseSince(f.since, now);
  if (f.before !== undefined) filter.before = parseSince(f.before, now);
  return filter;
}

const limitOf = (n: number) => (n === 0 ? null : n);

/** With scores: each shown memory's decay score, by id. */
async function scored<T extends object>(store: Store, out: T, want: boolean, memories: (o: T) => Memory[]): Promise<T & { decay_scores?: Record<string, number> }> {
  if (!want) return out;
  const { scoresFor } = await import("../score.ts");
  return { ...out, decay_scores: scoresFor(store, memories(out)) };
}

/** With scores: each shown memory's decay score, by id. */
const DecayScores = () => v.optional(v.record(v.string(), Num()));

export const list = def(
  () => v.object({ ...filterShape(), limit: v.optional(int(QUERY_LIMITS.limit.min, QUERY_LIMITS.limit.max), QUERY_LIMITS.listLimit) }),
  (o) => v.object({ memories: v.array(o.Memory), total: o.Count, decay_scores: DecayScores() }),
  async (call, input) => {
    const filter = filterOf(input);
    return withStore(call.env, async (store) => scored(store, await listMemories(store, filter, limitOf(input.limit)), input.scores, (o) => o.memories));
  },
);

export const search = def(
  () => v.object({
    ...filterShape(),
    query: v.pipe(v.string(), v.maxLength(10_000)),
    /** Match any word instead of all. */
    any: v.optional(v.boolean(), false),
    limit: v.optional(int(QUERY_LIMITS.limit.min, QUERY_LIMITS.limit.max), QUERY_LIMITS.searchLimit),
  }),
  (o) =>
    v.object({
      query: o.Text,
      words: v.array(o.Text),
      hits: v.array(v.object({ memory: o.Memory, score: Num() })),
      total: o.Count,
      decay_scores: DecayScores(),
    }),
  async (call, input) => {
    const filter = filterOf(input);
    return withStore(call.env, async (store) =>
      scored(store, await searchMemories(store, input.query, filter, limitOf(input.limit), input.any ? "any" : "all"), input.scores, (o) => o.hits.map((h) => h.memory)),
    );
  },
);

export const recallOp = def(
  () => v.object({
    query: v.pipe(v.string(), v.maxLength(100_000)),
    budget: v.optional(int(QUERY_LIMITS.budget.min, QUERY_LIMITS.budget.max), RECALL_DEFAULTS.budget),
    limit: v.optional(int(QUERY_LIMITS.blockLimit.min, QUERY_LIMITS.blockLimit.max), RECALL_DEFAULTS.limit),
    /** Only this project's memories and those of no project. */
    project: v.optional(v.pipe(v.string(), v.maxLength(500))),
  }),
  (o) =>
    v.object({
      query: o.Text,
      words: v.array(o.Text),
      total: o.Count,
      total_exact: o.Flag,
      items: v.array(
        v.object({
          id: o.Text,
          short_id: o.Text,
          type: o.Text,
          project: o.NullableText,
          created_at: o.Seconds,
          text: o.Text,
          from_gist: o.Flag,
          collapsed: o.Ids,
          relevance: Num(),
          decay: Num(),
          recency: Num(),
          score: Num(),
        }),
      ),
      collapsed: o.Count,
      more: o.Count,
      budget: o.Count,
      text: o.Text,
    }),
  async (call, input) => withStore(call.env, (store) => recall(store, input)),
);

export const context = def(
  () => v.object({
    /** The project; default: the caller's working directory's. */
    project: v.optional(v.pipe(v.string(), v.maxLength(500))),
    budget: v.optional(int(QUERY_LIMITS.budget.min, QUERY_LIMITS.budget.max), CONTEXT_DEFAULTS.budget),
    limit: v.optional(int(QUERY_LIMITS.blockLimit.min, QUERY_LIMITS.blockLimit.max), CONTEXT_DEFAULTS.limit),
  }),
  (o) =>
    v.object({
      project: o.Text,
      kind: v.picklist(["decisions", "memories"]),
      total: o.Count,
      items: v.array(v.object({ id: o.Text, short_id: o.Text, type: o.Text, created_at: o.Seconds, text: o.Text, from_gist: o.Flag })),
      more: o.Count,
      budget: o.Count,
      text: o.Text,
    }),
  async (call, input) => {
    const project = call.cwd !== undefined ? projectOf({ given: input.project, cwd: call.cwd }) : input.project?.trim() || null;
    if (!project) throw usageError("context needs a project: give project", { fields: ["project"] });
    return withStore(call.env, (store) => projectContext(store, { project, budget: input.budget, limit: input.limit }));
  },
);

export const score = def(
  () => v.object({ ids: IdList }),
  (o) => {
    const Decay = v.looseObject({ model: o.Text });
    return v.object({
      now: o.Seconds,
      settings: v.looseObject({
        decay: Decay,
        forget_threshold: Num(),
        promote: v.looseObject({ threshold: Num(), min_uses: Num(), window_days: Num() }),
        danger_zone: v.looseObject({ min: Num(), max: Num() }),
      }),
      scores: v.array(
        v.object({
          id: o.Text,
          status: o.Text,
          score: Num(),
          use_count: o.Count,
          last_used: o.Seconds,
          strength: Num(),
          review_priority: Num(),
          forget_in: o.NullableSeconds,
          forget_at: o.NullableSeconds,
          promotion: v.object({ eligible: o.Flag, score: Num(), reason: o.Text }),
        }),
      ),
      not_found: o.Ids,
      unreadable: o.Unreadable,
    });
  },
  async (call, input) => {
    parseIds(input.ids);
    const [{ lookUpIds }, { scoreMemories }] = await Promise.all([import("../id-lookup.ts"), import("../score.ts")]);
    return withStore(call.env, async (store) => {
      const looked = await lookUpIds(store, input.ids);
      const scored = await scoreMemories(store, looked.ids);
      return { ...scored, not_found: [...looked.not_found, ...scored.not_found] };
    });
  },
);

export const graph = def(
  () => v.object({
    /** Memories with these statuses (none: active and promoted; "all": every status). */
    status: v.optional(v.array(v.picklist([...MEMORY_STATUSES, "all"])), []),
    /** Memories skipped before this page (newest first). */
    offset: v.optional(int(0, 10_000_000), 0),
    limit: v.optional(int(1, 1000), 20),
  }),
  (o) =>
    v.object({
      memories: v.array(o.Memory),
      relations: v.array(o.Relation),
      total_memories: o.Count,
      total_relations: o.Count,
      avg_score: Num(),
      avg_use_count: Num(),
      offset: o.Count,
      limit: o.Count,
      decay_scores: v.record(v.string(), Num()),
    }),
  async (call, input) => {
    const statuses = input.status.includes("all") ? [] : input.status.length ? input.status : DEFAULT_STATUSES;
    const { graphPage } = await import("../graph.ts");
    return withStore(call.env, (store) => graphPage(store, { statuses }, input.offset, input.limit));
  },
);

export { recallOp as recall };
