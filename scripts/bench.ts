// scripts/bench: generate stores of 1k, 10k and 50k realistic memories, time the compiled binary's
// cold commands and the in-process full load, and write docs/benchmarks.md.
//
//   scripts/bench                         all three sizes, 30 runs per command
//   scripts/bench --sizes 1000,10000      only these sizes
//   scripts/bench --runs 50 --warmup 5    more runs
//   scripts/bench --fresh                 regenerate the stores even if .bench/ has them
//   scripts/bench --no-hyperfine          time with spawnSync even if hyperfine is installed
//   scripts/bench --out FILE              write the report elsewhere (default docs/benchmarks.md)
//   scripts/bench --suites gc,recall      only these suites (issues 4 and 5; api: the HTTP API of
//                                         issue 11; see bench-lib/suites.ts), and nothing else:
//                                         their sections of the report are replaced, the rest kept
//                                         (add --sizes to run the cold commands too and rewrite
//                                         the whole report); --no-suites for none
//
// Targets belong here, not in timed tests: on a 10k store, cold save < 25 ms, get < 15 ms,
// search < 60 ms.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { type ColdCase, type ColdOptions, commandLine, findHyperfine, loadAverage, measure, type Stat } from "./bench-lib/cold.ts";
import { ensureBenchStore, scratchCopy, settle } from "./bench-lib/generate.ts";
import { measureInproc } from "./bench-lib/inproc.ts";
import { describeMachine, existingNotes, markdown, type Results, type SizeResult, textTable } from "./bench-lib/report.ts";
import { runSuite, SUITES, type SuiteResult, spliceSuites } from "./bench-lib/suites.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const BENCH_DIR = path.join(REPO, ".bench");
const BIN = path.join(REPO, "dist/memsync");
const SEED = 20261121;

interface Args {
  sizes: number[];
  runs: number;
  warmup: number;
  fresh: boolean;
  hyperfine: boolean;
  out: string;
  suites: string[];
  /** --suites given without --sizes: run only those suites, splice them into the report. */
  suitesOnly: boolean;
}

function usage(code: number): never {
  console.log(`usage: scripts/bench [--sizes 1000,10000,50000] [--runs 30] [--warmup 3] [--fresh] [--no-hyperfine] [--out docs/benchmarks.md] [--suites ${SUITES.map((x) => x.key).join(",")} | --no-suites]`);
  process.exit(code);
}

function parseArgs(argv: string[]): Args {
  const a: Args = { sizes: [1000, 10_000, 50_000], runs: 30, warmup: 3, fresh: false, hyperfine: true, out: path.join(REPO, "docs/benchmarks.md"), suites: SUITES.map((x) => x.key), suitesOnly: false };
  let sizesGiven = false;
  let suitesGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? usage(2);
    const int = (v: string, min: number) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) {
        console.error(`bench: ${flag} needs an integer >= ${min}, got ${v}`);
        process.exit(2);
      }
      return n;
    };
    switch (flag) {
      case "--sizes":
        a.sizes = value().split(",").map((s) => int(s.trim().replace(/k$/i, "000"), 2));
        sizesGiven = true;
        break;
      case "--runs":
        a.runs = int(value(), 2);
        break;
      case "--warmup":
        a.warmup = int(value(), 0);
        break;
      case "--fresh":
        a.fresh = true;
        break;
      case "--no-hyperfine":
        a.hyperfine = false;
        break;
      case "--out":
        a.out = path.resolve(value());
        break;
      case "--suites": {
        const keys = value().split(",").map((k) => k.trim());
        for (const k of keys) if (!SUITES.some((x) => x.key === k)) {
          console.error(`bench: unknown suite ${k} (${SUITES.map((x) => x.key).join(", ")})`);
          process.exit(2);
        }
        a.suites = keys;
        suitesGiven = true;
        break;
      }
      case "--no-suites":
        a.suites = [];
        break;
      case "-h":
      case "--help":
        usage(0);
        break;
      default:
        console.error(`bench: unknown option ${arg}`);
        usage(2);
    }
  }
  a.suitesOnly = suitesGiven && !sizesGiven;
  return a;
}

