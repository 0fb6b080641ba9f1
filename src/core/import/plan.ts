import type * as kg from "../knowledge-graph.ts";
import type { Problem } from "./lines.ts";

// What a parser of another tool's files makes of them, before any store is looked at: the
// memories and relations to write (fields in memsync's file format, ids already valid), graph
// calls for the `memory` profile's graph, and the problems found, line by line.

export type Fields = Record<string, unknown>;

/** A record planned from one line; `where` names it in reports ("memories.jsonl:12"). */
export interface Planned {
  where: { file: string; line: number };
  fields: Fields;
}

/**
 * Calls on the knowledge graph, in order (the reference server's create_* and add_observations).
 * `fileLine`: a line of a graph file rather than a call; the k-th line of a name is the graph's
 * k-th entity of that name (the reference keeps every line it loads, a name twice included).
 */
export type GraphCall =
  | { where: { file: string; line: number }; op: "create_entities"; entities: kg.Entity[]; fileLine?: true }
  | { where: { file: string; line: number }; op: "create_relations"; relations: kg.Relation[]; fileLine?: true }
  | { where: { file: string; line: number }; op: "add_observations"; observations: { entityName: string; contents: string[] }[] };

export interface ImportPlan {
  memories: Planned[];
  relations: Planned[];
  graph: GraphCall[];
  problems: Problem[];
  /** Lines read and what became of those that are not records (tombstones, later versions). */
  stats: Record<string, number>;
}

export const emptyPlan = (): ImportPlan => ({ memories: [], relations: [], graph: [], problems: [], stats: {} });

export const bump = (plan: ImportPlan, key: string, by = 1) => {
  plan.stats[key] = (plan.stats[key] ?? 0) + by;
};

/** A source file's name and bytes, as the operation read them. */
export interface SourceFile {
  name: string;
  bytes: Uint8Array;
}
