import { IMPORTANCE_LEVELS, MEMORY_TYPES, SHARING_SCOPES } from "../model/vocab.ts";
import { entityOfLine, relationOfLine } from "./mcp-memory.ts";
import { derivedId, idFor } from "./derived-id.ts";
import { isObject, type Line, readJsonLines } from "./lines.ts";
import { bump, emptyPlan, type Fields, type ImportPlan, type SourceFile } from "./plan.ts";

// OrchestKit's local memory (.claude/memory/): decisions.jsonl (also found as
// .claude/logs/decisions.jsonl, and in older shapes: content as plain text, timestamp, project
// and confidence at the top), open-problems.jsonl (open/resolved kept), graph-queue.jsonl
// (queued create_entities / create_relations / add_observations calls for the MCP memory
// server: applied to the `memory` profile's graph), completed-flows.jsonl, and the decisions
// section of MEMORY.md. Each record keeps its whole original line in meta.extra.orchestkit.
// OrchestKit ids are not UUIDs and collide between parallel agents: each gets a derived id, and
// a second record with an id already seen but other content gets one of its own (nothing lost).

const TAG = "orchestkit";

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string" && s.trim() !== "") : []);
const unit = (v: unknown): number | undefined => (typeof v === "number" && v >= 0 && v <= 1 ? v : undefined);
const oneOf = <T extends string>(v: unknown, list: readonly T[]): T | undefined => (typeof v === "string" && (list as readonly string[]).includes(v) ? (v as T) : undefined);

/** An ISO time or Unix seconds (or milliseconds) as Unix seconds. */
export function secondsOf(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v > 1e11 ? Math.floor(v / 1000) : v;
  if (typeof v === "string") {
    const ms = Date.parse(v);
    if (Number.isFinite(ms) && ms >= 0) return Math.floor(ms / 1000);
  }
  return undefined;
}

/** Ids as OrchestKit gave them, made unique: a collision with other content gets its own. */
class Ids {
  private seen = new Map<string, { line: number; body: string }>();
  constructor(private readonly file: string, private readonly plan: ImportPlan) {}
  /** The record's id, or null when the line repeats an earlier one exactly (reported, skipped). */
  of(l: Line, ns: string): string | null {
    const body = JSON.stringify(l.value);
    const given = typeof l.value.id === "string" && l.value.id.trim() ? l.value.id : null;
    const key = given ?? `content:${body}`;
    const before = this.seen.get(key);
    if (before) {
      if (before.body === body) {
        this.plan.problems.push({ file: this.file, line: l.line, problem: `duplicate of line ${before.line}: skipped` });
        return null;
      }
      this.plan.problems.push({ file: this.file, line: l.line, problem: `duplicate id ${JSON.stringify(key.slice(0, 60))} (line ${before.line}) with other content: imported under an id of its own` });
      return derivedId(`${ns}\n${key}\n${body}`);
    }
    this.seen.set(key, { line: l.line, body });
    return given ? idFor(ns, given).id : derivedId(`${ns}\n${key}`);
  }
}

function decisionOf(v: Fields, project: string | null): Fields | string {
  const meta = isObject(v.metadata) ? v.metadata : {};
  const identity = isObject(v.identity) ? v.identity : {};
  const c = isObject(v.content) ? v.content : {};
  const what = text(c.what) ?? text(v.content) ?? text(v.what) ?? text(v.text);
  if (!what) return "no content.what (not an OrchestKit decision)";
  const why = text(c.why) ?? text(v.why) ?? text(v.rationale) ?? null;
  const type = oneOf(v.type, MEMORY_TYPES) ?? "decision";
  const fields: Fields = {
    content: why ? `${what}\nWhy: ${why}` : what,
    type,
    decision: { what, why, alternatives: texts(c.alternatives ?? v.alternatives), constraints: texts(c.constraints ?? v.constraints), tradeoffs: texts(c.tradeoffs ?? v.tradeoffs) },
    entities: texts(v.entities),
    project: text(meta.project) ?? text(v.project) ?? project,
    captured_by: { user: text(identity.user_id) ?? null, machine: text(identity.machine_id) ?? null, agent: TAG, session: text(meta.session_id) ?? text(v.session_id) ?? null },
    meta: { tags: [TAG], source: `${TAG}:${text(meta.source) ?? "decisions"}`, context: null, extra: { orchestkit: v } },
  };
  const confidence = unit(meta.confidence) ?? unit(v.confidence);
  if (confidence !== undefined) fields.confidence = confidence;
  const category = text(meta.category) ?? text(v.category);
  if (category) fields.category = category;
  const importance = oneOf(meta.importance ?? v.importance, IMPORTANCE_LEVELS);
  if (importance) fields.importance = importance;
  const scope = oneOf(meta.sharing_scope ?? v.sharing_scope, SHARING_SCOPES);
  if (scope) fields.scope = scope;
  const at = secondsOf(meta.timestamp) ?? secondsOf(v.timestamp);
  if (at !== undefined) fields.created_at = at;
  return fields;
}

