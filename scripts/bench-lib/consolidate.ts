// Consolidation benchmark: stores of the benchmark corpus (corpus.ts) with near-duplicates mixed
// in, as an agent re-capturing the same knowledge in other words would make them. Times candidate
// generation and clustering in-process, and `memsync consolidate` (the preview) as a whole new
// process, at 1k / 10k / 50k memories; measures precision and recall of the clusters against the
// known groups of duplicates. Fixed seed: the same stores on every run.
//
//   bun scripts/bench-lib/consolidate.ts                      1k, 10k and 50k
//   bun scripts/bench-lib/consolidate.ts --sizes 1000,10000   only these
//   bun scripts/bench-lib/consolidate.ts --fresh              regenerate the stores
//   bun scripts/bench-lib/consolidate.ts --runs 5             whole-process runs per size (default 10/5/3)
//   bun scripts/bench-lib/consolidate.ts --baseline /tmp/old  the same preview by another binary,
//                                                             run for run beside dist/memsync
//
// Also the degenerate corpus (--sizes degenerate, included by default): 10,000 memories of 14
// words each drawn from a vocabulary of 21, where nearly every pair is alike; its preview must end
// in seconds with a bounded candidate count (issue 16).
//
// Whole-process figures: wall time, CPU time (user + system, less sensitive to the machine's
// load) and peak RSS (max resident set, as the kernel's VmHWM) of each run, the binaries
// alternating. Stores go to .bench/dups-<size> and .bench/degenerate-10000; the figures to
// .bench/consolidate-results.json and stdout. Targets (issue 16): the preview of 10k ≤ 1 s, of
// 50k ≤ 4 s, peak memory at 50k ≤ 300 MB, the degenerate corpus ≤ 10 s; candidates growing
// near-linearly (CortexGraph: 10.65 s for 1,000, comparing all pairs).

import fs from "node:fs";
import path from "node:path";
import { findClusters } from "../../src/core/cluster/clusters.ts";
import { createMemory, createRelation, type JsonObject } from "../../src/core/records.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import type { Relation } from "../../src/core/model/relation.ts";
import { findConsolidation } from "../../src/ops/consolidate.ts";
import { initStore } from "../../src/ops/init.ts";
import { listMemories } from "../../src/ops/query.ts";
import { Store } from "../../src/store/store.ts";
import { loadAverage, type Stat, statOf } from "./cold.ts";
import { Corpus, type GenMemory, type GenRelation, HISTORY_END, Rng, TAGS, uuidV7At } from "./corpus.ts";
import { settle } from "./generate.ts";

/** Bump when the duplicates or the corpus change, so stale stores are regenerated. */
export const DUP_GENERATOR_VERSION = 1;
export const DUP_SEED = 20261121;
/** Share of a store made of re-captured near-duplicates. */
const DUP_SHARE = 0.1;

// --- near-duplicates ---------------------------------------------------------------------------

/** Ways the same note comes back in other words: each applies with probability one half. */
const REWORDINGS: [RegExp, string][] = [
  [/^We decided to use /, "We chose "],
  [/ instead of /, " over "],
  [/ because /, " since "],
  [/^Fixed the /, "Resolved the "],
  [/, handle it in /, ", deal with it in "],
  [/^Prefer /, "Favor "],
  [/ over ad hoc conventions/, " rather than ad hoc conventions"],
  [/^Do not share /, "Never share "],
  [/ times out after /, " hits a timeout after "],
  [/ by switching to /, " by moving to "],
  [/ keeps its /, " has its "],
  [/ is configured through /, " gets configured via "],
];

const ADDED = [
  "Confirmed again this week.",
  "Still true as of the last release.",
  "Worth repeating for anyone new to the codebase.",
  "Came up again in code review.",
  "Noting this again so it is not lost.",
  "Double-checked against the current configuration.",
];

/** The same knowledge captured again: sentences dropped, added or moved, words changed. */
export function rephrase(text: string, r: Rng): string {
  let s = text.split(/(?<=\.)\s+/).filter(Boolean);
  const first = s[0]!;
  let head = first;
  for (const [re, to] of REWORDINGS) if (re.test(head) && r.chance(0.5)) head = head.replace(re, to);
  s[0] = head;
  const ops = r.int(1, 3);
  for (let k = 0; k < ops; k++) {
    const op = r.int(0, 3);
    if (op === 0 && s.length >= 3) s.splice(r.int(1, s.length - 1), 1);
    else if (op === 1) s.push(r.pick(ADDED));
    else if (op === 2 && s.length >= 3) s.splice(1, 0, s.pop()!);
    else if (op === 3 && s.length >= 4) s = s.slice(0, Math.ceil(s.length * 0.6));
  }
  const out = s.join(" ");
  return r.chance(0.2) ? out.charAt(0).toLowerCase() + out.slice(1) : out;
}

