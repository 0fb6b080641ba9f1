// The machine description and the Markdown report (docs/benchmarks.md).

import { spawnSync } from "node:child_process";
import { type SuiteResult, suitesMarkdown } from "./suites.ts";
import fs from "node:fs";
import os from "node:os";
import type { Stat } from "./cold.ts";
import { type InprocResult, SEARCH_LIMIT } from "./inproc.ts";
import type { Manifest } from "./generate.ts";

export interface Machine {
  nproc: string;
  memory: string;
  cpu: string;
  kernel: string;
  bun: string;
  deno: string;
  hyperfine: string;
}

function sh(cmd: string, args: string[]): string {
  try {
    const r = spawnSync(cmd, args, { encoding: "utf8" });
    return r.status === 0 ? r.stdout.trim() : "";
  } catch {
    return "";
  }
}

export function describeMachine(hyperfine: string | null): Machine {
  let cpu = "";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? "";
  } catch {
    // not Linux
  }
  const freeH = sh("free", ["-h"]);
  const memLine = /^Mem:\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+(\S+)/m.exec(freeH);
  return {
    nproc: sh("nproc", []) || String(os.availableParallelism()),
    memory: memLine ? `${memLine[1]} total, ${memLine[4]} available (free -h)` : `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    cpu: cpu || os.cpus()[0]?.model || "unknown",
    kernel: sh("uname", ["-sr"]) || `${os.type()} ${os.release()}`,
    bun: process.versions.bun ?? "not Bun",
    deno: sh("deno", ["--version"]).split("\n")[0] ?? "",
    hyperfine: hyperfine ? sh(hyperfine, ["--version"]) : "not installed (spawnSync fallback)",
  };
}

export interface SizeResult {
  size: number;
  manifest: Manifest;
  reused: boolean;
  generateSeconds: number;
  cold: Record<string, Stat>;
  inproc: InprocResult;
}

export interface Results {
  date: string;
  machine: Machine;
  method: { hyperfine: boolean; runs: number; warmup: number; flags: string };
  baselines: Record<string, Stat>;
  sizes: SizeResult[];
  totalSeconds: number;
  command: string;
  /** 1-minute load average when the run started. */
  loadAtStart: number | undefined;
  /** The commit measured (dist/memsync is built from the working tree). */
  commit: string;
  /** Issue 4 and 5 suites (bench-lib/suites.ts). */
  suites?: SuiteResult[];
}

export const TARGETS_10K: { key: string; label: string; limit: number }[] = [
  { key: "save", label: "cold `save`", limit: 25 },
  { key: "get-old", label: "cold `get`", limit: 15 },
  { key: "search-common", label: "cold `search`", limit: 60 },
  { key: "sync-push-one", label: "`sync` pushing 1 new memory (local bare remote)", limit: 250 },
  { key: "pull-100", label: "`pull` of 100 remote changes", limit: 1000 },
  { key: "merge-driver", label: "merge driver, one file", limit: 15 },
];

/** What a command printed last, e.g. "20 of 1187 matches (raise --limit to see more)". */
function printed(s: Stat | undefined): string {
  return s?.lastLine ? `; prints "${s.lastLine.replace(/\s*\(.*\)$/, "").replace(/\|/g, "\\|")}"` : "";
}

export const COLD_ROWS: { key: string; label: (m: Manifest, s: Stat | undefined) => string }[] = [
  { key: "save", label: () => '`save "<text>" --tag bench`, quiet store (2.1 s pause before each run; on the copy)' },
  { key: "save-burst", label: () => "`save`, back to back (a burst of saves within 2 s; on the copy)" },
  { key: "commit-one", label: () => "`commit` of one new memory (saved as hyperfine --prepare; on the copy; issue 3 target with push: < 250 ms)" },
  { key: "merge-driver", label: () => "`merge-driver %O %A %B %P %L` on one memory (issue 3 target: < 15 ms)" },
  { key: "sync-push-one", label: () => "`sync` pushing one new memory to a bare repository on a local path (commit + pull + push; issue 3 target: < 250 ms, within 2x native git)" },
  { key: "native-push-one", label: () => "native git doing the same: add one file, commit, push to the same kind of remote" },
  { key: "pull-100", label: () => "`pull` of 100 changed memories from the remote (issue 3 target: < 1 s)" },
  { key: "native-pull-100", label: () => "native git doing the same: `git pull` of those 100 changes" },
  { key: "get-old", label: (m) => `\`get <id>\`, a two-year-old memory (\`${m.old_path.replace(/[0-9a-f-]{36}/, "<id>")}\`)` },
  { key: "get-recent", label: () => "`get <id>` of a memory rewritten just before (`touch` as hyperfine --prepare)" },
  { key: "search-common", label: (m, s) => `\`search ${m.common_query}\` (${m.common_matches} matches${printed(s)})` },
  { key: "search-rare", label: (m, s) => `\`search ${m.rare_query}\` (${m.rare_matches} matches${printed(s)})` },
  { key: "search-after-save", label: (m, s) => `\`search ${m.rare_query}\` right after a \`save\` (prepare: pause 2.1 s, save; ${s?.runs ?? "?"} runs)` },
  { key: "status", label: () => "`status` (re-stats every record file)" },
  { key: "list", label: (_m, s) => `\`list\` (newest first${printed(s)})` },
];

