// The gc benchmark (issue 4): a 10k store with a realistic age spread, `memsync gc` then
// `memsync commit`, each a whole process of the compiled binary, timed on fresh copies of the
// store (gc changes it). Also, in process, what finding the candidates costs: scoring every
// active memory from the index, against loading and scoring every record file.
//
//   bun scripts/bench-lib/gc.ts [--runs 5] [--size 10000] [--fresh] [--json FILE]
//
// Two stores, both from the benchmark corpus (corpus.ts) with its history moved to end now:
//   routine  the store a daily gc keeps: every memory that was under the forget threshold at
//            yesterday's gc is already gone (the corpus is grown until 10k survive, then thinned
//            at random to exactly the size), so today's gc takes what crossed in the last day.
//   backlog  the corpus as it is, never gc'd in two years: the first gc takes about half of it,
//            the worst case for gc and for its commit.
//
// CortexGraph publishes no gc figure; its gc loads every memory and scores it, so its load of
// 10k memories (124 ms in process, from one JSONL file, in our notes) is the floor it compares
// with; it does not commit.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_SCORING, scoreMemory } from "../../src/core/decay.ts";
import { createMemory, createRelation } from "../../src/core/records.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import type { Relation } from "../../src/core/model/relation.ts";
import { initStore } from "../../src/ops/init.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { loadAll } from "../../src/store/load-all.ts";
import { loadCodec, Store } from "../../src/store/store.ts";
import { type Stat, statOf } from "./cold.ts";
import { Corpus, HISTORY_END, Rng } from "./corpus.ts";
import { scratchCopy, settle } from "./generate.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(REPO, "dist/memsync");
const SEED = 20261121;
const DAY = 86_400;
/** A generated store is reused this long: its ages are relative to when it was made. */
const REUSE_SECONDS = 3600;

export type Scenario = "routine" | "backlog";

export interface GcStoreManifest {
  scenario: Scenario;
  size: number;
  /** The moment the corpus history was moved to end at (Unix seconds). */
  now: number;
  corpus_size: number;
  active: number;
  relations: number;
  generated_at: string;
}

export interface GcBenchResult {
  scenario: Scenario;
  manifest: GcStoreManifest;
  pruned: number;
  relations_removed: number;
  gc: Stat;
  commit: Stat;
  total: Stat;
  /** In process: score every active memory from the index (gc's candidate search), median of runs. */
  score_from_index: Stat;
  /** In process: load and validate every record file, then score (what a full load costs). */
  load_and_score: Stat;
}

interface Gen {
  memory: Memory;
  relations: Relation[];
}

/** The corpus of `size`, its history moved to end at `now`. */
function* shifted(size: number, now: number): Generator<Gen> {
  const corpus = new Corpus(size, SEED);
  const offset = now - HISTORY_END;
  while (!corpus.done) {
    const { memory, relations } = corpus.next();
    const f = { ...memory.fields };
    for (const k of ["created_at", "last_used", "updated_at"]) if (typeof f[k] === "number") f[k] = (f[k] as number) + offset;
    const m = createMemory(f, memory.id, { now: f.created_at as number, machine: "bench-host", user: "bench" });
    const rs = relations.map((r) => createRelation({ from: r.from, to: r.to, type: r.type, strength: r.strength }, r.id, r.created_at + offset));
    yield { memory: m, relations: rs };
  }
}

/** Whether yesterday's gc would have taken it (active and under the threshold a day ago). */
function goneYesterday(m: Memory, now: number): boolean {
  return m.status === "active" && scoreMemory(m, now - DAY, DEFAULT_SCORING.decay) < DEFAULT_SCORING.forget_threshold;
}