export interface DupCorpus {
  memories: GenMemory[];
  relations: GenRelation[];
  /** The known groups of near-duplicates (the original first), by id. */
  groups: string[][];
}

/** The corpus of `size` memories: 90% the benchmark corpus, 10% near-duplicates of its active memories. */
export function dupCorpus(size: number, seed = DUP_SEED): DupCorpus {
  const base = new Corpus(size - Math.round(size * DUP_SHARE), seed);
  const memories: GenMemory[] = [];
  const relations: GenRelation[] = [];
  while (!base.done) {
    const { memory, relations: rels } = base.next();
    memories.push(memory);
    relations.push(...rels);
  }
  const r = new Rng(seed ^ 0x5eed1e55);
  const eligible = memories.filter((m) => m.fields.status === "active");
  const used = new Set<string>();
  const groups: string[][] = [];
  let extra = size - memories.length;
  while (extra > 0) {
    const seedMem = r.pick(eligible);
    if (used.has(seedMem.id)) continue;
    used.add(seedMem.id);
    const copies = Math.min(extra, Number(r.weighted({ "1": 60, "2": 30, "3": 10 })));
    const group = [seedMem.id];
    const f = seedMem.fields;
    for (let k = 0; k < copies; k++) {
      const createdMs = Math.min(seedMem.createdMs + r.int(1, 120) * 86_400_000 + r.int(0, 86_399_999), HISTORY_END * 1000 - 1);
      const created = Math.floor(createdMs / 1000);
      const tags = [...(f.meta as { tags: string[] }).tags];
      if (tags.length > 1 && r.chance(0.3)) tags.splice(r.int(0, tags.length - 1), 1);
      if (r.chance(0.3)) tags.push(r.pick(TAGS));
      const entities = [...(f.entities as string[])];
      if (entities.length > 1 && r.chance(0.2)) entities.pop();
      const id = uuidV7At(createdMs, r);
      memories.push({
        id,
        createdMs,
        fields: {
          ...f,
          content: rephrase(f.content as string, r),
          gist: null,
          meta: { ...(f.meta as JsonObject), tags: [...new Set(tags)] },
          entities,
          decision: null,
          created_at: created,
          last_used: created + r.int(0, Math.max(0, HISTORY_END - created)),
          updated_at: created,
          use_count: r.int(0, 6),
          strength: r.chance(0.8) ? 1 : Math.round((1 + r.next()) * 10) / 10,
          status: "active",
        },
      });
      group.push(id);
    }
    groups.push(group);
    extra -= copies;
  }
  memories.sort((a, b) => a.createdMs - b.createdMs || (a.id < b.id ? -1 : 1));
  return { memories, relations, groups };
}

/** The degenerate corpus: `size` memories of 14 words drawn from 21, nearly all alike. */
export const DEGENERATE_VOCABULARY =
  "cache deploy token retry queue worker schema index shard replica timeout billing invoice tenant session cursor webhook migration rollback lock pool".split(" ");

export function degenerateCorpus(size: number, seed = DUP_SEED): DupCorpus {
  const r = new Rng(seed ^ 0xde9e4e7a);
  const memories: GenMemory[] = [];
  for (let k = 0; k < size; k++) {
    const createdMs = HISTORY_END * 1000 - (size - k) * 60_000;
    const created = Math.floor(createdMs / 1000);
    const content = Array.from({ length: 14 }, () => r.pick(DEGENERATE_VOCABULARY)).join(" ");
    memories.push({ id: uuidV7At(createdMs, r), createdMs, fields: { content, type: "fact", project: "degenerate", created_at: created, last_used: created } });
  }
  return { memories, relations: [], groups: [] };
}

// --- stores ------------------------------------------------------------------------------------

interface DupManifest {
  version: number;
  seed: number;
  size: number;
  groups: string[][];
  generated_at: string;
  generate_seconds: number;
}

const manifestOf = (dir: string) => `${dir}.manifest.json`;

