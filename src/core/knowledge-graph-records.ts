import * as kg from "./knowledge-graph.ts";

// How the reference memory server's graph lives in memsync's store, in one place for every face
// and operation that writes or reads it (the MCP `memory` profile, `import mcp-memory`, the
// OrchestKit graph queue, `export mcp-memory`): each entity is a memory (type fact, tag
// knowledge-graph, the entity in meta.extra.knowledge_graph, its name as the memory's entity, a
// readable content), each relation too (it may name entities that do not exist, which memsync's
// relations between memories cannot say). The graph is read back in creation order (seq).

export const KG_TAG = "knowledge-graph";

const ENTITY_MAX = 200;
const CONTENT_MAX = 2000;

/** The memory fields of a readable entity (content as the memory shows it). */
export function entityContent(e: kg.Entity): string {
  return `${e.name} (${e.entityType})${e.observations.length ? `: ${e.observations.join("; ")}` : ""}`.slice(0, CONTENT_MAX);
}

export function entityRecord(e: kg.Entity, seq: number): Record<string, unknown> {
  return {
    content: entityContent(e),
    type: "fact",
    project: null,
    entities: e.name.trim() && e.name.length <= ENTITY_MAX ? [e.name] : [],
    meta: { tags: [KG_TAG], extra: { knowledge_graph: { kind: "entity", name: e.name, entityType: e.entityType, observations: e.observations, seq } } },
  };
}

export function relationRecord(r: kg.Relation, seq: number): Record<string, unknown> {
  return {
    content: `${r.from} ${r.relationType} ${r.to}`.slice(0, CONTENT_MAX),
    type: "fact",
    project: null,
    meta: { tags: [KG_TAG], extra: { knowledge_graph: { kind: "relation", from: r.from, to: r.to, relationType: r.relationType, seq } } },
  };
}

type Kind = { kind: "entity"; seq: number } & kg.Entity;
type RKind = { kind: "relation"; seq: number } & kg.Relation;

/** The graph as loaded: each entity and relation object, with the record it came from. */
export interface LoadedGraph {
  graph: kg.Graph;
  ids: Map<object, { id: string; observations?: string }>;
  nextSeq: number;
}

/** The graph held by these memories (those tagged knowledge-graph; others are passed over). */
export function graphOfMemories(memories: readonly { id: string; meta: { extra?: unknown } }[]): LoadedGraph {
  const items: { rec: Kind | RKind; id: string }[] = [];
  for (const m of memories) {
    const rec = (m.meta.extra as Record<string, unknown> | undefined)?.knowledge_graph as Kind | RKind | undefined;
    if (rec && (rec.kind === "entity" || rec.kind === "relation") && typeof rec.seq === "number") items.push({ rec, id: m.id });
  }
  items.sort((a, b) => a.rec.seq - b.rec.seq || (a.id < b.id ? -1 : 1));
  const graph: kg.Graph = { entities: [], relations: [] };
  const ids = new Map<object, { id: string; observations?: string }>();
  for (const { rec, id } of items) {
    if (rec.kind === "entity") {
      const e: kg.Entity = { name: String(rec.name), entityType: String(rec.entityType), observations: Array.isArray(rec.observations) ? rec.observations.map(String) : [] };
      graph.entities.push(e);
      ids.set(e, { id, observations: JSON.stringify(e.observations) });
    } else {
      const r = kg.relationOf(rec);
      graph.relations.push(r);
      ids.set(r, { id });
    }
  }
  return { graph, ids, nextSeq: items.length ? items[items.length - 1]!.rec.seq + 1 : 1 };
}