export const BASELINE_ROWS: { key: string; label: string }[] = [
  { key: "empty-process", label: "empty process (`/bin/true`)" },
  { key: "empty-bun", label: "empty compiled Bun program (`bun build --compile --bytecode` of an empty file)" },
  { key: "version", label: "`memsync --version`" },
];

const f1 = (x: number) => x.toFixed(1);
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function row(label: string, s: Stat, load = true): string {
  const l = load ? ` ${s.load === undefined ? "" : s.load.toFixed(2)} |` : "";
  return `| ${label} | ${f1(s.mean)} | ${f1(s.median)} | ${f1(s.stddev)} | ${f1(s.min)} | ${f1(s.max)} |${l}`;
}

const HEAD = "| | mean ms | median ms | σ ms | min ms | max ms | load |\n|---|--:|--:|--:|--:|--:|--:|";
const HEAD_IP = "| | mean ms | median ms | σ ms | min ms | max ms |\n|---|--:|--:|--:|--:|--:|";

function sizeName(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

export const NOTES_START = "<!-- notes:start (kept when scripts/bench rewrites this file) -->";
export const NOTES_END = "<!-- notes:end -->";

/** Hand-written notes from an existing report, so a re-run keeps them. */
export function existingNotes(path: string): string | null {
  try {
    const text = fs.readFileSync(path, "utf8");
    const a = text.indexOf(NOTES_START);
    const b = text.indexOf(NOTES_END);
    if (a >= 0 && b > a) return text.slice(a + NOTES_START.length, b).trim();
  } catch {
    // no report yet
  }
  return null;
}

export function markdown(r: Results, notes: string | null): string {
  const out: string[] = [];
  const m = r.machine;
  const at10k = r.sizes.find((s) => s.size === 10_000);
  out.push("# Benchmarks");
  out.push("");
  out.push(
    `Generated by \`${r.command}\` on ${r.date}; the whole run (store generation included) took ${f1(r.totalSeconds)} s. ` +
      "Figures are milliseconds of wall-clock time. Re-run `scripts/bench` to refresh them; the notes section is kept.",
  );
  out.push("");
  out.push(`Measured: memsync at ${r.commit}.`);
  out.push("");
  out.push("## Machine");
  out.push("");
  out.push(`- CPU: ${m.cpu}, ${m.nproc} cores (\`nproc\`)`);
  out.push(`- Memory: ${m.memory}`);
  out.push(`- Kernel: ${m.kernel}`);
  out.push(`- Bun ${m.bun} (the runtime inside \`dist/memsync\`, and the one the in-process figures ran on); ${m.deno || "Deno not found"}`);
  out.push(`- ${m.hyperfine}`);
  if (r.loadAtStart !== undefined) out.push(`- 1-minute load average when the run started: ${r.loadAtStart.toFixed(2)}`);
  out.push("");
  out.push("## Method");
  out.push("");
  out.push(
    r.method.hyperfine
      ? `- Cold runs: \`hyperfine ${r.method.flags}\`: every run is a new process of the compiled binary \`dist/memsync\` (\`npm run build\`), no shell in between, output discarded. ${plural(r.method.warmup, "warmup run")}, then ${plural(r.method.runs, "timed run")} per command (fewer where a row says so); mean, median and standard deviation come from hyperfine's JSON export. "Cold" means a new process, not a cold disk cache: the store's files are in the page cache, as they are for an agent calling memsync repeatedly.`
      : `- Cold runs: hyperfine was not used (not installed, or --no-hyperfine), so each run is timed around \`spawnSync\` from the Bun process running the benchmark (a little parent overhead included). ${plural(r.method.warmup, "warmup run")}, then ${plural(r.method.runs, "timed run")} per command.`,
  );
  out.push(
    "- Stores: generated by `scripts/bench` through the real store API (`memsync init`, then `Store.open` and `store.write(tx => tx.putMemory(...))` in batches of 500, oldest first), so the first 1,000 memories are in `memories/` and the rest in the 256 shard folders `memories/<xx>/`, as in use. Fixed seed: the same memories, ids and relations on every run. Content is engineering notes of 30 to ~400 words (median ~65), types decision/preference/pattern/anti-pattern/problem/solution/fact, 1–6 tags out of 60, 0–4 entities out of 60 (PostgreSQL, Redis, Kubernetes, React, FastAPI ...), 12 projects, about 0.3 relations per memory, created over two years, 90% active, 4% promoted, 6% archived. Before measuring, the store is left alone for 2.1 s and fully refreshed, so every folder and file is past memsync's \"racily clean\" window (src/store/refresh.ts: 100 ms where timestamps have sub-second precision, as on this ext4, 2 s where they are whole seconds): the state of a store nobody is writing to.",
  );
  out.push(
    "- Commands that write (`save`, the `touch` before `get` of a recent memory, the `save` before \"search right after a save\") run on a copy of the store (record files hard-linked, index copied), so the measured store never changes; the copy grows by one memory per `save` run. memsync trusts a folder or file only once it has been looked at more than the racy window after its last change, so the first command after a write re-checks what that write touched. The target `save` row therefore pauses 2.1 s (longer than either window) before each run (hyperfine `--prepare 'sleep 2.1'`): one save into a store nobody wrote to in the last seconds, the case of an agent saving now and then. The back-to-back row is a burst of saves.",
  );
  out.push(
    "- The load column is the 1-minute load average right after each command's runs. This is a shared 2-core machine: other work running at the same time shows up there and in σ and max; medians are the most robust figures.",
  );

  out.push(
    "- In-process: the source under Bun, schemas already loaded. Full load = `loadAll` (src/store/load-all.ts): list, read, `JSON.parse` and validate every memory and relation file. Rebuild = `store.rebuildIndex()` (a new SQLite index built from every record file). Search = `searchMemories` as the command runs it (quick refresh, FTS5 count and match, the best " + SEARCH_LIMIT + " hits parsed), and once more with every match parsed. Repeated (20/10/5 times for 1k/10k/50k, searches twice as often); median quoted.",
  );
  out.push("");

  if (at10k) {
    out.push("## Targets (10k store)");
    out.push("");
    out.push("Judged on the median; the mean is alongside.");
    out.push("");
    out.push("| | target | median | mean | |");
    out.push("|---|--:|--:|--:|---|");
    for (const t of TARGETS_10K) {
      const s = at10k.cold[t.key];
      if (!s) continue;
      const met = s.median < t.limit;
      const by = met ? `met (${f1(t.limit - s.median)} ms to spare)` : `**not met**: ${f1(s.median - t.limit)} ms over (${(s.median / t.limit).toFixed(2)}×)`;
      out.push(`| ${t.label} | < ${t.limit} ms | ${f1(s.median)} | ${f1(s.mean)} | ${by} |`);
    }
    const st = at10k.cold.status;
    if (st) out.push(`| cold \`status\` | (no target) | ${f1(st.median)} | ${f1(st.mean)} | |`);
    out.push(`| in-process full load | (no target) | ${f1(at10k.inproc.load.median)} | ${f1(at10k.inproc.load.mean)} | |`);
    out.push("");
    out.push("## Against CortexGraph (10k memories)");
    out.push("");
    out.push("| | CortexGraph | memsync |");
    out.push("|---|--:|--:|");
    out.push(
      `| in-process load of 10k memories | 124 ms (one JSONL file) | ${f1(at10k.inproc.load.median)} ms (${at10k.inproc.load.memories.toLocaleString("en")} memory files + ${at10k.inproc.load.relations.toLocaleString("en")} relation files, parsed and validated) |`,
    );
    out.push(
      `| search | 24 ms (in-process; looks only at the 3·top_k most recently used memories) | in-process ${f1(at10k.inproc.searchCommon.median)} ms for \`${at10k.manifest.common_query}\` (${at10k.inproc.searchCommon.matches} matches, best ${SEARCH_LIMIT} returned; ${f1(at10k.inproc.searchCommonAll.median)} ms returning all), ${f1(at10k.inproc.searchRare.median)} ms for \`${at10k.manifest.rare_query}\` (${at10k.inproc.searchRare.matches}); as a whole new process: ${f1(at10k.cold["search-common"]?.median ?? NaN)} / ${f1(at10k.cold["search-rare"]?.median ?? NaN)} ms |`,
    );
    const cons = r.suites?.find((x) => x.key === "consolidate");
    out.push(`| clustering of 1,000 memories | 10.65 s (all pairs) | ${cons ? "see Consolidation candidates below (candidates through MinHash/LSH, never all pairs)" : "not measured in this run"} |`);
    const push = at10k.cold["sync-push-one"];
    const nat = at10k.cold["native-push-one"];
    if (push && nat) out.push(`| \`sync\` of 1 new memory vs native git (add, commit, push) | — | ${f1(push.median)} ms vs ${f1(nat.median)} ms: ${(push.median / nat.median).toFixed(2)}× (target within 2×) |`);
    out.push("");
    out.push(
      "CortexGraph's figures are from DESIGN.md section 5 (measured on its v1.2.1), not re-measured on this machine. Its search is not comparable in kind: it never sees older matches, while memsync's covers every memory through the full-text index.",
    );
    out.push("");
  }

  out.push("## Baselines (independent of store size)");
  out.push("");
  out.push(HEAD);
  for (const b of BASELINE_ROWS) if (r.baselines[b.key]) out.push(row(b.label, r.baselines[b.key]!));
  out.push("");

  for (const s of r.sizes) {
    const mf = s.manifest;
    out.push(`## ${sizeName(s.size)} memories`);
    out.push("");
    out.push(
      `${mf.memories.toLocaleString("en")} memories (${mf.shard_folders ? `${mf.flat_memories.toLocaleString("en")} flat, the rest in ${mf.shard_folders} shard folders` : "all flat: the store stays flat up to 1,000"}), ${mf.relations.toLocaleString("en")} relations, ${(mf.bytes / 2 ** 20).toFixed(1)} MiB of record files. ` +
        (s.reused ? `Store reused (generated ${mf.generated_at} in ${f1(mf.generate_seconds)} s).` : `Generated in ${f1(s.generateSeconds)} s during this run.`),
    );
    out.push("");
    out.push("Cold whole-process runs of `dist/memsync`:");
    out.push("");
    out.push(HEAD);
    for (const c of COLD_ROWS) if (s.cold[c.key]) out.push(row(c.label(mf, s.cold[c.key]), s.cold[c.key]!));
    out.push("");
    const v = r.baselines.version?.median;
    if (v !== undefined) {
      const own = COLD_ROWS.filter((c) => s.cold[c.key]).map((c) => `${c.key} ${f1(s.cold[c.key]!.median - v)}`);
      out.push(`Median minus \`memsync --version\` (${f1(v)} ms), i.e. the command's own work after start-up: ${own.join(", ")} ms.`);
      out.push("");
    }
    const ip = s.inproc;
    out.push("In-process:");
    out.push("");
    out.push(HEAD_IP);
    out.push(row(`full load (\`loadAll\`: ${ip.load.memories.toLocaleString("en")} memories, ${ip.load.relations.toLocaleString("en")} relations, ${ip.load.problems} problems)`, ip.load, false));
    out.push(row("full index rebuild (`store.rebuildIndex()`)", ip.rebuild, false));
    out.push(row(`search \`${mf.common_query}\` (${ip.searchCommon.matches} matches, best ${SEARCH_LIMIT} parsed, as the command)`, ip.searchCommon, false));
    out.push(row(`search \`${mf.common_query}\`, all ${ip.searchCommon.matches} matches parsed`, ip.searchCommonAll, false));
    out.push(row(`search \`${mf.rare_query}\` (${ip.searchRare.matches} matches)`, ip.searchRare, false));
    out.push(row("get of the old memory (`getMemories`)", ip.get, false));
    out.push("");
  }

  out.push(...suitesMarkdown(r.suites ?? []));

  out.push("## Notes");
  out.push("");
  out.push(NOTES_START);
  out.push("");
  out.push(notes ?? "(none yet)");
  out.push("");
  out.push(NOTES_END);
  out.push("");
  return out.join("\n");
}

/** The summary printed at the end of a run. */
export function textTable(r: Results): string {
  const lines: string[] = [];
  const keys = [...COLD_ROWS.map((c) => c.key)];
  const w = Math.max(...keys.map((k) => k.length), 22);
  lines.push(`${"".padEnd(w)}  ${r.sizes.map((s) => `${sizeName(s.size)} median (mean ± σ)`.padStart(28)).join("")}`);
  for (const b of BASELINE_ROWS) {
    const s = r.baselines[b.key];
    if (s) lines.push(`${b.key.padEnd(w)}  ${`${f1(s.median)} (${f1(s.mean)} ± ${f1(s.stddev)})`.padStart(28)}`);
  }
  for (const k of keys) {
    lines.push(`${k.padEnd(w)}  ${r.sizes.map((s) => (s.cold[k] ? `${f1(s.cold[k]!.median)} (${f1(s.cold[k]!.mean)} ± ${f1(s.cold[k]!.stddev)})` : "-").padStart(28)).join("")}`);
  }
  const ip: [string, (x: InprocResult) => Stat][] = [
    ["in-process full load", (x) => x.load],
    ["in-process rebuild", (x) => x.rebuild],
    ["in-process search", (x) => x.searchCommon],
    ["in-process search rare", (x) => x.searchRare],
  ];
  for (const [name, pick] of ip) {
    lines.push(`${name.padEnd(w)}  ${r.sizes.map((s) => { const x = pick(s.inproc); return `${f1(x.median)} (${f1(x.mean)} ± ${f1(x.stddev)})`.padStart(28); }).join("")}`);
  }
  return lines.join("\n");
}