export async function ensureDupStore(
  dir: string,
  size: number,
  opts: { fresh: boolean; log: (s: string) => void; corpus?: (size: number) => DupCorpus },
): Promise<DupManifest> {
  try {
    const old = JSON.parse(fs.readFileSync(manifestOf(dir), "utf8")) as DupManifest;
    if (!opts.fresh && old.version === DUP_GENERATOR_VERSION && old.seed === DUP_SEED && old.size === size && fs.existsSync(`${dir}/.meta.json`)) {
      opts.log(`  reusing ${dir} (generated ${old.generated_at}; --fresh to regenerate)`);
      await settle(dir);
      return old;
    }
  } catch {
    // none yet
  }
  const t0 = performance.now();
  fs.rmSync(dir, { recursive: true, force: true });
  await initStore({ storeRoot: dir, hostName: "bench-host", user: "bench" }, { git: true });
  const corpus = (opts.corpus ?? dupCorpus)(size);
  const store = await Store.open(dir);
  try {
    for (let i = 0; i < corpus.memories.length; i += 500) {
      const batch = corpus.memories.slice(i, i + 500);
      const ids = new Set(batch.map((m) => m.id));
      const ms: Memory[] = batch.map((m) => createMemory(m.fields, m.id, { now: m.fields.created_at as number, machine: "bench-host", user: "bench" }));
      const rs: Relation[] = corpus.relations
        .filter((r) => ids.has(r.from))
        .map((r) => createRelation({ from: r.from, to: r.to, type: r.type, strength: r.strength }, r.id, r.created_at));
      await store.write((tx) => {
        for (const m of ms) tx.putMemory(m);
        for (const r of rs) tx.putRelation(r);
      });
    }
  } finally {
    store.close();
  }
  await settle(dir);
  const manifest: DupManifest = {
    version: DUP_GENERATOR_VERSION,
    seed: DUP_SEED,
    size,
    groups: corpus.groups,
    generated_at: new Date().toISOString(),
    generate_seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
  fs.writeFileSync(manifestOf(dir), `${JSON.stringify(manifest)}\n`);
  opts.log(`  generated ${dir}: ${size} memories, ${corpus.groups.length} groups of near-duplicates, ${manifest.generate_seconds} s`);
  return manifest;
}

// --- quality -----------------------------------------------------------------------------------

export interface Quality {
  /** Pairs put in one cluster that belong to one known group, of all pairs put in one cluster. */
  precision: number;
  /** Pairs of a known group found in one cluster, of all such pairs. */
  recall: number;
  /** Known groups found exactly (one cluster, the same members). */
  exact_groups: number;
  groups: number;
  clusters: number;
  true_pairs: number;
  found_pairs: number;
}

function pairsOf(sets: readonly (readonly string[])[]): Set<string> {
  const out = new Set<string>();
  for (const s of sets) {
    const sorted = [...s].sort();
    for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < sorted.length; j++) out.add(`${sorted[i]} ${sorted[j]}`);
  }
  return out;
}

export function quality(clusters: readonly (readonly string[])[], groups: readonly (readonly string[])[]): Quality {
  const truth = pairsOf(groups);
  const found = pairsOf(clusters);
  let hit = 0;
  for (const p of found) if (truth.has(p)) hit++;
  const key = (s: readonly string[]) => [...s].sort().join(" ");
  const clusterKeys = new Set(clusters.map(key));
  return {
    precision: found.size ? hit / found.size : 1,
    recall: truth.size ? hit / truth.size : 1,
    exact_groups: groups.filter((g) => clusterKeys.has(key(g))).length,
    groups: groups.length,
    clusters: clusters.length,
    true_pairs: truth.size,
    found_pairs: found.size,
  };
}

// --- measurements ------------------------------------------------------------------------------

/** Whole-process runs of one binary: wall and CPU time (ms), peak RSS (MB). */
export interface ProcessRuns {
  bin: string;
  wall: Stat;
  cpu: Stat;
  peak_rss_mb: number;
}

/**
 * `bin --store dir consolidate --json` for each binary, alternating run by run (one warm-up each),
 * so a change in the machine's load falls on all of them alike. CPU time and peak RSS come from
 * GNU time (the kernel's accounting of that child: ru_maxrss, what /proc shows as VmHWM); Bun's
 * spawnSync resourceUsage reported the benchmark's own peak, not the child's.
 */
