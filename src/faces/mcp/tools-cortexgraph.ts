import * as v from "../../core/model/valibot.ts";
import { Int, Num } from "../../core/model/common.ts";
import type { McpServer } from "@modelcontextprotocol/server";
import { type ErrorCode, isMemsyncError, MemsyncError, oneLine } from "../../core/errors.ts";
import type { Memory } from "../../core/model/memory.ts";
import type { Relation } from "../../core/model/relation.ts";
import { jsonSchemaOf } from "../../core/model/json-schema-of.ts";
import { parseWith } from "../../core/model/validate.ts";
import { RELATION_TYPES } from "../../core/model/vocab.ts";
import { recallIntent } from "../../core/recall-intent.ts";
import { coded } from "../../ops/catalogue/errors.ts";
import { opNamed } from "../../ops/catalogue/index.ts";
import { runOp } from "../../ops/catalogue/run.ts";
import { processGate } from "../../ops/gate.ts";
import { jsonResult, type ToolResult } from "./results.ts";
import { described, type JsonSchema } from "./schemas.ts";
import type { CallFactory } from "./server.ts";

// The `cortexgraph` profile: CortexGraph's MCP tools under their own names, parameters, defaults
// and answer shapes (read from prefrontal-systems/cortexgraph's tool modules), each mapped onto
// catalogue operations: the face checks CortexGraph's parameters, calls the operations and
// reshapes their answers; what an answer means is the operations'. A tool whose operation is
// not in this build (maintenance, on the edge build) is not offered. CortexGraph answers some
// failures as {"success": false, "message"}; here every failure is an isError result whose
// text keeps that shape and adds memsync's error code.

type Ops = <O = any>(name: string, input: unknown) => Promise<O>;
type Flags = { readOnly: boolean; destructive: boolean; idempotent: boolean };

interface CgTool {
  name: string;
  description: string;
  input: Params;
  output: JsonSchema;
  flags: Flags;
  /** The catalogue operations it runs: absent from this build, the tool is too. */
  ops: string[];
  run(ops: Ops, input: any): Promise<Record<string, unknown>>;
}

const READ: Flags = { readOnly: true, destructive: false, idempotent: true };
const WRITE: Flags = { readOnly: false, destructive: false, idempotent: false };
const DESTROY: Flags = { readOnly: false, destructive: true, idempotent: false };

// --- parameters, as CortexGraph's validators take them ------------------------------------

/** A tool's parameters: an object schema (unknown keys dropped). */
type Params = v.ObjectSchema<v.ObjectEntries, undefined>;

const opt = <T extends v.GenericSchema>(t: T) => v.optional(v.nullable(t), null);
const Str = (max: number) => v.pipe(v.string(), v.maxLength(max));
const Tags = v.pipe(v.array(Str(100)), v.maxLength(50));
const Score01 = v.pipe(Num(), v.minValue(0), v.maxValue(1));
const Weight = v.pipe(Num(), v.minValue(0), v.maxValue(2));
const IntIn = (min: number, max: number) => v.pipe(Int(), v.minValue(min), v.maxValue(max));
const STATUS = ["active", "promoted", "archived"] as const;
const StatusIn = opt(v.union([v.picklist(STATUS), v.pipe(v.array(v.picklist(STATUS)), v.maxLength(5))]));
const Message = v.pipe(v.string(), v.maxLength(50_000));

const page = { page: opt(IntIn(1, 1_000_000)), page_size: opt(IntIn(1, 100)) };

// --- pieces of answers ----------------------------------------------------------------------

const ok = (o: Record<string, unknown>) => ({ success: true, ...o });
/** read_graph's relations per page: with 100 memories of previews, the answer stays bounded. */
const MAX_GRAPH_RELATIONS = 200;
const round = (n: number, d = 4) => Math.round(n * 10 ** d) / 10 ** d;
const nowS = () => Math.floor(Date.now() / 1000);
const ageDays = (m: Memory, now: number) => round((now - m.created_at) / 86400, 1);

/** CortexGraph's preview: the first n characters and "..." (0 or none: the whole text). */
function truncate(text: string, n: number | null): string {
  if (!n || text.length <= n) return text;
  return `${text.slice(0, n).trimEnd()}...`;
}

function statuses(s: string | string[] | null): string[] {
  return s === null ? [] : Array.isArray(s) ? s : [s];
}

/** CortexGraph's pagination (page from 1): the items of one page and where it stands. */
function paginate<T>(items: T[], p: number | null, size: number | null, defaultSize = 10): { items: T[]; pagination: Record<string, unknown> } {
  const pageNo = p ?? 1;
  const pageSize = size ?? defaultSize;
  const total = items.length;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return {
    items: items.slice((pageNo - 1) * pageSize, pageNo * pageSize),
    pagination: { page: pageNo, page_size: pageSize, total_count: total, total_pages: pages, has_more: pageNo < pages },
  };
}

/** Decay scores by id (score op), for memories that exist. */
async function scoresOf(ops: Ops, ids: string[]): Promise<Map<string, Record<string, any>>> {
  if (!ids.length) return new Map();
  const out = await ops<{ scores: Record<string, any>[] }>("score", { ids });
  return new Map(out.scores.map((s) => [s.id as string, s]));
}

