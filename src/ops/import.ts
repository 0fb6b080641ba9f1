import fs from "node:fs";
import path from "node:path";
import { invalidInput, isMemsyncError, notFound } from "../core/errors.ts";
import * as kg from "../core/knowledge-graph.ts";
import { entityContent, entityRecord, graphOfMemories, KG_TAG, relationRecord } from "../core/knowledge-graph-records.ts";
import { isId } from "../core/ids.ts";
import { cloneJson } from "../core/json-clone.ts";
import { derivedId } from "../core/import/derived-id.ts";
import type { Problem } from "../core/import/lines.ts";
import type { Fields, ImportPlan, SourceFile } from "../core/import/plan.ts";
import { type Memory, MemorySchema } from "../core/model/memory.ts";
import { type Relation, RelationSchema } from "../core/model/relation.ts";
import { parseWith } from "../core/model/validate.ts";
import { newId } from "../core/new-id.ts";
import { createMemory, type Origin, updateMemory } from "../core/records.ts";
import { cleanRecord, cleanText } from "../core/redact.ts";
import { progress } from "../sync/progress.ts";
import type { Store } from "../store/store.ts";
import { type CommitOutcome, commitLocked } from "../sync/commit.ts";
import { faultPoint } from "../sync/fault.ts";
import { removeFillMarker } from "../store/journal-fill.ts";
import { commitAuthor } from "./commit.ts";
import { type OpsEnv, originOf, withStore } from "./context.ts";
import { autoRepack } from "./repack.ts";
import { type RecordBuilder, startBuilding } from "./import-build.ts";
import { ensureStore, storeExists } from "./init.ts";

// import: another tool's files into the store, as one change (one commit). The files are only
// read. A parser in core/import turns them into planned records and graph calls with the
// problems it found line by line; here each planned record is checked (and its secrets
// redacted, as on every write path) and written unless the store has its id already, so a second
// run changes nothing. A record that fails its checks is reported with its line and skipped;
// nothing stops the rest. --dry-run does all of it but the writing.