function problemOf(v: Fields, project: string | null): Fields | string {
  const content = text(v.text) ?? text(v.content) ?? text(v.description);
  if (!content) return "no text (not an OrchestKit open problem)";
  const status = text(v.status) ?? "open";
  const fields: Fields = {
    content,
    type: "problem",
    entities: texts(v.entities),
    project: text(v.project) ?? project,
    captured_by: { user: null, machine: null, agent: TAG, session: text(v.session_id) ?? null },
    meta: { tags: [TAG, `problem-${status.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 30) || "open"}`], source: `${TAG}:open-problems`, context: null, extra: { orchestkit: v } },
  };
  const confidence = unit(v.confidence);
  if (confidence !== undefined) fields.confidence = confidence;
  const at = secondsOf(v.timestamp);
  if (at !== undefined) fields.created_at = at;
  return fields;
}

function flowOf(v: Fields, project: string | null): Fields | string {
  const name = text(v.flow) ?? text(v.name) ?? text(v.workflow) ?? text(v.id);
  const summary = text(v.summary) ?? text(v.description) ?? text(v.result) ?? text(v.outcome);
  if (!name && !summary) return "no flow, name or summary (not an OrchestKit completed flow)";
  const fields: Fields = {
    content: [name ? `Completed flow: ${name}` : "Completed flow", summary].filter(Boolean).join("\n"),
    type: "fact",
    project: text(v.project) ?? project,
    meta: { tags: [TAG, "completed-flow"], source: `${TAG}:completed-flows`, context: null, extra: { orchestkit: v } },
  };
  const at = secondsOf(v.timestamp) ?? secondsOf(v.completed_at);
  if (at !== undefined) fields.created_at = at;
  return fields;
}

const QUEUED = ["create_entities", "create_relations", "add_observations"] as const;

function queueLine(plan: ImportPlan, file: string, l: Line): void {
  const v = l.value;
  const raw = text(v.type) ?? text(v.operation) ?? text(v.tool) ?? "";
  const op = raw.replace(/^mcp__[^_]+(?:_[^_]+)*?__/, "").replace(/^memory__/, "");
  const payload = [v.payload, v.args, v.input, v.data, v.params].find(isObject) ?? v;
  const where = { file, line: l.line };
  const bad = (what: string): void => void plan.problems.push({ file, line: l.line, problem: `${op}: ${what}: skipped` });
  if (op === "create_entities") {
    const list = Array.isArray(payload.entities) ? payload.entities : [];
    const entities = list.map((e) => (isObject(e) ? entityOfLine(e) : null));
    if (!list.length || entities.some((e) => e === null)) return bad("entities must each have name, entityType and observations");
    plan.graph.push({ where, op, entities: entities as NonNullable<(typeof entities)[number]>[] });
  } else if (op === "create_relations") {
    const list = Array.isArray(payload.relations) ? payload.relations : [];
    const relations = list.map((r) => (isObject(r) ? relationOfLine(r) : null));
    if (!list.length || relations.some((r) => r === null)) return bad("relations must each have from, to and relationType");
    plan.graph.push({ where, op, relations: relations as NonNullable<(typeof relations)[number]>[] });
  } else if (op === "add_observations") {
    const list = Array.isArray(payload.observations) ? payload.observations : [];
    const obs = list.map((o) => (isObject(o) && typeof o.entityName === "string" && Array.isArray(o.contents) && o.contents.every((c) => typeof c === "string") ? { entityName: o.entityName, contents: o.contents as string[] } : null));
    if (!list.length || obs.some((o) => o === null)) return bad("observations must each have entityName and contents");
    plan.graph.push({ where, op, observations: obs as NonNullable<(typeof obs)[number]>[] });
  } else {
    plan.problems.push({ file, line: l.line, problem: `unknown queued call ${JSON.stringify(raw.slice(0, 40))} (expected ${QUEUED.join(", ")}): skipped` });
  }
}