/** Search or list as CortexGraph's searches read: with a query the ranked matches, else by score. */
async function findMemories(ops: Ops, i: { query: string | null; tags: string[] | null; status: string | string[] | null; window_days: number | null }, limit: number) {
  const filter = { tag: i.tags ?? [], status: statuses(i.status), ...(i.window_days ? { since: `${i.window_days}d` } : {}), scores: true, limit };
  if (i.query?.trim()) {
    const out = await ops<{ hits: { memory: Memory; score: number }[]; decay_scores: Record<string, number> }>("search", { ...filter, query: i.query, any: true });
    return { memories: out.hits.map((h) => h.memory), decay: out.decay_scores ?? {}, ranked: true };
  }
  // no query: the newest 3·limit, best score first (as CortexGraph reads its most recent 3·top_k),
  // so a query-less call on a large store stays a page, not the store
  const out = await ops<{ memories: Memory[]; decay_scores: Record<string, number> }>("list", { ...filter, limit: limit * 3 });
  const decay = out.decay_scores ?? {};
  const memories = [...out.memories].sort((a, b) => (decay[b.id] ?? 0) - (decay[a.id] ?? 0)).slice(0, limit);
  return { memories, decay, ranked: false };
}

// --- output schemas (what each answer holds; more keys may follow) ---------------------------

const T = { s: { type: "string" }, n: { type: "number" }, i: { type: "integer" }, b: { type: "boolean" }, a: { type: "array" }, o: { type: "object" } } as const;
function shape(props: Record<string, unknown>, required = Object.keys(props)): JsonSchema {
  return { type: "object", properties: { success: T.b, ...props }, required: ["success", ...required] };
}
/** The analyzers answer without a success flag, as CortexGraph's do. */
function plain(props: Record<string, unknown>): JsonSchema {
  return { type: "object", properties: props, required: Object.keys(props) };
}

const SEARCH_OUT = shape({ count: T.i, results: T.a, pagination: T.o }, ["count", "results"]);

// --- the tools ------------------------------------------------------------------------------