export const IMPORT_FORMATS = ["cortexgraph", "orchestkit", "mcp-memory", "jsonl"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** At most this many problems are listed in an outcome (all are counted). */
export const MAX_LISTED_PROBLEMS = 1000;

export interface ImportOutcome {
  format: ImportFormat;
  source: string;
  dry_run: boolean;
  memories: { imported: number; existing: number; invalid: number };
  relations: { imported: number; existing: number; missing_memory: number; invalid: number };
  graph: { entities: number; relations: number; observations: number };
  stats: Record<string, number>;
  problems: Problem[];
  problems_total: number;
  /** The commit message of the change (null: nothing to write). */
  message: string | null;
  /** The commit the import made (null: nothing written, a dry run, or a store without git). */
  commit: string | null;
  store_created: boolean;
}

// the Buffer itself (a Uint8Array): copying a 9 MB source into a new Uint8Array took ~0.4 s on Bun
const readBytes = (p: string): Uint8Array => fs.readFileSync(p);
const isFile = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true;
const isDir = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
const source = (p: string): SourceFile => ({ name: path.basename(p), bytes: readBytes(p) });
const maybe = (p: string): SourceFile | null => (isFile(p) ? source(p) : null);

/** The source files of a format at a path, read whole; nothing is ever written there. */
export async function planFrom(format: ImportFormat, at: string, project: string | null): Promise<ImportPlan> {
  if (!fs.existsSync(at)) throw notFound(`import: ${at} does not exist`);
  if (format === "cortexgraph") {
    const { planCortexGraph } = await import("../core/import/cortexgraph.ts");
    // a link to CortexGraph's memories file (one kept elsewhere, linked in): its relations are
    // beside the file the link leads to, not beside the link
    const file = isDir(at) ? at : fs.realpathSync(at);
    const dir = isDir(at) ? at : path.dirname(file);
    const memories = isDir(at) ? maybe(path.join(at, "memories.jsonl")) : source(at);
    const relations = isDir(at) || path.basename(file) === "memories.jsonl" ? maybe(path.join(dir, "relations.jsonl")) : null;
    if (!memories && !relations) throw notFound(`import cortexgraph: no memories.jsonl or relations.jsonl in ${at}`);
    const plan = planCortexGraph(memories, relations);
    // compaction leaves these behind: not data
    if (isDir(at)) for (const n of fs.readdirSync(at).filter((n) => n.endsWith(".jsonl.tmp")).sort()) plan.problems.push({ file: n, line: 0, problem: "a compaction's temp file, not data: skipped" });
    return plan;
  }
  if (format === "orchestkit") {
    const { planOrchestKit } = await import("../core/import/orchestkit.ts");
    let dir = at;
    if (!isDir(dir)) throw invalidInput(`import orchestkit: ${at} is not a folder (give .claude/memory/)`);
    for (const sub of [".claude/memory", "memory"]) if (!isFile(path.join(dir, "decisions.jsonl")) && isDir(path.join(dir, sub))) dir = path.join(dir, sub);
    const logs = path.join(path.dirname(dir), "logs", "decisions.jsonl");
    const decisions = [maybe(path.join(dir, "decisions.jsonl")), maybe(logs)].filter((f): f is SourceFile => f !== null);
    if (decisions[1]) decisions[1] = { ...decisions[1], name: "logs/decisions.jsonl" };
    const src = {
      decisions,
      problems: maybe(path.join(dir, "open-problems.jsonl")),
      queue: maybe(path.join(dir, "graph-queue.jsonl")),
      flows: maybe(path.join(dir, "completed-flows.jsonl")),
      memoryMd: maybe(path.join(dir, "MEMORY.md")),
    };
    if (!decisions.length && !src.problems && !src.queue && !src.flows && !src.memoryMd) throw notFound(`import orchestkit: no decisions.jsonl, open-problems.jsonl, graph-queue.jsonl, completed-flows.jsonl or MEMORY.md in ${dir}`);
    return planOrchestKit(src, project);
  }
  if (format === "mcp-memory") {
    const { planMcpMemory } = await import("../core/import/mcp-memory.ts");
    const file = isDir(at) ? [path.join(at, "memory.jsonl"), path.join(at, "memory.json")].find(isFile) : at;
    if (!file) throw notFound(`import mcp-memory: no memory.jsonl or memory.json in ${at}`);
    return planMcpMemory(source(file));
  }
  const { planBackup } = await import("../core/import/backup.ts");
  if (!isFile(at)) throw invalidInput(`import jsonl: ${at} is not a file`);
  return planBackup(source(at));
}

/** Where a change goes: the store's transaction, or nowhere (a dry run). */
interface Sink {
  exists(kind: "memory" | "relation", id: string): boolean;
  /** `made`: its canonical text and recall terms, made with it (import-build.ts). */
  putMemory(m: Memory, made?: MadeText): void;
  putRelation(r: Relation): void;
}

/** A memory's canonical text and recall terms as a build thread made them. */
type MadeText = { json: string; terms: string };

/** A memory as a build thread made it (null: not made there, build it here); its failure thrown as the build's own. */
function builtAt(builder: RecordBuilder | null, at: number): { memory: Memory; made: MadeText } | null {
  const r = builder?.take(at);
  if (!r) return null;
  if (r[1] === null) throw new Error(r[2]);
  return { memory: JSON.parse(r[1]) as Memory, made: { json: r[1], terms: r[2] } };
}

const here = (w: { file: string; line: number }) => ({ file: w.file, line: w.line });
const oneLine = (e: unknown) => (isMemsyncError(e) || e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 300);

/** Apply a plan to a sink: what was written, what was there already, the problems. */
function applyPlan(plan: ImportPlan, sink: Sink, origin: Origin, format: ImportFormat, project: string | null, graphNow: { memories: Memory[] }, out: ImportOutcome, builder: RecordBuilder | null = null): void {
  const problems = plan.problems;
  const written = new Set<string>();
  const total = plan.memories.length + plan.relations.length + plan.graph.length;
  let done = 0;
  const tick = () => {
    done++;
    if (done % 100 === 0 || done === total) progress("importing", done, total);
  };
  for (const [at, p] of plan.memories.entries()) {
    tick();
    const id = typeof p.fields.id === "string" ? p.fields.id : "";
    // an id from a file becomes a path only once it is known to be a UUID
    if (!isId(id)) {
      out.memories.invalid++;
      problems.push({ ...here(p.where), problem: `invalid id ${JSON.stringify(String(p.fields.id).slice(0, 60))} (not a lowercase UUID): skipped` });
      continue;
    }
    if (written.has(id)) {
      out.memories.invalid++;
      problems.push({ ...here(p.where), problem: `memory ${id} is in the file twice: skipped` });
      continue;
    }
    if (sink.exists("memory", id)) {
      out.memories.existing++;
      continue;
    }
    try {
      const built = format === "jsonl" ? null : builtAt(builder, at);
      const m = built?.memory ?? (format === "jsonl" ? exactMemory(p.fields) : createMemory(withProject(p.fields, project), id, origin));
      sink.putMemory(m, built?.made);
      written.add(m.id);
      out.memories.imported++;
    } catch (e) {
      out.memories.invalid++;
      problems.push({ ...here(p.where), problem: `${oneLine(e)}: skipped` });
    }
  }
  for (const p of plan.relations) {
    tick();
    const f = p.fields;
    const id = String(f.id ?? "");
    const bad = [f.id, f.from_memory_id, f.to_memory_id].find((x) => !isId(x));
    if (bad !== undefined) {
      out.relations.invalid++;
      problems.push({ ...here(p.where), problem: `invalid id ${JSON.stringify(String(bad).slice(0, 60))} (not a lowercase UUID): skipped` });
      continue;
    }
    if (sink.exists("relation", id)) {
      out.relations.existing++;
      continue;
    }
    const missing = [f.from_memory_id, f.to_memory_id].find((m) => typeof m !== "string" || !(written.has(m) || sink.exists("memory", m)));
    if (missing !== undefined) {
      out.relations.missing_memory++;
      problems.push({ ...here(p.where), problem: `relation ${id}: memory ${String(missing)} is neither in the file nor in the store: not imported` });
      continue;
    }
    try {
      sink.putRelation(exactRelation(f));
      out.relations.imported++;
    } catch (e) {
      out.relations.invalid++;
      problems.push({ ...here(p.where), problem: `${oneLine(e)}: skipped` });
    }
  }
  if (plan.graph.length) applyGraph(plan, sink, origin, graphNow.memories, out, tick);
}

function withProject(fields: Fields, project: string | null): Fields {
  // another tool's blank project names none: the import's, else none (a record is never lost to it)
  const blank = typeof fields.project === "string" && fields.project.trim() === "";
  if (blank) fields = { ...fields, project: null };
  return project !== null && (fields.project === undefined || fields.project === null) ? { ...fields, project } : fields;
}

/** A memsync record from a backup, as it was (its secrets redacted, should it hold any). */
function exactMemory(fields: Fields): Memory {
  const copy = cloneJson(fields);
  cleanRecord(copy);
  const r = parseWith(MemorySchema, copy);
  if (!r.ok) throw invalidInput(`invalid memory: ${r.problem}`);
  return r.value;
}

function exactRelation(fields: Fields): Relation {
  const copy = cloneJson(fields);
  cleanRecord(copy);
  const r = parseWith(RelationSchema, copy);
  if (!r.ok) throw invalidInput(`invalid relation: ${r.problem}`);
  if (r.value.from_memory_id === r.value.to_memory_id) throw invalidInput("a memory cannot be related to itself");
  return r.value;
}

/**
 * The graph calls, applied as the `memory` profile applies its tools to the graph the store
 * holds, then written as that profile writes them (core/knowledge-graph-records.ts). An entity
 * the store has already gains the observations it lacks; a call naming a missing entity
 * (add_observations) is reported and skipped, as the reference refuses it.
 */
function applyGraph(plan: ImportPlan, sink: Sink, origin: Origin, memories: Memory[], out: ImportOutcome, tick: () => void): void {
  const loaded = graphOfMemories(memories);
  const g = loaded.graph;
  const byId = new Map(memories.map((m) => [m.id, m]));
  // the texts as the store will hold them (secrets redacted), so a second run finds them equal
  const clean = (t: string) => cleanText(t).text;
  // a graph file's lines: how many of each name (entity) or triple (relation) were read so far
  const entityLines = new Map<string, number>();
  const relationLines = new Map<string, number>();
  const nth = (seen: Map<string, number>, key: string) => {
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    return k;
  };
  // the graph's entities by name and relations by triple, for a file's lines (a scan of the whole
  // graph per line made a 20,000-entity memory.jsonl quadratic); made when first needed, and
  // dropped when a call (the queue's create_* through kg) changes the graph another way
  const tripleOf = (r: { from: string; to: string; relationType: string }) => JSON.stringify([r.from, r.to, r.relationType]);
  let named: Map<string, kg.Entity[]> | undefined;
  let triples: Map<string, number> | undefined;
  const entitiesNamed = (name: string): kg.Entity[] => {
    if (!named) {
      named = new Map();
      for (const x of g.entities) (named.get(x.name) ?? named.set(x.name, []).get(x.name)!).push(x);
    }
    return named.get(name) ?? [];
  };
  const relationsLike = (key: string): number => {
    if (!triples) {
      triples = new Map();
      for (const x of g.relations) triples.set(tripleOf(x), (triples.get(tripleOf(x)) ?? 0) + 1);
    }
    return triples.get(key) ?? 0;
  };
  for (const call of plan.graph) {
    tick();
    if (call.op === "create_entities") {
      for (const raw of call.entities) {
        const e = { name: clean(raw.name), entityType: clean(raw.entityType), observations: raw.observations.map(clean) };
        // a file's k-th line of a name is the graph's k-th entity of it (a second run finds it)
        const had = call.fileLine ? entitiesNamed(e.name)[nth(entityLines, e.name)] : g.entities.find((x) => x.name === e.name);
        if (!had && call.fileLine) {
          g.entities.push(e);
          // named is made: entitiesNamed ran for this line above
          const same = named!.get(e.name);
          if (same) same.push(e);
          else named!.set(e.name, [e]);
        } else if (!had) {
          kg.createEntities(g, [e]);
          named = undefined;
        } else if (!call.fileLine) kg.addObservations(g, [{ entityName: e.name, contents: e.observations }]);
        else had.observations.push(...e.observations.filter((o) => !had.observations.includes(o)));
      }
    } else if (call.op === "create_relations") {
      const relations = call.relations.map((r) => ({ from: clean(r.from), to: clean(r.to), relationType: clean(r.relationType) }));
      if (!call.fileLine) {
        kg.createRelations(g, relations);
        triples = undefined;
      } else
        for (const r of relations) {
          const key = tripleOf(r);
          if (relationsLike(key) <= nth(relationLines, key)) {
            g.relations.push(r);
            triples!.set(key, relationsLike(key) + 1);
          }
        }
    } else {
      try {
        const observations = call.observations.map((o) => ({ entityName: clean(o.entityName), contents: o.contents.map(clean) }));
        // all or nothing, as the reference: a missing entity leaves the graph as it was
        kg.addObservations(kg.cloneGraph(g), observations);
        kg.addObservations(g, observations);
      } catch (e) {
        plan.problems.push({ ...here(call.where), problem: `add_observations: ${oneLine(e)}: skipped` });
      }
    }
  }
  let seq = loaded.nextSeq;
  for (const e of g.entities) {
    const was = loaded.ids.get(e);
    if (!was) {
      const id = uniqueId(sink, `mcp-memory:entity\n${e.name}`);
      sink.putMemory(createMemory(entityRecord(e, seq++), id, origin));
      out.graph.entities++;
    } else if (was.observations !== JSON.stringify(e.observations)) {
      const m = byId.get(was.id)!;
      const { memory, changed } = updateMemory(m, { content: entityContent(e), meta: { extra: { knowledge_graph: { observations: e.observations } } } }, origin.now);
      if (changed) sink.putMemory(memory);
      out.graph.observations += e.observations.length - (JSON.parse(was.observations!) as string[]).length;
    } else out.memories.existing++; // the entity's memory as it is: counted, so a second import says so
  }
  for (const r of g.relations) {
    if (loaded.ids.has(r)) {
      out.memories.existing++;
      continue;
    }
    const id = uniqueId(sink, `mcp-memory:relation\n${JSON.stringify([r.from, r.relationType, r.to])}`);
    sink.putMemory(createMemory(relationRecord(r, seq++), id, origin));
    out.graph.relations++;
  }
}

/** The same id for the same entity on every machine (two imports merge); a fresh one if taken. */
function uniqueId(sink: Sink, text: string): string {
  const id = derivedId(text);
  return sink.exists("memory", id) ? newId() : id;
}

const count = (n: number) => n.toLocaleString("en-US");

export function messageOf(format: ImportFormat, o: ImportOutcome): string | null {
  const parts = [`${count(o.memories.imported)} memories`, `${count(o.relations.imported)} relations`];
  if (o.graph.entities || o.graph.relations || o.graph.observations) parts.push(`graph ${count(o.graph.entities)} entities, ${count(o.graph.relations)} relations, ${count(o.graph.observations)} observations`);
  const any = o.memories.imported + o.relations.imported + o.graph.entities + o.graph.relations + o.graph.observations;
  return any ? `import: ${format} ${parts.join(", ")}` : null;
}

export interface ImportInput {
  format: ImportFormat;
  /** Absolute. */
  path: string;
  dryRun: boolean;
  project: string | null;
}

export async function importOp(env: OpsEnv, input: ImportInput): Promise<ImportOutcome> {
  progress("reading", 0);
  const plan = await planFrom(input.format, input.path, input.project);
  const out: ImportOutcome = {
    format: input.format,
    source: input.path,
    dry_run: input.dryRun,
    memories: { imported: 0, existing: 0, invalid: 0 },
    relations: { imported: 0, existing: 0, missing_memory: 0, invalid: 0 },
    graph: { entities: 0, relations: 0, observations: 0 },
    stats: plan.stats,
    problems: [],
    problems_total: 0,
    message: null,
    commit: null,
    store_created: false,
  };
  const finish = () => {
    // in file order, line by line (the parser's and the checks' problems interleaved)
    plan.problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
    out.problems_total = plan.problems.length;
    out.problems = plan.problems.slice(0, MAX_LISTED_PROBLEMS);
    out.message = messageOf(input.format, out);
    return out;
  };
  if (input.dryRun) {
    if (!storeExists(env)) {
      const none: Sink = { exists: () => false, putMemory() {}, putRelation() {} };
      applyPlan(plan, none, { now: Math.floor(Date.now() / 1000), machine: null, user: env.user }, input.format, input.project, { memories: [] }, out);
      return finish();
    }
    return withStore(env, async (store) => {
      const graph = plan.graph.length ? await graphMemories(store) : [];
      const sink: Sink = { exists: (kind, id) => store.locate(kind, id) !== null, putMemory() {}, putRelation() {} };
      applyPlan(plan, sink, originOf(store, env), input.format, input.project, { memories: graph }, out);
      return finish();
    });
  }
  out.store_created = await ensureStore(env);
  return withStore(env, async (store) => {
    const graph = plan.graph.length ? await graphMemories(store) : [];
    const origin = originOf(store, env);
    // with git, the import commits itself under the same hold of the write lock, from the texts
    // it wrote (journal-fill.ts): no megabyte journal entry to write, read and check again
    const committing = fs.existsSync(path.join(store.root, ".git"));
    let texts: Map<string, string | null> | null = null;
    // the memories built on threads meanwhile (not a backup's: those are taken as they are)
    const builder =
      input.format === "jsonl"
        ? null
        : startBuilding(plan.memories.length, (at) => {
            const f = plan.memories[at]!.fields;
            return isId(f.id) ? [f.id, withProject(f, input.project)] : null;
          }, origin);
    const write = () => store.write((tx) => {
      const sink: Sink = {
        exists: (kind, id) => (kind === "memory" ? tx.memoryExists(id) : tx.relationExists(id)),
        putMemory: (m, made) => void tx.putMemory(m, made),
        putRelation: (r) => void tx.putRelation(r),
      };
      try {
        applyPlan(plan, sink, origin, input.format, input.project, { memories: graph }, out, builder);
      } finally {
        builder?.close();
      }
      const message = messageOf(input.format, out);
      if (message === null) return;
      progress("finishing", 0);
      const summary = `${input.format} ${input.path} (${count(out.memories.imported)} memories, ${count(out.relations.imported)} relations, ${new Date(origin.now * 1000).toISOString()})`;
      tx.updateMeta((meta) => {
        const prior = Array.isArray((meta as Fields).imports) ? ((meta as Fields).imports as unknown[]) : [];
        const entry = { format: input.format, source: input.path, memories: out.memories.imported, relations: out.relations.imported, graph: out.graph, problems: plan.problems.length, at: origin.now };
        return { ...meta, migrated_from: summary, imports: [...prior, entry] } as typeof meta;
      });
      tx.note("import", message);
      // thousands of new files: made durable together at the end, not one fsync each
    }, undefined, { bulk: true, ...(committing ? { fill: (t: Map<string, string | null>) => void (texts = t) } : {}) });
    if (!committing) {
      await write();
      return finish();
    }
    let committed = false;
    try {
      await store.exclusive(async () => {
        await write();
        if (texts === null) return;
        faultPoint("import-written");
        progress("committing", 0);
        let made: CommitOutcome;
        try {
          made = await commitLocked(store, commitAuthor(store, env), origin.now, { fillTexts: texts });
        } catch (e) {
          // the records are written and journaled; the next command that takes the lock fills the
          // entry's texts from disk and `memsync commit` commits them
          plan.problems.push({ file: "", line: 0, problem: `not committed (${oneLine(e)}): run memsync commit` });
          return;
        }
        // the entry is committed and gone from the journal: nothing left for a next holder to fill
        removeFillMarker(store.fs, store.root);
        committed = made.commits.length > 0;
        out.commit = made.commits.findLast((c) => c.message === messageOf(input.format, out))?.oid ?? made.head;
      });
    } finally {
      store.fillOwned = false;
    }
    if (committed) await autoRepack(store, false);
    return finish();
  });
}

/** The `memory` profile's records as that profile reads them (active and promoted, as list gives them). */
async function graphMemories(store: Store): Promise<Memory[]> {
  return (await store.list({ tags: [KG_TAG], statuses: ["active", "promoted"] }, null)).memories;
}
