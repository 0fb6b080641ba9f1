import * as v from "../../core/model/valibot.ts";
import type { McpServer } from "@modelcontextprotocol/server";
import { MemsyncError } from "../../core/errors.ts";
import { parseWith } from "../../core/model/validate.ts";
import { cleanText } from "../../core/redact.ts";
import * as kg from "../../core/knowledge-graph.ts";
import { entityRecord, graphOfMemories, KG_TAG, type LoadedGraph, relationRecord } from "../../core/knowledge-graph-records.ts";
import type { Memory } from "../../core/model/memory.ts";
import { runOp } from "../../ops/catalogue/run.ts";
import { processGate } from "../../ops/gate.ts";
import { storeExists } from "../../ops/init.ts";
import { errorResult, MAX_ANSWER_CHARS, type ToolResult } from "./results.ts";
import { described } from "./schemas.ts";
import type { CallFactory } from "./server.ts";
import TOOLS from "./memory-tools.json" with { type: "json" };

// The `memory` profile: the reference memory server's nine tools (exact names, schemas, answers;
// memory-tools.json is its tools/list) and its memory://knowledge-graph resource, over memsync's
// own record files, mapped as core/knowledge-graph-records.ts says (one memory per entity and per
// relation). They sync and merge like every other memory; the graph is read back from them in
// creation order (seq), so read_graph answers what the reference answers for the same calls.

export { KG_TAG };
export const KG_URI = "memory://knowledge-graph";

/** The graph as loaded: each entity and relation object, with the record it came from. */
type Loaded = LoadedGraph;

const Str = v.string();
const EntityIn = v.object({ name: Str, entityType: Str, observations: v.array(Str) });
const RelationIn = v.object({ from: Str, to: Str, relationType: Str });
const INPUTS = {
  create_entities: v.object({ entities: v.array(EntityIn) }),
  create_relations: v.object({ relations: v.array(RelationIn) }),
  add_observations: v.object({ observations: v.array(v.object({ entityName: Str, contents: v.array(Str) })) }),
  delete_entities: v.object({ entityNames: v.array(Str) }),
  delete_observations: v.object({ deletions: v.array(v.object({ entityName: Str, observations: v.array(Str) })) }),
  delete_relations: v.object({ relations: v.array(RelationIn) }),
  read_graph: v.object({}),
  search_nodes: v.object({ query: Str }),
  open_nodes: v.object({ names: v.array(Str) }),
} as const;

async function load(callOf: CallFactory): Promise<Loaded> {
  // no store yet: the empty graph the reference starts with (the first write creates the store)
  if (!storeExists(callOf().env)) return { graph: { entities: [], relations: [] }, ids: new Map(), nextSeq: 1 };
  const out = await runOp<{ memories: Memory[] }>("list", callOf(), { tag: [KG_TAG], limit: 0 });
  return graphOfMemories(out.memories);
}

/** What changed between the loaded graph and the graph now, written as memsync operations. */
async function persist(callOf: CallFactory, l: Loaded): Promise<void> {
  const now = new Set<object>([...l.graph.entities, ...l.graph.relations]);
  const gone = [...l.ids].filter(([o]) => !now.has(o)).map(([, v]) => v.id);
  if (gone.length) await runOp("delete", callOf(), { ids: gone });
  for (const e of l.graph.entities) {
    const was = l.ids.get(e);
    if (was && was.observations !== JSON.stringify(e.observations)) {
      const rec = entityRecord(e, 0);
      await runOp("update", callOf(), { id: was.id, patch: { content: rec.content, meta: { extra: { knowledge_graph: { observations: e.observations } } } } });
    }
  }
  let seq = l.nextSeq;
  const fresh = [
    ...l.graph.entities.filter((e) => !l.ids.has(e)).map((e) => entityRecord(e, seq++)),
    ...l.graph.relations.filter((r) => !l.ids.has(r)).map((r) => relationRecord(r, seq++)),
  ];
  if (fresh.length) await runOp("save", callOf(), { memories: fresh });
}

/** A graph answer within the bound: the first entities that fit, the relations touching them. */
function boundedGraph(g: kg.Graph): { graph: kg.Graph; text: string; truncated?: { entities: number; shown: number } } {
  let text = JSON.stringify(g, null, 2);
  if (text.length <= MAX_ANSWER_CHARS) return { graph: g, text };
  let n = g.entities.length;
  let cut = g;
  while (n > 0 && text.length > MAX_ANSWER_CHARS) {
    n = Math.floor(n * Math.min(0.9, MAX_ANSWER_CHARS / text.length));
    const names = new Set(g.entities.slice(0, n).map((e) => e.name));
    cut = { entities: g.entities.slice(0, n), relations: g.relations.filter((r) => names.has(r.from) || names.has(r.to)).slice(0, 200) };
    text = JSON.stringify(cut, null, 2);
  }
  return { graph: cut, text, truncated: { entities: g.entities.length, shown: n } };
}

