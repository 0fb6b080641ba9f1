import * as kg from "../knowledge-graph.ts";
import { graphOfMemories, KG_TAG } from "../knowledge-graph-records.ts";
import type { Memory } from "../model/memory.ts";
import type { Relation } from "../model/relation.ts";
import { CG_ID_KEY, CG_MEMORY_FIELDS, CG_RELATION_FIELDS, CG_TYPE_KEY } from "../import/cortexgraph.ts";

// Export to other tools' files, pure: records in, file texts out.

type Obj = Record<string, unknown>;

/**
 * CortexGraph's memories.jsonl and relations.jsonl: its fields in its order, then the fields
 * neither CortexGraph nor memsync knows (kept since import); memsync's own additions (gist, type,
 * decision, counters...) stay behind. An id import had to replace comes back as it was.
 */
export function cortexGraphFiles(memories: readonly Memory[], relations: readonly Relation[], memsyncFields: ReadonlySet<string>, relationFields: ReadonlySet<string>): { memories: string; relations: string } {
  const idOf = new Map<string, string>();
  const mem = memories.map((m) => {
    const extra: Obj = { ...(m.meta.extra as Obj) };
    const original = typeof extra[CG_ID_KEY] === "string" ? (extra[CG_ID_KEY] as string) : m.id;
    delete extra[CG_ID_KEY];
    idOf.set(m.id, original);
    const out: Obj = {};
    const src = m as unknown as Obj;
    for (const k of CG_MEMORY_FIELDS) if (src[k] !== undefined) out[k] = src[k];
    out.id = original;
    out.meta = { ...(m.meta as Obj), extra };
    for (const k of Object.keys(src)) if (!memsyncFields.has(k) && !(k in out)) out[k] = src[k];
    return JSON.stringify(out);
  });
  const rel = relations.map((r) => {
    const metadata: Obj = { ...(r.metadata as Obj) };
    const src = r as unknown as Obj;
    const out: Obj = {};
    for (const k of CG_RELATION_FIELDS) if (src[k] !== undefined) out[k] = src[k];
    if (typeof metadata[CG_ID_KEY] === "string") out.id = metadata[CG_ID_KEY];
    if (typeof metadata[CG_TYPE_KEY] === "string") out.relation_type = metadata[CG_TYPE_KEY];
    delete metadata[CG_ID_KEY];
    delete metadata[CG_TYPE_KEY];
    out.from_memory_id = idOf.get(r.from_memory_id) ?? r.from_memory_id;
    out.to_memory_id = idOf.get(r.to_memory_id) ?? r.to_memory_id;
    out.metadata = metadata;
    for (const k of Object.keys(src)) if (!relationFields.has(k) && !(k in out)) out[k] = src[k];
    return JSON.stringify(out);
  });
  const text = (lines: string[]) => (lines.length ? `${lines.join("\n")}\n` : "");
  return { memories: text(mem), relations: text(rel) };
}

/**
 * The reference memory server's memory.jsonl: the `memory` profile's graph as it is, then every
 * other memory as an entity named "memsync:<id>" (its type, its content as the observation) and
 * memsync's relations between those as relations, so the reference server sees all of it.
 */
export function mcpMemoryFile(memories: readonly Memory[], relations: readonly Relation[]): { text: string; entities: number; relations: number } {
  const graph = graphOfMemories(memories.filter((m) => m.meta.tags.includes(KG_TAG))).graph;
  const others = memories.filter((m) => !m.meta.tags.includes(KG_TAG));
  const name = (id: string) => `memsync:${id}`;
  const known = new Set(others.map((m) => m.id));
  kg.createEntities(graph, others.map((m) => ({ name: name(m.id), entityType: m.type, observations: [m.content] })));
  kg.createRelations(
    graph,
    relations.filter((r) => known.has(r.from_memory_id) && known.has(r.to_memory_id)).map((r) => ({ from: name(r.from_memory_id), to: name(r.to_memory_id), relationType: r.relation_type })),
  );
  const lines = [
    ...graph.entities.map((e) => JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations })),
    ...graph.relations.map((r) => JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relationType })),
  ];
  return { text: lines.length ? `${lines.join("\n")}\n` : "", entities: graph.entities.length, relations: graph.relations.length };
}