export function wholeProcess(bins: readonly string[], dir: string, runs: number): ProcessRuns[] {
  const time = "/usr/bin/time";
  if (!fs.existsSync(time)) throw new Error("GNU time (/usr/bin/time) is needed for CPU time and peak RSS");
  const out = path.join(path.dirname(dir), "consolidate-time.txt");
  const wall = bins.map(() => [] as number[]);
  const cpu = bins.map(() => [] as number[]);
  const rss = bins.map(() => 0);
  for (let k = -1; k < runs; k++) {
    bins.forEach((bin, b) => {
      const t0 = performance.now();
      const r = Bun.spawnSync({ cmd: [time, "-o", out, "-f", "%U %S %M", bin, "--store", dir, "consolidate", "--json"], stdout: "ignore", stderr: "pipe" });
      const ms = performance.now() - t0;
      if (r.exitCode !== 0) throw new Error(`${bin} consolidate failed: ${r.stderr.toString()}`);
      if (k < 0) return;
      const [user, system, kb] = fs.readFileSync(out, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
      wall[b]!.push(ms);
      cpu[b]!.push((user! + system!) * 1000);
      rss[b] = Math.max(rss[b]!, kb! / 1024);
    });
  }
  return bins.map((bin, b) => ({ bin, wall: statOf(wall[b]!), cpu: statOf(cpu[b]!), peak_rss_mb: Math.round(rss[b]!) }));
}

export interface ConsolidationResult {
  size: number;
  corpus: "dups" | "degenerate";
  active: number;
  candidates: number;
  verified: number;
  /** In-process: findClusters over the active memories (candidates, verification, clustering). */
  clustering: Stat;
  /** In-process: the preview's work as the command does it (read the index, cluster, read the members). */
  preview_inproc: Stat;
  /** `memsync consolidate --json` as a whole new process: this build, then each baseline. */
  process: ProcessRuns[];
  /** Against the known groups of near-duplicates (none in the degenerate corpus). */
  quality: Quality | null;
  load: number | undefined;
}

export async function measureConsolidation(
  dir: string,
  size: number,
  bins: readonly string[],
  groups: string[][] | null,
  runs?: number,
): Promise<ConsolidationResult> {
  const reps = runs ?? (size >= 50_000 ? 3 : size >= 10_000 ? 5 : 10);
  const store = await Store.open(dir);
  let active: Memory[];
  const clustering: number[] = [];
  const previews: number[] = [];
  let stats = { items: 0, candidates: 0, verified: 0 };
  let found: string[][] = [];
  try {
    active = (await listMemories(store, { statuses: ["active"] }, null)).memories;
    const inputs = active.map((m) => ({ id: m.id, content: m.content, tags: m.meta.tags, entities: m.entities, group: `${m.project ?? ""}\u0000${m.scope}` }));
    findClusters(inputs); // warm the JIT
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      const out = findClusters(inputs);
      clustering.push(performance.now() - t0);
      stats = out.stats;
      found = out.clusters.map((c) => c.members);
    }
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      await findConsolidation(store);
      previews.push(performance.now() - t0);
    }
  } finally {
    store.close();
  }
  const process = wholeProcess(bins, dir, reps);
  const activeIds = new Set(active.map((m) => m.id));
  const knownGroups = groups?.map((g) => g.filter((id) => activeIds.has(id))).filter((g) => g.length > 1);
  return {
    size,
    corpus: groups ? "dups" : "degenerate",
    active: active.length,
    candidates: stats.candidates,
    verified: stats.verified,
    clustering: statOf(clustering),
    preview_inproc: statOf(previews),
    process,
    quality: knownGroups ? quality(found, knownGroups) : null,
    load: loadAverage(),
  };
}

/** CortexGraph compares all pairs: 10.65 s at 1,000 memories (DESIGN.md), n² beyond (extrapolated). */
export function cortexGraphSeconds(size: number): { seconds: number; measured: boolean } {
  return { seconds: 10.65 * (size / 1000) ** 2, measured: size === 1000 };
}