/** The records of a scenario's store, in creation order. */
function records(scenario: Scenario, size: number, now: number): { gens: Gen[]; corpusSize: number } {
  if (scenario === "backlog") return { gens: [...shifted(size, now)], corpusSize: size };
  // grow the corpus until `size` memories survive yesterday's gc, then thin it to exactly `size`
  let corpusSize = Math.ceil(size * 1.6);
  for (;;) {
    const all = [...shifted(corpusSize, now)];
    const kept = all.filter((g) => !goneYesterday(g.memory, now));
    if (kept.length >= size) {
      const rng = new Rng(SEED ^ corpusSize);
      const drop = new Set<number>();
      while (kept.length - drop.size > size) drop.add(Math.floor(rng.next() * kept.length));
      const gens = kept.filter((_, i) => !drop.has(i));
      const ids = new Set(gens.map((g) => g.memory.id));
      for (const g of gens) g.relations = g.relations.filter((r) => ids.has(r.from_memory_id) && ids.has(r.to_memory_id));
      return { gens, corpusSize };
    }
    corpusSize = Math.ceil(corpusSize * 1.1);
  }
}

async function generate(dir: string, scenario: Scenario, size: number, log: (s: string) => void): Promise<GcStoreManifest> {
  const now = Math.floor(Date.now() / 1000);
  const { gens, corpusSize } = records(scenario, size, now);
  fs.rmSync(dir, { recursive: true, force: true });
  await initStore({ storeRoot: dir, hostName: "bench-host", user: "bench" }, { git: true });
  const store = await Store.open(dir);
  let relations = 0;
  try {
    for (let i = 0; i < gens.length; i += 500) {
      const batch = gens.slice(i, i + 500);
      await store.write((tx) => {
        for (const g of batch) tx.putMemory(g.memory);
        for (const g of batch) for (const r of g.relations) tx.putRelation(r);
      });
      relations += batch.reduce((n, g) => n + g.relations.length, 0);
    }
  } finally {
    store.close();
  }
  // history: the store is committed once, so the timed commit is gc's alone
  const c = spawnSync(BIN, ["--store", dir, "commit"], { stdio: ["ignore", "ignore", "inherit"] });
  if (c.status !== 0) throw new Error(`memsync commit of ${dir} failed`);
  await settle(dir);
  const manifest: GcStoreManifest = {
    scenario,
    size: gens.length,
    now,
    corpus_size: corpusSize,
    active: gens.filter((g) => g.memory.status === "active").length,
    relations,
    generated_at: new Date().toISOString(),
  };
  fs.writeFileSync(`${dir}.manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`  ${scenario}: ${manifest.size} memories (${manifest.active} active, ${relations} relations; corpus of ${corpusSize}) at ${dir}`);
  return manifest;
}

async function ensureStore(dir: string, scenario: Scenario, size: number, fresh: boolean, log: (s: string) => void): Promise<GcStoreManifest> {
  try {
    const m = JSON.parse(fs.readFileSync(`${dir}.manifest.json`, "utf8")) as GcStoreManifest;
    const young = Date.now() / 1000 - m.now < REUSE_SECONDS;
    if (!fresh && young && m.scenario === scenario && m.size === size && fs.existsSync(`${dir}/.memsync/committed.json`)) {
      log(`  ${scenario}: reusing ${dir} (made ${m.generated_at})`);
      await settle(dir); // also brings its index up to this build's version
      return m;
    }
  } catch {
    // none yet
  }
  return generate(dir, scenario, size, log);
}

function timed(argv: string[]): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 256 * 2 ** 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (exit ${r.status}): ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

async function measureInproc(dir: string, reps: number): Promise<{ index: Stat; load: Stat }> {
  await loadCodec();
  const store = await Store.open(dir);
  const index: number[] = [];
  const load: number[] = [];
  let a = 0;
  let b = 0;
  try {
    await store.refresh(false);
    for (let i = 0; i <= reps; i++) {
      const now = Math.floor(Date.now() / 1000);
      const t0 = performance.now();
      const rows = await store.scoringRows(["active"]);
      a = rows.filter((r) => scoreMemory(r, now, DEFAULT_SCORING.decay) < DEFAULT_SCORING.forget_threshold).length;
      const t1 = performance.now();
      const all = loadAll(nodeFs, dir);
      b = [...all.memories.values()].filter((m) => m.status === "active" && scoreMemory(m, now, DEFAULT_SCORING.decay) < DEFAULT_SCORING.forget_threshold).length;
      const t2 = performance.now();
      if (i > 0) {
        index.push(t1 - t0);
        load.push(t2 - t1);
      }
    }
  } finally {
    store.close();
  }
  if (a !== b) throw new Error(`the index and the files disagree on the candidates: ${a} vs ${b}`);
  return { index: statOf(index), load: statOf(load) };
}

export async function measureGcScenario(benchDir: string, scenario: Scenario, size: number, runs: number, fresh: boolean, log: (s: string) => void): Promise<GcBenchResult> {
  const dir = path.join(benchDir, `gc-${scenario}-${size}`);
  const manifest = await ensureStore(dir, scenario, size, fresh, log);
  const copy = `${dir}-scratch`;
  const gc: number[] = [];
  const commit: number[] = [];
  let pruned = -1;
  let relationsRemoved = -1;
  for (let i = 0; i < runs; i++) {
    scratchCopy(dir, copy);
    await settle(copy);
    // the copy's data is still being written back; on ext4 (data=ordered) the first fsyncs of a
    // command would wait for all of it: flush it first, as it is for a store in use
    spawnSync("sync");
    const g = timed([BIN, "--store", copy, "gc", "--json"]);
    const c = timed([BIN, "--store", copy, "commit", "--json"]);
    const out = JSON.parse(g.stdout) as { removed: string[]; relations_removed: string[] };
    const made = (JSON.parse(c.stdout) as { commits: unknown[] }).commits.length;
    if (made !== 1) throw new Error(`gc should make one commit, made ${made}`);
    gc.push(g.ms);
    commit.push(c.ms);
    pruned = out.removed.length;
    relationsRemoved = out.relations_removed.length;
    log(`  ${scenario} run ${i + 1}/${runs}: gc ${g.ms.toFixed(0)} ms (${pruned} memories, ${relationsRemoved} relations), commit ${c.ms.toFixed(0)} ms`);
  }
  fs.rmSync(copy, { recursive: true, force: true });
  const inproc = await measureInproc(dir, 10);
  return {
    scenario,
    manifest,
    pruned,
    relations_removed: relationsRemoved,
    gc: statOf(gc),
    commit: statOf(commit),
    total: statOf(gc.map((x, i) => x + commit[i]!)),
    score_from_index: inproc.index,
    load_and_score: inproc.load,
  };
}

const ms = (s: Stat) => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;

export function gcTable(results: GcBenchResult[]): string {
  const rows = [
    "| 10k store | pruned | `memsync gc` | `memsync commit` | gc + commit | CortexGraph |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of results) {
    const what = r.scenario === "routine" ? "daily gc (steady state)" : "first gc of a two-year store";
    rows.push(`| ${what}: ${r.manifest.size} memories, ${r.manifest.active} active | ${r.pruned} memories, ${r.relations_removed} relations | ${ms(r.gc)} | ${ms(r.commit)} | **${ms(r.total)}** | no gc figure; does not commit |`);
  }
  rows.push("", "| finding gc's candidates in process (10k) | memsync | CortexGraph |", "| --- | --- | --- |");
  for (const r of results) {
    rows.push(`| ${r.scenario}: score every active memory | ${ms(r.score_from_index)} from the index; ${ms(r.load_and_score)} loading every file | 124 ms just to load 10k (one JSONL file), before scoring |`);
  }
  return rows.join("\n");
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const runs = Number(opt("--runs") ?? 5);
  const size = Number(opt("--size") ?? 10_000);
  const jsonOut = opt("--json");
  const fresh = argv.includes("--fresh");
  if (!fs.existsSync(BIN)) throw new Error("dist/memsync is missing: npm run build");
  const benchDir = path.join(REPO, ".bench");
  fs.mkdirSync(benchDir, { recursive: true });
  const log = (s: string) => console.log(s);
  const results: GcBenchResult[] = [];
  for (const scenario of ["routine", "backlog"] as const) results.push(await measureGcScenario(benchDir, scenario, size, runs, fresh, log));
  console.log(`\n${gcTable(results)}\n`);
  console.log(`whole-process times of the compiled binary, median (min–max) of ${runs} fresh copies each; target: gc + commit < 1 s on 10k`);
  if (jsonOut) fs.writeFileSync(jsonOut, `${JSON.stringify(results, null, 2)}\n`);
}

if (import.meta.main) await main();
