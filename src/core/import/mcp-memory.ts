import type * as kg from "../knowledge-graph.ts";
import { isObject, type Line, type Problem, readJsonFile, readJsonLines } from "./lines.ts";
import { bump, emptyPlan, type ImportPlan, type SourceFile } from "./plan.ts";

// The reference memory server's file (@modelcontextprotocol/server-memory): memory.jsonl, lines
// {"type":"entity","name","entityType","observations"} and {"type":"relation","from","to",
// "relationType"}; an older memory.json may hold one {"entities", "relations"} object instead.
// Read into graph calls, applied to the store's graph as the `memory` profile applies its tools
// (core/knowledge-graph.ts), so read_graph afterwards answers what the reference answers.

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

export function entityOfLine(v: Record<string, unknown>): kg.Entity | null {
  if (typeof v.name !== "string" || typeof v.entityType !== "string") return null;
  const observations = v.observations === undefined ? [] : v.observations;
  if (!strings(observations)) return null;
  return { name: v.name, entityType: v.entityType, observations: [...observations] };
}

export function relationOfLine(v: Record<string, unknown>): kg.Relation | null {
  if (typeof v.from !== "string" || typeof v.to !== "string" || typeof v.relationType !== "string") return null;
  return { from: v.from, to: v.to, relationType: v.relationType };
}

/** The lines of either form: JSONL, or one JSON object with entities and relations (older). */
function linesOf(file: SourceFile, problems: Problem[]): Line[] {
  const text = file.bytes.length < 64 * 1024 * 1024 ? file.bytes : null;
  if (text && file.name.endsWith(".json") && !file.name.endsWith(".jsonl")) {
    const whole: Problem[] = [];
    const v = readJsonFile(file.name, text, whole);
    if (isObject(v) && (Array.isArray(v.entities) || Array.isArray(v.relations))) {
      const items = [
        ...(Array.isArray(v.entities) ? v.entities : []).map((e) => (isObject(e) ? { type: "entity", ...e } : e)),
        ...(Array.isArray(v.relations) ? v.relations : []).map((r) => (isObject(r) ? { type: "relation", ...r } : r)),
      ];
      return items.flatMap((value, i) => {
        if (isObject(value)) return [{ line: i + 1, value }];
        problems.push({ file: file.name, line: i + 1, problem: "not a JSON object: skipped" });
        return [];
      });
    }
  }
  return readJsonLines(file.name, file.bytes, problems, { endsWithNewline: false });
}

export function planMcpMemory(file: SourceFile): ImportPlan {
  const plan = emptyPlan();
  const lines = linesOf(file, plan.problems);
  bump(plan, "lines", lines.length);
  const names = new Map<string, number>();
  const relations = new Set<string>();
  for (const { line, value } of lines) {
    const where = { file: file.name, line };
    if (value.type === "entity") {
      const e = entityOfLine(value);
      if (!e) {
        plan.problems.push({ file: file.name, line, problem: "an entity needs name, entityType (text) and observations (a list of text): skipped" });
        continue;
      }
      // the reference writes a name twice when one create_entities call holds it twice, and its
      // read_graph shows both: kept as it keeps them (nothing of the file lost), and reported
      const first = names.get(e.name);
      if (first !== undefined) plan.problems.push({ file: file.name, line, problem: `duplicate entity ${JSON.stringify(e.name.slice(0, 60))} (first on line ${first}): kept, as the reference server keeps it` });
      else names.set(e.name, line);
      plan.graph.push({ where, op: "create_entities", entities: [e], fileLine: true });
    } else if (value.type === "relation") {
      const r = relationOfLine(value);
      if (!r) {
        plan.problems.push({ file: file.name, line, problem: "a relation needs from, to and relationType (text): skipped" });
        continue;
      }
      const key = JSON.stringify([r.from, r.to, r.relationType]);
      if (relations.has(key)) plan.problems.push({ file: file.name, line, problem: "duplicate relation: kept, as the reference server keeps it" });
      else relations.add(key);
      plan.graph.push({ where, op: "create_relations", relations: [r], fileLine: true });
    } else {
      plan.problems.push({ file: file.name, line, problem: `unknown shape (type ${JSON.stringify(String(value.type).slice(0, 30))}; expected entity or relation): skipped` });
    }
  }
  return plan;
}
