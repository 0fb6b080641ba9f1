import { RELATION_TYPES } from "../model/vocab.ts";
import { idFor } from "./derived-id.ts";
import { isObject, type Line, readJsonLines } from "./lines.ts";
import { bump, emptyPlan, type Fields, type ImportPlan, type SourceFile } from "./plan.ts";

// CortexGraph's JSONL storage: memories.jsonl and relations.jsonl, append-only. A later line with
// the same id replaces the earlier one; {"id", "_deleted": true} is a tombstone, and a later line
// with that id brings the record back. Every field is kept, those memsync does not know as
// unknown fields; memsync's memory schema is CortexGraph's, so the names carry over as they are.
// An id that is not a UUID gets a derived one (derived-id.ts), the original kept in
// meta.extra.cortexgraph_id (relation: metadata.cortexgraph_id) so export gives it back.

export const CG_MEMORY_FIELDS = [
  "id", "content", "meta", "created_at", "last_used", "use_count", "strength", "status", "promoted_at", "promoted_to",
  "embed", "entities", "review_priority", "last_review_at", "review_count", "cross_domain_count",
] as const;
export const CG_RELATION_FIELDS = ["id", "from_memory_id", "to_memory_id", "relation_type", "strength", "created_at", "metadata"] as const;

/** Where an id CortexGraph gave that memsync could not keep is kept, and a relation type memsync lacks. */
export const CG_ID_KEY = "cortexgraph_id";
export const CG_TYPE_KEY = "cortexgraph_relation_type";

/** The live records of an append-only file: the last line of each id, unless that is a tombstone. */
function replay(file: string, lines: Line[], plan: ImportPlan, what: string): Line[] {
  const live = new Map<string, Line>();
  for (const l of lines) {
    const id = l.value.id;
    if (typeof id !== "string" || id.trim() === "") {
      plan.problems.push({ file, line: l.line, problem: `no id (not a CortexGraph ${what}): skipped` });
      continue;
    }
    if (live.has(id)) bump(plan, `${what}_superseded`);
    live.delete(id); // a later line goes to the end: the order of last writes
    if (l.value._deleted === true) {
      bump(plan, `${what}_tombstones`);
      continue;
    }
    live.set(id, l);
  }
  return [...live.values()];
}

export function planCortexGraph(memories: SourceFile | null, relations: SourceFile | null): ImportPlan {
  const plan = emptyPlan();
  const ids = new Map<string, string>();
  if (memories) {
    const lines = readJsonLines(memories.name, memories.bytes, plan.problems);
    bump(plan, "lines", lines.length);
    for (const l of replay(memories.name, lines, plan, "memory")) {
      const { _deleted, ...fields } = l.value as Fields & { id: string };
      const { id, kept } = idFor("cortexgraph:memory", fields.id as string);
      ids.set(fields.id as string, id);
      if (!kept) {
        const meta = isObject(fields.meta) ? { ...fields.meta } : {};
        meta.extra = { ...(isObject(meta.extra) ? meta.extra : {}), [CG_ID_KEY]: fields.id };
        fields.meta = meta;
      }
      if (typeof fields.content !== "string") {
        plan.problems.push({ file: memories.name, line: l.line, problem: "no content (not a CortexGraph memory): skipped" });
        continue;
      }
      plan.memories.push({ where: { file: memories.name, line: l.line }, fields: { ...fields, id } });
    }
  }
  if (relations) {
    const lines = readJsonLines(relations.name, relations.bytes, plan.problems);
    bump(plan, "lines", lines.length);
    for (const l of replay(relations.name, lines, plan, "relation")) {
      const { _deleted, ...fields } = l.value as Fields & { id: string };
      const { id, kept } = idFor("cortexgraph:relation", fields.id as string);
      const metadata: Fields = isObject(fields.metadata) ? { ...fields.metadata } : {};
      if (!kept) metadata[CG_ID_KEY] = fields.id;
      const from = typeof fields.from_memory_id === "string" ? (ids.get(fields.from_memory_id) ?? idFor("cortexgraph:memory", fields.from_memory_id).id) : undefined;
      const to = typeof fields.to_memory_id === "string" ? (ids.get(fields.to_memory_id) ?? idFor("cortexgraph:memory", fields.to_memory_id).id) : undefined;
      if (!from || !to) {
        plan.problems.push({ file: relations.name, line: l.line, problem: "no from_memory_id or to_memory_id (not a CortexGraph relation): skipped" });
        continue;
      }
      let type = fields.relation_type;
      if (typeof type !== "string" || !(RELATION_TYPES as readonly string[]).includes(type)) {
        // a type memsync has no name for: related, the original kept for export
        if (type !== undefined) metadata[CG_TYPE_KEY] = type;
        type = "related";
      }
      plan.relations.push({ where: { file: relations.name, line: l.line }, fields: { ...fields, id, from_memory_id: from, to_memory_id: to, relation_type: type, metadata } });
    }
  }
  return plan;
}