/** Bullets of MEMORY.md's decisions section: "- **[Decision]** text" or "- text". */
export function memoryMdDecisions(md: string): { line: number; type: string; what: string; why: string | null }[] {
  const out: { line: number; type: string; what: string; why: string | null }[] = [];
  let inSection = false;
  const lines = md.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const heading = /^#{1,6}\s+(.*)$/.exec(raw);
    if (heading) {
      inSection = /decision/i.test(heading[1]!);
      return;
    }
    if (!inSection) return;
    const bullet = /^\s*[-*]\s+(?:\*\*\[(\w[\w -]*)\]\*\*\s*)?(.+)$/.exec(raw);
    if (bullet) {
      const kind = (bullet[1] ?? "decision").toLowerCase();
      out.push({ line: i + 1, type: (MEMORY_TYPES as readonly string[]).includes(kind) ? kind : "decision", what: bullet[2]!.trim(), why: null });
      return;
    }
    const because = /^\s+_\(because:\s*(.+?)\)_\s*$/.exec(raw);
    if (because && out.length && out[out.length - 1]!.line >= i - 1) out[out.length - 1]!.why = because[1]!;
  });
  return out;
}

export interface OrchestKitSources {
  decisions: SourceFile[];
  problems: SourceFile | null;
  queue: SourceFile | null;
  flows: SourceFile | null;
  memoryMd: SourceFile | null;
}

export function planOrchestKit(src: OrchestKitSources, project: string | null): ImportPlan {
  const plan = emptyPlan();
  const whats = new Set<string>();
  const records = (file: SourceFile, ns: string, make: (v: Fields, project: string | null) => Fields | string) => {
    const ids = new Ids(file.name, plan);
    const lines = readJsonLines(file.name, file.bytes, plan.problems);
    bump(plan, "lines", lines.length);
    for (const l of lines) {
      const fields = make(l.value, project);
      if (typeof fields === "string") {
        plan.problems.push({ file: file.name, line: l.line, problem: `${fields}: skipped` });
        continue;
      }
      const id = ids.of(l, ns);
      if (id === null) continue;
      if (isObject(fields.decision)) whats.add(String(fields.decision.what).trim().toLowerCase());
      plan.memories.push({ where: { file: file.name, line: l.line }, fields: { ...fields, id } });
    }
  };
  for (const d of src.decisions) records(d, "orchestkit:decision", decisionOf);
  if (src.problems) records(src.problems, "orchestkit:problem", problemOf);
  if (src.flows) records(src.flows, "orchestkit:flow", flowOf);
  if (src.memoryMd) {
    let md = "";
    try {
      md = new TextDecoder("utf-8", { fatal: true }).decode(src.memoryMd.bytes);
    } catch {
      plan.problems.push({ file: src.memoryMd.name, line: 0, problem: "invalid UTF-8: skipped" });
    }
    for (const d of memoryMdDecisions(md)) {
      // a decision the log already has is not imported twice (by its text)
      if (whats.has(d.what.toLowerCase())) {
        bump(plan, "memory_md_already_logged");
        continue;
      }
      whats.add(d.what.toLowerCase());
      plan.memories.push({
        where: { file: src.memoryMd.name, line: d.line },
        fields: {
          id: derivedId(`orchestkit:memory-md\n${d.what}`),
          content: d.why ? `${d.what}\nWhy: ${d.why}` : d.what,
          type: d.type,
          ...(d.type === "decision" ? { decision: { what: d.what, why: d.why } } : {}),
          project,
          meta: { tags: [TAG], source: `${TAG}:MEMORY.md`, context: null, extra: {} },
        },
      });
    }
  }
  if (src.queue) {
    const lines = readJsonLines(src.queue.name, src.queue.bytes, plan.problems);
    bump(plan, "lines", lines.length);
    for (const l of lines) queueLine(plan, src.queue.name, l);
  }
  return plan;
}