const TOOLS: CgTool[] = [
  {
    name: "save_memory",
    description:
      "Save memory to short-term storage. Args: content (max 50k chars), tags (max 50), entities (max 100), source (max 500 chars), context (max 1k chars), meta (custom metadata), strength (1.0-2.0, default 1.0). Returns success, memory_id, message, has_embedding, enrichment_applied.",
    input: v.object({
      content: Str(50_000),
      tags: opt(Tags),
      entities: opt(v.pipe(v.array(Str(200)), v.maxLength(100))),
      source: opt(Str(500)),
      context: opt(Str(1000)),
      meta: opt(v.record(v.string(), v.unknown())),
      strength: opt(v.pipe(Num(), v.minValue(1), v.maxValue(2))),
    }),
    output: shape({ memory_id: T.s, message: T.s, has_embedding: T.b, enrichment_applied: T.b, auto_entities: T.i, calculated_strength: T.n }),
    flags: WRITE,
    ops: ["save"],
    async run(ops, i) {
      if (!i.content.trim()) throw new MemsyncError("invalid_input", "content cannot be empty");
      const strength = i.strength ?? 1;
      const memory = { content: i.content, entities: i.entities ?? [], strength, meta: { tags: i.tags ?? [], source: i.source, context: i.context, extra: i.meta ?? {} } };
      const out = await ops<{ memory: Memory }>("save", { memory });
      const id = out.memory.id;
      return ok({ memory_id: id, message: `Memory saved with ID: ${id}`, has_embedding: false, enrichment_applied: false, auto_entities: 0, calculated_strength: strength });
    },
  },
  {
    name: "search_memory",
    description:
      "Search memories with filters and pagination. Args: query, tags, status ('active', 'promoted', 'archived' or a list; default active and promoted), top_k (1-100), window_days (1-3650), min_score (0.0-1.0), use_embeddings, include_review_candidates, page, page_size (max 100), preview_length (0-5000, default 300). Every memory matching a word of the query is a candidate, however old.",
    input: v.object({
      query: opt(Str(50_000)),
      tags: opt(Tags),
      status: StatusIn,
      top_k: v.optional(IntIn(1, 100), 10),
      window_days: opt(IntIn(1, 3650)),
      min_score: opt(Score01),
      use_embeddings: v.optional(v.boolean(), false),
      include_review_candidates: v.optional(v.boolean(), true),
      ...page,
      preview_length: opt(IntIn(0, 5000)),
    }),
    output: SEARCH_OUT,
    flags: READ,
    ops: ["search", "list"],
    async run(ops, i) {
      const found = await findMemories(ops, i, i.top_k);
      const now = nowS();
      const results = found.memories
        .filter((m) => i.min_score === null || (found.decay[m.id] ?? 0) >= i.min_score)
        .map((m) => ({
          id: m.id,
          content: truncate(m.content, i.preview_length ?? 300),
          tags: m.meta.tags,
          score: round(found.decay[m.id] ?? 0),
          similarity: null,
          use_count: m.use_count,
          last_used: m.last_used,
          age_days: ageDays(m, now),
          review_priority: m.review_priority > 0 ? round(m.review_priority) : null,
        }));
      if (i.page === null && i.page_size === null) return ok({ count: results.length, results });
      const p = paginate(results, i.page, i.page_size);
      return ok({ count: p.items.length, results: p.items, pagination: p.pagination });
    },
  },
  {
    name: "search_unified",
    description:
      "Search across STM and LTM with unified ranking: memsync's memories (source stm) and those promoted to the long-term vault (source ltm, path the note). Args: query, tags, status, limit (1-100), stm_weight and ltm_weight (0.0-2.0), window_days, min_score, page, page_size, preview_length.",
    input: v.object({
      query: opt(Str(50_000)),
      tags: opt(Tags),
      status: StatusIn,
      limit: v.optional(IntIn(1, 100), 10),
      stm_weight: v.optional(Weight, 1),
      ltm_weight: v.optional(Weight, 0.7),
      window_days: opt(IntIn(1, 3650)),
      min_score: opt(Score01),
      ...page,
      preview_length: opt(IntIn(0, 5000)),
    }),
    output: SEARCH_OUT,
    flags: READ,
    ops: ["search", "list"],
    async run(ops, i) {
      const found = await findMemories(ops, i, i.limit * 2);
      const results = found.memories
        .filter((m) => i.min_score === null || (found.decay[m.id] ?? 0) >= i.min_score)
        .map((m) => {
          const ltm = m.status === "promoted";
          return {
            content: truncate(m.content, i.preview_length ?? 300),
            title: `Memory ${m.id.slice(0, 8)}`,
            source: ltm ? "ltm" : "stm",
            score: round((found.decay[m.id] ?? 0) * (ltm ? i.ltm_weight : i.stm_weight)),
            path: ltm ? m.promoted_to : null,
            memory_id: m.id,
            tags: m.meta.tags,
            created_at: m.created_at,
            last_used: m.last_used,
          };
        })
        .sort((a, b) => b.score - a.score);
      const seen = new Set<string>();
      const unique = results.filter((r) => {
        const key = r.content.slice(0, 100).toLowerCase().trim();
        return seen.has(key) ? false : (seen.add(key), true);
      }).slice(0, i.limit);
      if (i.page === null && i.page_size === null) return ok({ count: unique.length, results: unique });
      const p = paginate(unique, i.page, i.page_size);
      return ok({ count: p.items.length, results: p.items, pagination: p.pagination });
    },
  },
  {
    name: "touch_memory",
    description: "Reinforce a memory to reset its decay: use_count + 1, last_used now; boost_strength adds 0.1 to its strength (at most 2.0). Returns old_score, new_score, use_count, strength.",
    input: v.object({ memory_id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)), boost_strength: v.optional(v.boolean(), false) }),
    output: shape({ memory_id: T.s, old_score: T.n, new_score: T.n, use_count: T.i, strength: T.n, message: T.s }),
    flags: WRITE,
    ops: ["score", "touch"],
    async run(ops, i) {
      const before = await ops<{ scores: { id: string; score: number }[]; not_found: string[] }>("score", { ids: [i.memory_id] });
      if (!before.scores.length) throw new MemsyncError("not_found", `Memory not found: ${i.memory_id}`);
      const id = before.scores[0]!.id;
      const touched = await ops<{ memories: Memory[] }>("touch", { ids: [id], boost: i.boost_strength });
      const m = touched.memories[0]!;
      const after = (await scoresOf(ops, [id])).get(id)!;
      const [o, n] = [before.scores[0]!.score, after.score as number];
      return ok({ memory_id: id, old_score: round(o), new_score: round(n), use_count: m.use_count, strength: round(m.strength), message: `Memory reinforced. Score: ${o.toFixed(2)} -> ${n.toFixed(2)}` });
    },
  },
  {
    name: "open_memories",
    description:
      "Retrieve specific memories by id with full detail (the whole content). Args: memory_ids (one id or a list, max 100), include_relations, include_scores, page, page_size (max 100). Returns memories, not_found ids and, when paged, pagination.",
    input: v.object({
      memory_ids: v.union([v.pipe(v.string(), v.maxLength(200)), v.pipe(v.array(v.pipe(v.string(), v.maxLength(200))), v.maxLength(100))]),
      include_relations: v.optional(v.boolean(), true),
      include_scores: v.optional(v.boolean(), true),
      ...page,
    }),
    output: shape({ count: T.i, memories: T.a, not_found: T.a, pagination: T.o }, ["count", "memories", "not_found"]),
    flags: READ,
    ops: ["get", "score"],
    async run(ops, i) {
      const ids: string[] = typeof i.memory_ids === "string" ? [i.memory_ids] : i.memory_ids;
      if (ids.some((id) => !id.trim())) throw new MemsyncError("invalid_input", "memory_ids: an id is empty");
      const got = ids.length ? await ops<{ found: { memory: Memory; outgoing: Relation[]; incoming: Relation[] }[]; not_found: string[] }>("get", { ids }) : { found: [], not_found: [] };
      const scores = i.include_scores ? await scoresOf(ops, got.found.map((f) => f.memory.id)) : new Map();
      const now = nowS();
      const memories = got.found.map(({ memory: m, outgoing, incoming }) => ({
        id: m.id,
        content: m.content,
        entities: m.entities,
        tags: m.meta.tags,
        source: m.meta.source,
        context: m.meta.context,
        created_at: m.created_at,
        last_used: m.last_used,
        use_count: m.use_count,
        strength: m.strength,
        status: m.status,
        promoted_at: m.promoted_at,
        promoted_to: m.promoted_to,
        ...(i.include_scores ? { score: round(scores.get(m.id)?.score ?? 0), age_days: ageDays(m, now) } : {}),
        ...(i.include_relations
          ? {
              relations: {
                outgoing: outgoing.map((r) => ({ to: r.to_memory_id, type: r.relation_type, strength: round(r.strength) })),
                incoming: incoming.map((r) => ({ from: r.from_memory_id, type: r.relation_type, strength: round(r.strength) })),
              },
            }
          : {}),
      }));
      if (i.page === null && i.page_size === null) return ok({ count: memories.length, memories, not_found: got.not_found });
      const p = paginate(memories, i.page, i.page_size);
      return ok({ count: p.items.length, memories: p.items, not_found: got.not_found, pagination: p.pagination });
    },
  },
  {
    name: "read_graph",
    description:
      "The knowledge graph of memories and relations, one page at a time (newest first; default page_size 20, max 100): each memory with its gist (or the first 300 characters; open_memories gives the whole text), the relations touching the page, stats over the whole store, and pagination. Args: status ('active', 'promoted', 'archived' or 'all'), include_scores, limit (1-10,000), page, page_size.",
    input: v.object({ status: v.optional(v.picklist([...STATUS, "all"]), "active"), include_scores: v.optional(v.boolean(), true), limit: opt(IntIn(1, 10_000)), ...page }),
    output: shape({ memories: T.a, relations: T.a, stats: T.o, pagination: T.o }),
    flags: READ,
    ops: ["graph"],
    async run(ops, i) {
      const pageNo: number = i.page ?? 1;
      const size: number = i.page_size ?? 20;
      const offset = (pageNo - 1) * size;
      const cap: number = i.limit ?? Number.MAX_SAFE_INTEGER;
      const take = Math.max(0, Math.min(size, cap - offset));
      const g = await ops<any>("graph", { status: [i.status], offset: Math.min(offset, 10_000_000), limit: Math.max(1, take) });
      const now = nowS();
      const shown: Memory[] = take ? g.memories : [];
      const ids = new Set(shown.map((m) => m.id));
      const total = Math.min(g.total_memories as number, cap);
      const touching = (g.relations as Relation[]).filter((r) => ids.has(r.from_memory_id) || ids.has(r.to_memory_id));
      const pages = Math.max(1, Math.ceil(total / size));
      return ok({
        memories: shown.map((m) => ({
          id: m.id,
          content: m.gist ?? truncate(m.content, 300),
          entities: m.entities,
          tags: m.meta.tags,
          created_at: m.created_at,
          last_used: m.last_used,
          use_count: m.use_count,
          strength: m.strength,
          status: m.status,
          ...(i.include_scores ? { score: round(g.decay_scores[m.id] ?? 0), age_days: ageDays(m, now) } : {}),
        })),
        relations: touching
          .slice(0, MAX_GRAPH_RELATIONS)
          .map((r) => ({ id: r.id, from: r.from_memory_id, to: r.to_memory_id, type: r.relation_type, strength: round(r.strength), created_at: r.created_at })),
        stats: {
          total_memories: g.total_memories,
          total_relations: g.total_relations,
          avg_score: round(g.avg_score),
          avg_use_count: round(g.avg_use_count, 2),
          status_filter: i.status,
          // a page's memories may have more relations than an answer holds
          ...(touching.length > MAX_GRAPH_RELATIONS ? { relations_shown: MAX_GRAPH_RELATIONS, relations_on_page: touching.length } : {}),
          ...(i.limit !== null ? { limited_to: i.limit } : {}),
        },
        pagination: { page: pageNo, page_size: size, total_count: total, total_pages: pages, has_more: pageNo < pages },
      });
    },
  },
  {
    name: "create_relation",
    description: `Link two memories with a typed relationship. Args: from_memory_id, to_memory_id, relation_type (${RELATION_TYPES.join(", ")}), strength (0.0-1.0, default 1.0), metadata. Returns relation_id, from, to, type, strength.`,
    input: v.object({
      from_memory_id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
      to_memory_id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
      relation_type: v.picklist(RELATION_TYPES),
      strength: v.optional(Score01, 1),
      metadata: opt(v.record(v.string(), v.unknown())),
    }),
    output: shape({ relation_id: T.s, from: T.s, to: T.s, type: T.s, strength: T.n, message: T.s }),
    flags: WRITE,
    ops: ["relate"],
    async run(ops, i) {
      const out = await ops<{ relation: Relation }>("relate", { from: i.from_memory_id, to: i.to_memory_id, type: i.relation_type, strength: i.strength, metadata: i.metadata ?? {} });
      const r = out.relation;
      return ok({ relation_id: r.id, from: r.from_memory_id, to: r.to_memory_id, type: r.relation_type, strength: r.strength, message: `Relation created: ${r.from_memory_id} --[${r.relation_type}]--> ${r.to_memory_id}` });
    },
  },
  {
    name: "cluster_memories",
    description:
      "Cluster similar active memories (for consolidation), or find likely duplicate pairs. Args: strategy ('similarity'), threshold (0.0-1.0; default memsync's 0.6), max_cluster_size (1-100), find_duplicates, duplicate_threshold (default 0.88). Cluster ids are stable: the same memories give the same id, which consolidate_memories takes.",
    input: v.object({
      strategy: v.optional(v.picklist(["similarity"]), "similarity"),
      threshold: opt(Score01),
      max_cluster_size: opt(IntIn(1, 100)),
      find_duplicates: v.optional(v.boolean(), false),
      duplicate_threshold: opt(Score01),
    }),
    output: shape({ mode: T.s, clusters_found: T.i, clusters: T.a, duplicates_found: T.i, duplicates: T.a, message: T.s }, ["mode", "message"]),
    flags: READ,
    ops: ["consolidate"],
    async run(ops, i) {
      const threshold = i.find_duplicates ? (i.duplicate_threshold ?? 0.88) : (i.threshold ?? undefined);
      const out = await ops<any>("consolidate", { mode: "preview", ...(threshold !== undefined ? { threshold: Math.max(0.05, threshold) } : {}) });
      const clusters = (out.clusters as any[]).filter((c) => i.max_cluster_size === null || c.members.length <= i.max_cluster_size);
      if (i.find_duplicates) {
        const pairs: Record<string, unknown>[] = [];
        for (const c of clusters)
          for (let a = 0; a < c.members.length; a++)
            for (let b = a + 1; b < c.members.length; b++) {
              const [x, y] = [c.members[a], c.members[b]];
              pairs.push({ id1: x.id, id2: y.id, content1_preview: x.content.slice(0, 100), content2_preview: y.content.slice(0, 100), similarity: round(c.cohesion) });
            }
        return ok({ mode: "duplicate_detection", duplicates_found: pairs.length, duplicates: pairs.slice(0, 20), message: `Found ${pairs.length} potential duplicate pairs` });
      }
      return ok({
        mode: "clustering",
        clusters_found: clusters.length,
        strategy: i.strategy,
        threshold: out.threshold,
        clusters: clusters.slice(0, 20).map((c) => ({
          id: c.id,
          size: c.members.length,
          cohesion: round(c.cohesion),
          suggested_action: c.cohesion >= 0.9 ? "auto-merge" : c.cohesion >= 0.75 ? "llm-review" : "keep-separate",
          memory_ids: c.members.map((m: any) => m.id),
          content_previews: c.members.slice(0, 3).map((m: any) => m.content.slice(0, 80)),
        })),
        message: `Found ${clusters.length} clusters using ${i.strategy} strategy`,
      });
    },
  },
  {
    name: "consolidate_memories",
    description:
      "Merge or link similar memories: mode 'preview' (no changes), 'apply' (merge a cluster into one memory, its sources replaced, one commit) or 'link' (relate its memories). Args: cluster_id (from cluster_memories; required unless auto_detect), mode, auto_detect (every cluster of cohesion at least cohesion_threshold), cohesion_threshold (0.0-1.0, default 0.75).",
    input: v.object({ cluster_id: opt(v.pipe(v.string(), v.maxLength(100))), mode: v.optional(v.picklist(["preview", "apply", "link"]), "preview"), auto_detect: v.optional(v.boolean(), false), cohesion_threshold: v.optional(Score01, 0.75) }),
    output: shape({ mode: T.s, message: T.s }, ["mode"]),
    flags: { readOnly: false, destructive: true, idempotent: false },
    ops: ["consolidate"],
    async run(ops, i) {
      const previewOf = (c: any) => ({
        cluster_id: c.id,
        memory_count: c.members.length,
        cohesion: round(c.cohesion),
        source_ids: c.members.map((m: any) => m.id),
        merged_content: c.merged?.content ?? null,
        merged_tags: c.merged?.tags ?? [],
        merged_entities: c.merged?.entities ?? [],
        merged_strength: c.merged ? round(c.merged.strength) : null,
        ...(c.problem ? { problem: c.problem } : {}),
      });
      const resultOf = (a: any) => ({ cluster_id: a.cluster, cohesion: round(a.cohesion), source_ids: a.sources, new_memory_id: a.into ?? null, relations_created: a.relations_created.length, relation_ids: a.relations_created });
      if (i.auto_detect) {
        const found = await ops<any>("consolidate", { mode: "preview", threshold: Math.max(0.05, i.cohesion_threshold) });
        const candidates = (found.clusters as any[]).filter((c) => c.cohesion >= i.cohesion_threshold && !c.problem);
        if (i.mode === "preview") {
          const previews = candidates.slice(0, 5).map(previewOf);
          return ok({ mode: "auto_detect_preview", candidates_found: candidates.length, showing: previews.length, previews, message: `Found ${candidates.length} clusters ready for consolidation` });
        }
        const applied = candidates.length
          ? ((await ops<any>("consolidate", { mode: i.mode, threshold: Math.max(0.05, i.cohesion_threshold), clusters: candidates.map((c) => c.id) })).applied as any[])
          : [];
        const results = applied.map(resultOf);
        if (i.mode === "apply") {
          const saved = applied.reduce((n, a) => n + Math.max(0, a.sources.length - 1), 0);
          return ok({ mode: "auto_detect_apply", consolidated_clusters: results.length, total_memories_saved: saved, results, message: `Consolidated ${results.length} clusters, saved ${saved} memory slots` });
        }
        const rels = applied.reduce((n, a) => n + a.relations_created.length, 0);
        return ok({ mode: "auto_detect_link", linked_clusters: results.length, total_relations_created: rels, results, message: `Linked ${results.length} clusters with ${rels} relations` });
      }
      if (!i.cluster_id) throw new MemsyncError("usage", "cluster_id is required when auto_detect is False (use auto_detect=True to find clusters automatically)");
      const out = await ops<any>("consolidate", { mode: i.mode, clusters: [i.cluster_id] });
      if (i.mode === "preview") {
        const c = (out.clusters as any[])[0];
        if (!c) throw new MemsyncError("not_found", `Cluster ${i.cluster_id} not found: get fresh cluster ids from cluster_memories`);
        return ok({ mode: "preview", ...previewOf(c) });
      }
      const a = (out.applied as any[])[0];
      if (!a) throw new MemsyncError("not_found", `Cluster ${i.cluster_id} not found: get fresh cluster ids from cluster_memories`);
      return ok({ mode: i.mode, ...resultOf(a) });
    },
  },
  {
    name: "gc",
    description:
      "Remove or archive low-scoring memories (decay score under the forget threshold), lowest first. Args: dry_run (default true: preview only), archive_instead, limit (1-10,000). Returns removed_count, archived_count, freed_score_sum, memory_ids (first 10), total_affected.",
    input: v.object({ dry_run: v.optional(v.boolean(), true), archive_instead: v.optional(v.boolean(), false), limit: opt(IntIn(1, 10_000)) }),
    output: shape({ dry_run: T.b, removed_count: T.i, archived_count: T.i, freed_score_sum: T.n, memory_ids: T.a, total_affected: T.i, message: T.s }),
    flags: DESTROY,
    ops: ["gc"],
    async run(ops, i) {
      const out = await ops<any>("gc", { dry_run: i.dry_run, archive: i.archive_instead, limit: i.limit ?? 0 });
      const affected: string[] = i.dry_run ? out.candidates.map((c: any) => c.id) : out.removed;
      const set = new Set(affected);
      const freed = (out.candidates as any[]).filter((c) => set.has(c.id)).reduce((s, c) => s + c.score, 0);
      return ok({
        dry_run: i.dry_run,
        removed_count: i.archive_instead ? 0 : affected.length,
        archived_count: i.archive_instead ? affected.length : 0,
        freed_score_sum: round(freed),
        memory_ids: affected.slice(0, 10),
        total_affected: affected.length,
        message: `${i.dry_run ? "Would remove" : "Removed"} ${affected.length} low-scoring memories (threshold: ${out.forget_threshold})`,
      });
    },
  },
  {
    name: "promote_memory",
    description:
      "Promote high-value memories to long-term storage: an Obsidian-compatible Markdown note in the vault (MEMSYNC_VAULT where memsync runs), the memory marked promoted. Args: memory_id, auto_detect (every memory the promotion rule selects), dry_run, target ('obsidian'), force (promote memory_id even if it does not meet the criteria).",
    input: v.object({ memory_id: opt(v.pipe(v.string(), v.maxLength(200))), auto_detect: v.optional(v.boolean(), false), dry_run: v.optional(v.boolean(), false), target: v.optional(v.string(), "obsidian"), force: v.optional(v.boolean(), false) }),
    output: shape({ dry_run: T.b, candidates_found: T.i, promoted_count: T.i, promoted_ids: T.a, candidates: T.a, message: T.s }),
    flags: WRITE,
    ops: ["promote", "score", "get"],
    async run(ops, i) {
      if (i.target !== "obsidian") throw new MemsyncError(i.target === "bear" ? "unavailable" : "invalid_input", `target ${JSON.stringify(i.target.slice(0, 40))}: memsync promotes to Obsidian-compatible Markdown only (target "obsidian")`);
      if (!i.memory_id && !i.auto_detect) throw new MemsyncError("usage", "Must specify memory_id or set auto_detect=true");
      if (i.memory_id) {
        const s = (await ops<any>("score", { ids: [i.memory_id] })).scores[0];
        if (!s) throw new MemsyncError("not_found", `Memory not found: ${i.memory_id}`);
        if (s.status === "promoted") throw new MemsyncError("conflict", `Memory already promoted: ${s.id}`);
        if (!s.promotion.eligible && !i.force) throw new MemsyncError("invalid_input", `Memory does not meet promotion criteria: ${s.promotion.reason} (score ${round(s.score)})`);
      }
      const out = await ops<any>("promote", i.memory_id ? { ids: [i.memory_id], dry_run: i.dry_run } : { auto: true, dry_run: i.dry_run });
      const picked = out.promoted as { id: string; score: number; reason: string }[];
      const shown = picked.slice(0, 10);
      const got = shown.length ? await ops<{ found: { memory: Memory }[] }>("get", { ids: shown.map((p) => p.id) }) : { found: [] };
      const byId = new Map(got.found.map((f) => [f.memory.id, f.memory]));
      const now = nowS();
      const promoted = i.dry_run ? [] : picked.map((p) => p.id);
      return ok({
        dry_run: i.dry_run,
        candidates_found: picked.length,
        promoted_count: promoted.length,
        promoted_ids: promoted,
        candidates: shown.map((p) => {
          const m = byId.get(p.id);
          return { id: p.id, content_preview: (m?.content ?? "").slice(0, 100), reason: p.reason, score: round(p.score), use_count: m?.use_count ?? 0, age_days: m ? ageDays(m, now) : 0 };
        }),
        message: `${i.dry_run ? "Would promote" : "Promoted"} ${i.dry_run ? picked.length : promoted.length} memories to ${i.target}`,
      });
    },
  },
  {
    name: "analyze_message",
    description:
      "Analyze a message for memory-worthy content (decisions, preferences, problems, solutions it states), without saving anything. Returns should_save, confidence, suggested_entities, suggested_tags, suggested_strength, reasoning, phrase_signals: what to pass to save_memory.",
    input: v.object({ message: Message }),
    output: plain({ should_save: T.b, confidence: T.n, suggested_entities: T.a, suggested_tags: T.a, suggested_strength: T.n, reasoning: T.s, phrase_signals: T.o }),
    flags: READ,
    ops: ["capture"],
    async run(ops, i) {
      const out = await ops<any>("capture", { text: i.message, dry_run: true });
      const caps = out.captures as Record<string, any>[];
      const entities = [...new Set(caps.flatMap((c) => (c.entities as string[] | undefined) ?? []))];
      const tags = [...new Set(caps.flatMap((c) => [...((c.meta?.tags as string[] | undefined) ?? []), c.type as string]).filter(Boolean))];
      const confidence = caps.length ? Math.max(...caps.map((c) => (typeof c.confidence === "number" ? c.confidence : 0.8))) : 0;
      const strong = caps.some((c) => c.importance === "high" || c.importance === "critical");
      const kinds = caps.map((c) => c.type as string);
      return {
        should_save: caps.length > 0,
        confidence: round(confidence, 3),
        suggested_entities: entities,
        suggested_tags: tags,
        suggested_strength: caps.some((c) => c.importance === "critical") ? 2 : strong ? 1.5 : 1,
        reasoning: caps.length ? `States ${caps.length} memory-worthy item(s): ${kinds.join(", ")}` : (out.reason ?? "No decision, preference, problem or solution stated"),
        phrase_signals: { save_request: caps.length > 0, recall_request: recallIntent(i.message).recall_request, importance_marker: strong, matched_phrases: kinds },
      };
    },
  },
  {
    name: "analyze_for_recall",
    description:
      "Analyze a message for recall/search intent (\"what did we decide about ...\", \"do you remember ...\") and whether stored memories match it. Returns should_search, confidence, suggested_query, suggested_tags, suggested_entities, reasoning, phrase_signals: what to pass to search_memory.",
    input: v.object({ message: Message }),
    output: plain({ should_search: T.b, confidence: T.n, suggested_query: T.s, suggested_tags: T.a, suggested_entities: T.a, reasoning: T.s, phrase_signals: T.o }),
    flags: READ,
    ops: ["recall"],
    async run(ops, i) {
      const intent = recallIntent(i.message);
      const query = intent.query || i.message.trim();
      const found = query ? await ops<any>("recall", { query: query.slice(0, 100_000), limit: 5 }) : { query: "", total: 0, words: [], items: [] };
      const matches = found.total as number;
      const should = intent.recall_request || matches > 0;
      const confidence = intent.recall_request ? 0.9 : matches > 0 ? 0.5 : 0.2;
      const reasoning = [
        intent.recall_request ? `Explicit recall request: ${intent.matched_phrases.join(", ")}` : "No recall phrase",
        `${matches} stored memor${matches === 1 ? "y matches" : "ies match"}`,
      ].join("; ");
      return {
        should_search: should,
        confidence,
        // recall's echo of the query: no secret or <private> span of the message comes back
        suggested_query: intent.recall_request ? (found.query as string) : (found.words as string[]).join(" ") || (found.query as string).slice(0, 50),
        suggested_tags: [],
        suggested_entities: [],
        reasoning,
        phrase_signals: { save_request: false, recall_request: intent.recall_request, importance_marker: false, matched_phrases: intent.matched_phrases },
      };
    },
  },
  {
    name: "auto_recall_process_message",
    description:
      "Recall the memories related to a message's topics and reinforce them (touch: use_count + 1, last_used now), silently: nothing is surfaced, decay is reset. Call it when the user discusses substantive topics. Returns topics_found, memories_found, memories_reinforced.",
    input: v.object({ message: Message }),
    output: shape({ enabled: T.b, topics_found: T.a, memories_found: T.i, memories_reinforced: T.a, mode: T.s, message: T.s }),
    flags: WRITE,
    ops: ["recall", "touch"],
    async run(ops, i) {
      if (!i.message.trim()) throw new MemsyncError("invalid_input", "message cannot be empty");
      const found = await ops<any>("recall", { query: i.message.trim(), limit: 5 });
      const ids = (found.items as { id: string }[]).map((x) => x.id);
      if (ids.length) await ops("touch", { ids });
      const topics = found.words as string[];
      const summary = ids.length
        ? `Auto-recall: Found ${ids.length} related memories, reinforced ${ids.length} to prevent decay`
        : topics.length
          ? `Detected ${topics.length} topic(s), but no related memories found`
          : "No topics detected - message too short or simple";
      return ok({ enabled: true, topics_found: topics, memories_found: ids.length, memories_reinforced: ids, mode: "silent", message: summary });
    },
  },
  {
    name: "split_memory",
    description:
      "Split a complex memory into atomic parts (at least two), one commit: each part a new memory inheriting the original's strength, use_count and created_at, related to it by split_from; the original is removed. Args: memory_id, split_contents, split_tags and split_entities (one list per part; default the original's).",
    input: v.object({
      memory_id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
      split_contents: v.pipe(v.array(Str(50_000)), v.maxLength(1000)),
      split_tags: opt(v.pipe(v.array(Tags), v.maxLength(1000))),
      split_entities: opt(v.pipe(v.array(v.pipe(v.array(Str(200)), v.maxLength(100))), v.maxLength(1000))),
    }),
    output: shape({ original_id: T.s, original_status: T.s, new_memory_ids: T.a, relations_created: T.a, message: T.s }),
    flags: { readOnly: false, destructive: true, idempotent: false },
    ops: ["split"],
    async run(ops, i) {
      const n = i.split_contents.length;
      for (const [k, v] of [["split_tags", i.split_tags], ["split_entities", i.split_entities]] as const)
        if (v !== null && v.length !== n) throw new MemsyncError("invalid_input", `${k} has ${v.length} lists for ${n} parts`);
      const parts = i.split_contents.map((content: string, k: number) => ({ content, ...(i.split_tags ? { tags: i.split_tags[k] } : {}), ...(i.split_entities ? { entities: i.split_entities[k] } : {}) }));
      const out = await ops<any>("split", { id: i.memory_id, parts });
      const ids = (out.parts as Memory[]).map((m) => m.id);
      return ok({ original_id: out.original, original_status: out.original_is, new_memory_ids: ids, relations_created: out.relations_created, message: `Split ${out.original} into ${ids.length} atomic memories` });
    },
  },
];