const T0 = performance.now();
const elapsed = () => `${((performance.now() - T0) / 1000).toFixed(1)} s`;
const log = (line: string) => console.log(`[${elapsed().padStart(7)}] ${line}`);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/** dist/memsync, built when missing or older than the source. */
function ensureBinary(): void {
  const st = fs.existsSync(BIN) ? fs.statSync(BIN) : null;
  const srcNewest = Math.max(newestMtime(path.join(REPO, "src")), fs.statSync(path.join(REPO, "package.json")).mtimeMs);
  if (st && st.mtimeMs >= srcNewest) return;
  log(st ? "dist/memsync is older than src/: rebuilding (npm run build)" : "dist/memsync missing: building (npm run build)");
  const r = spawnSync(process.execPath, ["scripts/build.ts"], { cwd: REPO, stdio: "inherit" });
  if (r.status !== 0) throw new Error("build failed");
}

/** The smallest compiled Bun program, built like dist/memsync: the runtime's own start-up. */
function ensureEmptyBun(): string {
  const out = path.join(BENCH_DIR, "empty-bun");
  if (fs.existsSync(out)) return out;
  const src = path.join(BENCH_DIR, "empty.ts");
  fs.writeFileSync(src, "export {};\n");
  const r = spawnSync(process.execPath, ["build", "--compile", "--bytecode", "--format=esm", "--minify", src, "--outfile", out], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("could not compile the empty Bun program");
  return out;
}

/** HEAD of the repository, and whether src/ differs from it (the binary is built from the working tree). */
function gitCommit(): string {
  const git = (...a: string[]) => spawnSync("git", a, { cwd: REPO, encoding: "utf8" });
  const head = git("log", "-1", "--format=%h %s");
  if (head.status !== 0) return "an unknown commit (no git)";
  const dirty = git("status", "--porcelain", "--", "src", "package.json").stdout.trim() !== "";
  return `commit ${head.stdout.trim().replace(/^(\S+) /, "$1 (")})${dirty ? ", with uncommitted changes in src/" : ""}`;
}

function which(cmd: string): string {
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir && fs.existsSync(`${dir}/${cmd}`)) return `${dir}/${cmd}`;
  return cmd;
}

function runSuites(keys: string[]): SuiteResult[] {
  const suites: SuiteResult[] = [];
  for (const suite of SUITES.filter((x) => keys.includes(x.key))) {
    log(`suite ${suite.key}: bun ${suite.argv.join(" ")}`);
    const r = runSuite(REPO, suite);
    suites.push(r);
    log(`  ${r.ok ? "done" : "FAILED"} in ${r.seconds.toFixed(1)} s`);
  }
  return suites;
}

/** `--suites` alone: those suites, spliced into the existing report (or a report of only them). */
function suitesOnly(args: Args): void {
  ensureBinary();
  const suites = runSuites(args.suites);
  const existing = fs.existsSync(args.out) ? fs.readFileSync(args.out, "utf8") : "# Benchmarks\n\n## Notes\n";
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, spliceSuites(existing, suites));
  for (const r of suites) console.log(`\n## ${r.title}\n\n${r.output}`);
  log(`replaced the section${suites.length === 1 ? "" : "s"} ${suites.map((r) => r.key).join(", ")} of ${path.relative(process.cwd(), args.out) || args.out}; the rest kept`);
  if (suites.some((r) => !r.ok)) process.exitCode = 1;
}