function table(results: ConsolidationResult[]): string {
  const s = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
  const cg = (r: ConsolidationResult) => {
    if (r.corpus === "degenerate") return "-";
    const c = cortexGraphSeconds(r.size);
    return c.measured ? `${c.seconds.toFixed(2)} s (measured)` : `~${c.seconds >= 3600 ? `${(c.seconds / 3600).toFixed(1)} h` : `${Math.round(c.seconds / 60)} min`} (n², extrapolated)`;
  };
  const name = (r: ConsolidationResult) => `${r.size.toLocaleString("en")}${r.corpus === "degenerate" ? " degenerate" : ""}`;
  const proc = (p: ProcessRuns) => `${s(p.wall.median)} s, CPU ${s(p.cpu.median)} s, ${p.peak_rss_mb} MB`;
  const baselines = results[0]?.process.length ?? 1;
  const lines = [
    `| memories | active compared | candidate pairs (of all pairs) | per memory | clustering in-process, median s | preview in-process, median s | \`memsync consolidate\` whole process: median wall, CPU, peak RSS |${baselines > 1 ? " baseline binary, same runs |" : ""} CortexGraph (all pairs) |`,
    `|--:|--:|--:|--:|--:|--:|--:|${baselines > 1 ? "--:|" : ""}--:|`,
    ...results.map(
      (r) =>
        `| ${name(r)} | ${r.active.toLocaleString("en")} | ${r.candidates.toLocaleString("en")} (${((100 * r.candidates) / ((r.active * (r.active - 1)) / 2)).toFixed(2)}%) | ${(r.candidates / r.active).toFixed(1)} | ${s(r.clustering.median)} | ${s(r.preview_inproc.median)} | ${proc(r.process[0]!)} |${r.process.slice(1).map((p) => ` ${proc(p)} (${(r.process[0]!.wall.median / p.wall.median).toFixed(2)}x wall) |`).join("")} ${cg(r)} |`,
    ),
    "",
    "| memories | known groups | clusters found | exact groups | pair precision | pair recall |",
    "|--:|--:|--:|--:|--:|--:|",
    ...results
      .filter((r) => r.quality)
      .map((r) => `| ${name(r)} | ${r.quality!.groups} | ${r.quality!.clusters} | ${r.quality!.exact_groups} | ${(100 * r.quality!.precision).toFixed(1)}% | ${(100 * r.quality!.recall).toFixed(1)}% |`),
  ];
  return lines.join("\n");
}

async function main(argv: string[]): Promise<void> {
  const repo = path.resolve(import.meta.dirname, "../..");
  let sizes: (number | "degenerate")[] = [1000, 10_000, 50_000, "degenerate"];
  let fresh = false;
  let runs: number | undefined;
  const baselines: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--sizes") sizes = argv[++i]!.split(",").map((x) => (x.trim() === "degenerate" ? "degenerate" : Number(x.trim().replace(/k$/i, "000"))));
    else if (a === "--fresh") fresh = true;
    else if (a === "--runs") runs = Number(argv[++i]);
    else if (a === "--baseline") baselines.push(path.resolve(argv[++i]!));
    else {
      console.error("usage: bun scripts/bench-lib/consolidate.ts [--sizes 1000,10000,50000,degenerate] [--fresh] [--runs N] [--baseline BIN]...");
      process.exit(2);
    }
  }
  const bin = path.join(repo, "dist/memsync");
  if (!fs.existsSync(bin)) throw new Error(`build the binary first: ${bin} (npm run build)`);
  const benchDir = path.join(repo, ".bench");
  fs.mkdirSync(benchDir, { recursive: true });
  const results: ConsolidationResult[] = [];
  for (const size of sizes) {
    const degenerate = size === "degenerate";
    const n = degenerate ? 10_000 : size;
    console.log(`consolidation, ${n} memories${degenerate ? " (degenerate: 14 words of 21)" : ""}:`);
    const dir = path.join(benchDir, degenerate ? `degenerate-${n}` : `dups-${n}`);
    const manifest = await ensureDupStore(dir, n, { fresh, log: (l) => console.log(l), corpus: degenerate ? degenerateCorpus : dupCorpus });
    const r = await measureConsolidation(dir, n, [bin, ...baselines], degenerate ? null : manifest.groups, runs);
    const q = r.quality ? `; precision ${(100 * r.quality.precision).toFixed(1)}%, recall ${(100 * r.quality.recall).toFixed(1)}%` : "";
    const procs = r.process.map((p) => `${path.basename(p.bin)} ${p.wall.median.toFixed(0)} ms (CPU ${p.cpu.median.toFixed(0)} ms, peak ${p.peak_rss_mb} MB)`).join(" | ");
    console.log(`  clustering ${r.clustering.median.toFixed(0)} ms, preview in-process ${r.preview_inproc.median.toFixed(0)} ms; whole process: ${procs}; ${r.candidates} candidates, ${r.verified} verified${q}; load ${r.load?.toFixed(1)}`);
    results.push(r);
  }
  fs.writeFileSync(path.join(benchDir, "consolidate-results.json"), `${JSON.stringify({ generated_at: new Date().toISOString(), results }, null, 2)}\n`);
  console.log(`\n${table(results)}`);
}

if (import.meta.main) await main(process.argv.slice(2));