/** CortexGraph tools memsync does not support: listed, answering a clear isError. */
const UNSUPPORTED: { name: string; description: string; input: Params; why: string }[] = [
  {
    name: "backfill_embeddings",
    description: "Generate embeddings for memories that lack them. Not supported by memsync: it answers an isError (code unavailable).",
    input: v.object({ model: v.optional(v.string(), "all-MiniLM-L6-v2"), limit: opt(IntIn(1, 10_000)), force: v.optional(v.boolean(), false), dry_run: v.optional(v.boolean(), false) }),
    why: "backfill_embeddings is not supported: memsync keeps no embeddings (search is full-text, bm25 over content, gist, tags and entities)",
  },
  {
    name: "get_performance_metrics",
    description: "Get current performance metrics. Not supported by memsync: it answers an isError (code unavailable).",
    input: v.object({}),
    why: "get_performance_metrics is not supported: memsync keeps no per-operation metrics in the server (its measured figures are in docs/benchmarks.md)",
  },
  {
    name: "reset_performance_metrics",
    description: "Reset all performance metrics. Not supported by memsync: it answers an isError (code unavailable).",
    input: v.object({}),
    why: "reset_performance_metrics is not supported: memsync keeps no per-operation metrics in the server",
  },
];

/** A failure: CortexGraph's {"success": false, "message"} with memsync's code beside it. */
function failure(e: unknown): ToolResult {
  const err = isMemsyncError(e) ? e : coded(e);
  const error = { code: err.code, message: oneLine(err.message) };
  return { content: [{ type: "text", text: JSON.stringify({ success: false, message: error.message, error }) }], isError: true, _meta: { "memsync/error": error } };
}