function graphResult(g: kg.Graph): ToolResult {
  const b = boundedGraph(g);
  const r: ToolResult = { content: [{ type: "text", text: b.text }], structuredContent: { ...b.graph } };
  if (b.truncated) r._meta = { "memsync/truncated": b.truncated };
  return r;
}

const done = (what: string): ToolResult => ({ content: [{ type: "text", text: `${what} deleted successfully` }], structuredContent: { success: true, message: `${what} deleted successfully` } });
const listed = (key: string, value: unknown): ToolResult => ({ content: [{ type: "text", text: JSON.stringify(value, null, 2) }], structuredContent: { [key]: value } });

type Handler = (l: Loaded, input: any) => ToolResult;
const HANDLERS: Record<keyof typeof INPUTS, { writes: boolean; run: Handler }> = {
  create_entities: { writes: true, run: (l, i) => listed("entities", kg.createEntities(l.graph, i.entities)) },
  create_relations: { writes: true, run: (l, i) => listed("relations", kg.createRelations(l.graph, i.relations)) },
  add_observations: { writes: true, run: (l, i) => listed("results", kg.addObservations(l.graph, i.observations)) },
  delete_entities: { writes: true, run: (l, i) => (kg.deleteEntities(l.graph, i.entityNames), done("Entities")) },
  delete_observations: { writes: true, run: (l, i) => (kg.deleteObservations(l.graph, i.deletions), done("Observations")) },
  delete_relations: { writes: true, run: (l, i) => (kg.deleteRelations(l.graph, i.relations), done("Relations")) },
  read_graph: { writes: false, run: (l) => graphResult(l.graph) },
  search_nodes: { writes: false, run: (l, i) => graphResult(kg.searchNodes(l.graph, i.query)) },
  open_nodes: { writes: false, run: (l, i) => graphResult(kg.openNodes(l.graph, i.names)) },
};

/**
 * One call at a time, as a writer of this process's gate (ops/gate.ts): each reads the graph,
 * changes it and writes the difference, with no other write of this process (another tool, an
 * API route of the same server) in between.
 */
const serial = <T>(f: () => Promise<T>): Promise<T> => processGate.run(true, f);

/**
 * A write's input as its records will hold it (secrets redacted, <private> spans dropped, as every
 * write path does): the graph is changed with these, so the answer never repeats a secret the
 * store refused, and an observation given again with its secret matches the one kept.
 */
function cleaned(value: unknown): unknown {
  if (typeof value === "string") return cleanText(value).text;
  if (Array.isArray(value)) return value.map(cleaned);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, cleaned(x)]));
  return value;
}

export function registerMemoryTools(server: McpServer, callOf: CallFactory): void {
  for (const t of TOOLS) {
    const name = t.name as keyof typeof INPUTS;
    const handler = HANDLERS[name];
    server.registerTool(
      name,
      { title: t.title, description: t.description, inputSchema: described(t.inputSchema), outputSchema: described(t.outputSchema), annotations: t.annotations },
      (args: Record<string, unknown>) =>
        serial(async () => {
          try {
            const parsed = parseWith(INPUTS[name], args ?? {});
            if (!parsed.ok) throw new MemsyncError("invalid_input", `${name}: ${parsed.problem}`);
            const l = await load(callOf);
            const out = handler.run(l, handler.writes ? cleaned(parsed.value) : parsed.value);
            if (handler.writes) await persist(callOf, l);
            return out;
          } catch (e) {
            // the reference answers a failure as its bare message; the code rides in _meta
            const r = errorResult(e instanceof kg.EntityNotFound ? new MemsyncError("not_found", e.message) : e);
            const error = r._meta!["memsync/error"] as { message: string };
            return { ...r, content: [{ type: "text", text: error.message }] };
          }
        }),
    );
  }
  server.registerResource(
    "knowledge-graph",
    KG_URI,
    { title: "Knowledge Graph", description: "The full knowledge graph with all entities and relations", mimeType: "application/json" },
    async (uri: URL) => {
      const { graph } = await serial(() => load(callOf));
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: boundedGraph(graph).text }] };
    },
  );
}