async function main(): Promise<void> {
  const loadAtStart = loadAverage();
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  if (args.suitesOnly) return suitesOnly(args);
  const jsonDir = path.join(BENCH_DIR, "hyperfine");
  fs.mkdirSync(jsonDir, { recursive: true });
  const hyperfine = args.hyperfine ? findHyperfine() : null;
  const opts: ColdOptions = { runs: args.runs, warmup: args.warmup, hyperfine, jsonDir };
  log(`sizes ${args.sizes.join(", ")}; ${args.runs} runs + ${args.warmup} warmup per command; ${hyperfine ? `hyperfine (${hyperfine})` : "spawnSync loop (no hyperfine)"}`);

  ensureBinary();
  const emptyBun = ensureEmptyBun();
  const machine = describeMachine(hyperfine);

  const baselines: Record<string, Stat> = {};
  const base: ColdCase[] = [
    { key: "empty-process", argv: [which("true")] },
    { key: "empty-bun", argv: [emptyBun] },
    { key: "version", argv: [BIN, "--version"] },
  ];
  for (const c of base) {
    baselines[c.key] = measure(c, opts);
    log(`baseline ${c.key}: median ${baselines[c.key]!.median.toFixed(1)} ms`);
  }

  const sizes: SizeResult[] = [];
  for (const size of args.sizes) {
    const dir = path.join(BENCH_DIR, `store-${size}`);
    log(`store of ${size} memories`);
    const g0 = performance.now();
    const { manifest, reused } = await ensureBenchStore(dir, size, { fresh: args.fresh, seed: SEED, log });
    const generateSeconds = (performance.now() - g0) / 1000;
    if (!reused) log(`  generated in ${generateSeconds.toFixed(1)} s`);

    // history: the generated store is committed once, so scratch copies commit incrementally
    if (!fs.existsSync(path.join(dir, ".memsync", "committed.json"))) {
      const c0 = performance.now();
      const r = spawnSync(BIN, ["--store", dir, "commit"], { stdio: "ignore" });
      if (r.status !== 0) throw new Error(`memsync commit of ${dir} failed`);
      log(`  first commit of the whole store: ${((performance.now() - c0) / 1000).toFixed(1)} s`);
    }
    const scratch = `${dir}-scratch`;
    scratchCopy(dir, scratch);
    // the merge driver's three versions: the old memory as base, touched on one side, re-tagged on the other
    const mdDir = path.join(BENCH_DIR, `merge-driver-${size}`);
    fs.mkdirSync(mdDir, { recursive: true });
    const baseRecord = JSON.parse(fs.readFileSync(path.join(dir, manifest.old_path), "utf8")) as Record<string, unknown> & { use_count: number; last_used: number; meta: { tags: string[] } };
    fs.writeFileSync(path.join(mdDir, "O"), `${JSON.stringify(baseRecord, null, 2)}\n`);
    fs.writeFileSync(path.join(mdDir, "A.orig"), `${JSON.stringify({ ...baseRecord, use_count: baseRecord.use_count + 2, last_used: baseRecord.last_used + 60 }, null, 2)}\n`);
    fs.writeFileSync(path.join(mdDir, "B"), `${JSON.stringify({ ...baseRecord, use_count: baseRecord.use_count + 1, meta: { ...baseRecord.meta, tags: [...baseRecord.meta.tags, "bench"] } }, null, 2)}\n`);
    await settle(scratch);

    const on = (root: string, ...rest: string[]) => [BIN, "--store", root, ...rest];
    const saveArgv = (text: string) => on(scratch, "save", text, "--tag", "bench");
    // memsync trusts a folder or file only once it is 2 s older than when it was indexed, so the
    // first command after a write re-checks what that write touched. "quiet" runs wait that out
    // (the case of an agent saving now and then); back-to-back runs show a burst of saves.
    const quiet = ["sleep", "2.1"];
    const cases: ColdCase[] = [
      { key: "get-old", argv: on(dir, "get", manifest.old_id) },
      { key: "search-common", argv: on(dir, "search", ...manifest.common_query.split(" ")) },
      { key: "search-rare", argv: on(dir, "search", manifest.rare_query) },
      { key: "status", argv: on(dir, "status") },
      { key: "list", argv: on(dir, "list") },
      { key: "get-recent", argv: on(scratch, "get", manifest.mid_id), prepare: on(scratch, "touch", manifest.mid_id) },
      { key: "save", argv: saveArgv("Benchmark note: prefer cursor pagination for list endpoints in the search API"), prepare: quiet, warmup: 1 },
      { key: "save-burst", argv: saveArgv("Benchmark note saved back to back with the previous one") },
      { key: "commit-one", argv: on(scratch, "commit"), prepare: saveArgv("Benchmark note committed right after it was saved") },
      {
        key: "merge-driver",
        argv: [BIN, "merge-driver", path.join(mdDir, "O"), path.join(mdDir, "A"), path.join(mdDir, "B"), manifest.old_path, "7"],
        prepare: ["cp", path.join(mdDir, "A.orig"), path.join(mdDir, "A")],
      },
      {
        key: "search-after-save",
        argv: on(scratch, "search", manifest.rare_query),
        prepare: ["bash", "-c", `sleep 2.1; ${commandLine(saveArgv("Benchmark note written right before a search"))} >/dev/null`],
        warmup: 1,
        runs: Math.min(args.runs, 10),
      },
    ];
    // sync against a bare repository on a local path, side by side with native git doing the same
    const hubDir = path.join(BENCH_DIR, `hub-${size}.git`);
    const other = path.join(BENCH_DIR, `other-${size}`);
    const native = path.join(BENCH_DIR, `native-${size}`);
    for (const d of [hubDir, other, native]) fs.rmSync(d, { recursive: true, force: true });
    const run = (cmd: string[], cwd?: string) => {
      const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${cmd.join(" ")} failed: ${r.stderr}`);
    };
    const s0 = performance.now();
    run(["git", "clone", "-q", "--bare", dir, hubDir]);
    run([BIN, "--store", scratch, "remote", "set", hubDir]);
    run([BIN, "--store", scratch, "sync"]);
    run([BIN, "clone", hubDir, other]);
    run(["git", "clone", "-q", hubDir, native]);
    run(["git", "-C", native, "config", "user.email", "bench@example.com"]);
    run(["git", "-C", native, "config", "user.name", "bench"]);
    log(`  sync set-up (bare hub, clones): ${((performance.now() - s0) / 1000).toFixed(1)} s`);
    const hundred = fs
      .readdirSync(path.join(dir, "memories"))
      .filter((n) => n.endsWith(".json"))
      .slice(0, 100)
      .map((n) => n.slice(0, -5));
    const pushFromOther = ["bash", "-c", `${commandLine([BIN, "--store", other, "touch", ...hundred])} >/dev/null && ${commandLine([BIN, "--store", other, "sync"])} >/dev/null`];
    cases.push(
      { key: "sync-push-one", argv: on(scratch, "sync"), prepare: saveArgv("Benchmark note pushed right after it was saved"), runs: Math.min(args.runs, 15) },
      {
        key: "native-push-one",
        argv: ["bash", "-c", `cd ${native} && f=memories/bench-$(date +%s%N).json && printf '{}\n' > $f && git add $f && git commit -qm "save: one" && git push -q origin HEAD`],
        // the hub moved on (memsync pushed): bring the native clone up to date first, untimed
        prepare: ["git", "-C", native, "pull", "-q", "--no-rebase", "origin", "main"],
        runs: Math.min(args.runs, 15),
      },
      { key: "pull-100", argv: on(scratch, "pull"), prepare: pushFromOther, runs: 5, warmup: 0 },
      { key: "native-pull-100", argv: ["git", "-C", native, "pull", "-q", "--no-rebase", "origin", "main"], prepare: pushFromOther, runs: 5, warmup: 0 },
    );

    const cold: Record<string, Stat> = {};
    for (const c of cases) {
      cold[c.key] = measure({ ...c, key: `${size}-${c.key}` }, opts);
      const s = cold[c.key]!;
      log(`  cold ${c.key}: median ${s.median.toFixed(1)} ms, mean ${s.mean.toFixed(1)} ± ${s.stddev.toFixed(1)} ms`);
    }

    log("  in-process: full load, rebuild, search");
    const inproc = await measureInproc(dir, scratch, size, { old: manifest.old_id }, { common: manifest.common_query, rare: manifest.rare_query });
    log(`  in-process full load: median ${inproc.load.median.toFixed(1)} ms; rebuild ${inproc.rebuild.median.toFixed(1)} ms; search ${inproc.searchCommon.median.toFixed(1)} ms`);
    fs.rmSync(scratch, { recursive: true, force: true });
    for (const d of [hubDir, other, native]) fs.rmSync(d, { recursive: true, force: true });
    sizes.push({ size, manifest, reused, generateSeconds, cold, inproc });
  }

  const suites = runSuites(args.suites);

  const results: Results = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    machine,
    method: {
      hyperfine: hyperfine !== null,
      runs: args.runs,
      warmup: args.warmup,
      flags: `-N --warmup ${args.warmup} --runs ${args.runs} --export-json`,
    },
    baselines,
    sizes,
    totalSeconds: (performance.now() - T0) / 1000,
    command: ["scripts/bench", ...process.argv.slice(2)].join(" "),
    loadAtStart,
    commit: gitCommit(),
    suites,
  };
  fs.writeFileSync(path.join(BENCH_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, markdown(results, existingNotes(args.out)));
  console.log("");
  console.log(textTable(results));
  console.log("");
  log(`wrote ${path.relative(process.cwd(), args.out) || args.out} and .bench/results.json; total ${results.totalSeconds.toFixed(1)} s`);
}

await main();