function parse(name: string, schema: Params, args: unknown): any {
  const parsed = parseWith(schema, args ?? {});
  if (parsed.ok) return parsed.value;
  throw new MemsyncError("invalid_input", `${name}: ${parsed.problem}`);
}

const inputJson = (s: Params): JsonSchema => {
  const { $schema: _, ...json } = jsonSchemaOf(s, "input");
  return json;
};

export interface CgToolInfo {
  name: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  supported: boolean;
}

let built: { tool: CgTool | null; name: string; description: string; input: JsonSchema; output: JsonSchema; flags: Flags; schema: Params; why?: string }[] | undefined;

/** The profile's tools in this build (schemas built once per process). */
function definitions() {
  built ??= [
    ...TOOLS.filter((t) => t.ops.every((o) => opNamed(o))).map((t) => ({ tool: t, name: t.name, description: t.description, input: inputJson(t.input), output: t.output, flags: t.flags, schema: t.input })),
    ...UNSUPPORTED.map((u) => ({ tool: null, name: u.name, description: u.description, input: inputJson(u.input), output: shape({}), flags: READ, schema: u.input, why: u.why })),
  ];
  return built;
}

/** Names and flags of the tools this build serves (tests, docs). */
export function cortexgraphTools(): CgToolInfo[] {
  return definitions().map((d) => ({
    name: d.name,
    annotations: { readOnlyHint: d.flags.readOnly, destructiveHint: d.flags.destructive, idempotentHint: d.flags.idempotent, openWorldHint: false },
    supported: d.tool !== null,
  }));
}

export function registerCortexgraphTools(server: McpServer, callOf: CallFactory): void {
  for (const d of definitions()) {
    const annotations = { readOnlyHint: d.flags.readOnly, destructiveHint: d.flags.destructive, idempotentHint: d.flags.idempotent, openWorldHint: false };
    server.registerTool(d.name, { description: d.description, inputSchema: described(d.input), outputSchema: described(d.output), annotations }, async (args: Record<string, unknown>) => {
      try {
        const input = parse(d.name, d.schema, args);
        if (!d.tool) throw new MemsyncError("unavailable", d.why!);
        const tool = d.tool;
        const ops: Ops = (name, i) => runOp(name, callOf(), i);
        // one writer at a time in this process (ops/gate.ts); a tool's several operations run together
        const out = await processGate.run(!tool.flags.readOnly, () => tool.run(ops, input));
        const r = jsonResult(out, tool.flags.readOnly);
        // a read over the bound is refused: in CortexGraph's failure shape, as every failure here
        const refusal = r.isError ? (r._meta?.["memsync/error"] as { code: ErrorCode; message: string }) : undefined;
        return refusal ? failure(new MemsyncError(refusal.code, refusal.message)) : r;
      } catch (e) {
        return failure(e);
      }
    });
  }
}
