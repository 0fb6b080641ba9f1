// memsync against native git on the git-shaped operations (issue 16's first target): `status` vs
// `git status`, save + sync of one memory vs write + add + commit + push, and a pull of 100
// changed memories vs `git pull`, at each store size. Every contender (one or more memsync
// binaries, native git, the empty compiled Bun program for status) has its own copy of the store,
// its own bare hub cloned from the same commit and its own second clone that pushes the 100
// changes, so they never disturb each other; rounds are interleaved (each round runs every
// contender once, in turn), so a shift in the machine's load lands on all of them alike.
//
//   bun scripts/bench-lib/git-ratio.ts [--sizes 1000,10000,50000] [--bins before=BIN,after=BIN]
//                                      [--rounds 15] [--pull-rounds 6] [--only status,save-sync,pull] [--cpu]
//
// Times are wall-clock of spawnSync (the same spawn cost on every side), untimed preparation in
// between. --cpu also reports each run's CPU (user + system of the command and its children, by
// `perf stat -e task-clock`), the figure that a loaded machine disturbs least. The 100 changes are made by the first binary given (`touch` of 100 memories in the
// flat folder, then `sync` to that contender's hub), so every contender pulls the same change.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadAverage } from "./cold.ts";
import { ensureBenchStore, scratchCopy } from "./generate.ts";
import { arg } from "./args.ts";
import { emptyBun } from "./empty-bun.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH = path.join(REPO, ".bench");
const SEED = 20261121;


const sizes = arg("--sizes", "1000,10000,50000").split(",").map((s) => Number(s.replace(/k$/i, "000")));
const bins = arg("--bins", `after=${path.join(REPO, "dist/memsync")}`)
  .split(",")
  .map((kv) => {
    const [label, bin] = kv.includes("=") ? [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] : [path.basename(kv), kv];
    return { label: label!, bin: path.resolve(bin!) };
  });
const rounds = Number(arg("--rounds", "15"));
const pullRounds = Number(arg("--pull-rounds", "6"));
const only = arg("--only", "status,save-sync,pull").split(",");
const withCpu = process.argv.includes("--cpu");
const PERF_OUT = path.join(BENCH, "git-ratio-perf.txt");
const PUSHER = bins[0]!.bin;

function run(cmd: string[], cwd?: string): string {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Wall ms of one run, and its CPU ms (task-clock, children included) with --cpu. */
function timed(cmd: string[]): { wall: number; cpu: number } {
  const argv = withCpu ? ["perf", "stat", "-x,", "-e", "task-clock", "-o", PERF_OUT, "--", ...cmd] : cmd;
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const dt = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${r.status}): ${r.stderr}`);
  const cpu = withCpu ? Number(/^([\d.]+),msec,task-clock/m.exec(fs.readFileSync(PERF_OUT, "utf8"))?.[1] ?? NaN) : NaN;
  return { wall: dt, cpu };
}


const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Contender {
  label: string;
  /** null: native git. */
  bin: string | null;
  store: string;
  hub: string;
  other: string;
}

function setUp(size: number, storeDir: string): Contender[] {
  const base = path.join(BENCH, `ratio-${size}`);
  fs.rmSync(base, { recursive: true, force: true });
  const out: Contender[] = [];
  for (const c of [...bins.map((b) => ({ label: b.label, bin: b.bin as string | null })), { label: "native git", bin: null }]) {
    const dir = path.join(base, c.bin ? c.label : "native");
    fs.mkdirSync(dir, { recursive: true });
    const hub = path.join(dir, "hub.git");
    const store = path.join(dir, "store");
    const other = path.join(dir, "other");
    run(["git", "clone", "-q", "--bare", storeDir, hub]);
    if (c.bin) {
      scratchCopy(storeDir, store);
      run([c.bin, "--store", store, "remote", "set", hub]);
      run([c.bin, "--store", store, "sync"]);
    } else {
      run(["git", "clone", "-q", hub, store]);
      run(["git", "-C", store, "config", "user.email", "bench@example.com"]);
      run(["git", "-C", store, "config", "user.name", "bench"]);
      run(["git", "-C", store, "status", "--porcelain"]); // refreshes the index the clone wrote racily
    }
    // the clone that pushes the 100 changes (untimed): a copy of the store on the hub, as each
    // memsync contender is (a `memsync clone` of the 50k hub took over 16 minutes at load 40-70)
    scratchCopy(storeDir, other);
    run([PUSHER, "--store", other, "remote", "set", hub]);
    run([PUSHER, "--store", other, "sync"]);
    out.push({ label: c.label, bin: c.bin, store, hub, other });
  }
  return out;
}

interface Row {
  name: string;
  /** label -> times in ms */
  times: Map<string, number[]>;
  /** label -> CPU ms (NaN without --cpu) */
  cpu: Map<string, number[]>;
  reference: string;
}

function interleave(name: string, contenders: { label: string; argv: string[]; prepare?: () => void }[], n: number, reference: string): Row {
  const times = new Map(contenders.map((c) => [c.label, [] as number[]]));
  const cpu = new Map(contenders.map((c) => [c.label, [] as number[]]));
  for (const c of contenders) {
    c.prepare?.();
    timed(c.argv); // one warm-up each (page cache, the binary's pages)
  }
  for (let i = 0; i < n; i++) {
    // the order turns each round, so no contender always runs right after another's writes
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(i + k) % contenders.length]!;
      c.prepare?.();
      const t = timed(c.argv);
      times.get(c.label)!.push(t.wall);
      cpu.get(c.label)!.push(t.cpu);
    }
  }
  return { name, times, cpu, reference };
}

function report(size: number, row: Row, load: { before?: number; after?: number }): string[] {
  const ref = median(row.times.get(row.reference)!);
  const lines = [`| ${size.toLocaleString("en")} | ${row.name} | ${[...row.times].map(([l, t]) => `${l} ${median(t).toFixed(1)}${l === row.reference ? "" : ` (${(median(t) / ref).toFixed(2)}x)`}`).join("; ")} | ${[...row.times.values()][0]!.length} | ${load.before?.toFixed(1)}–${load.after?.toFixed(1)} |`];
  if (withCpu) {
    const cpuRef = median(row.cpu.get(row.reference)!);
    lines.push(`| ${size.toLocaleString("en")} | ${row.name}, CPU ms | ${[...row.cpu].map(([l, t]) => `${l} ${median(t).toFixed(1)}${l === row.reference ? "" : ` (${(median(t) / cpuRef).toFixed(2)}x)`}`).join("; ")} | ${[...row.cpu.values()][0]!.length} | |`);
  }
  return lines;
}

const out: string[] = ["| memories | operation | median ms (ratio to native git) | rounds | load |", "|--:|---|---|--:|---|"];
const hundredOf = (store: string) =>
  fs
    .readdirSync(path.join(store, "memories"))
    .filter((n) => n.endsWith(".json"))
    .sort()
    .slice(0, 100)
    .map((n) => n.slice(0, -5));

/** Shard folders under the store's machine-local record folders (none once a write has made them flat). */
function localShardFolders(store: string): number {
  const local = path.join(store, ".memsync", "local");
  const kinds = fs.existsSync(local) ? fs.readdirSync(local, { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
  return kinds.reduce((n, d) => n + fs.readdirSync(path.join(local, d.name), { withFileTypes: true }).filter((e) => e.isDirectory()).length, 0);
}

for (const size of sizes) {
  const storeDir = path.join(BENCH, `store-${size}`);
  await ensureBenchStore(storeDir, size, { fresh: false, seed: SEED, log: (l) => console.error(l) });
  // every contender starts from the same commit of the whole store: a generated store's records
  // may still be only journaled (committed.json alone does not say they are in history)
  const journal = path.join(storeDir, ".memsync", "journal.jsonl");
  if (!fs.existsSync(path.join(storeDir, ".memsync", "committed.json")) || (fs.existsSync(journal) && fs.statSync(journal).size > 0)) run([PUSHER, "--store", storeDir, "commit"]);
  const localShards = localShardFolders(storeDir);
  if (localShards) console.error(`  note: its machine-local records are in ${localShards} shard folders (as the generator left them); every status lists each (+~8 ms of CPU at 10k: docs/benchmarks.md, status10)`);
  console.error(`[${new Date().toISOString()}] ${size}: setting up ${bins.length + 1} contenders`);
  const cs = setUp(size, storeDir);
  // settled by each contender's own binary (an in-process Store of this checkout would give an
  // older binary an index of a newer version, which it rebuilds)
  await new Promise((r) => setTimeout(r, 2100));
  for (const c of cs) if (c.bin) run([c.bin, "--store", c.store, "status"]);
  const hundred = hundredOf(storeDir);
  if (only.includes("status")) {
    const l0 = loadAverage();
    const row = interleave(
      "`status` vs `git status`",
      [
        ...cs.map((c) => ({ label: c.label, argv: c.bin ? [c.bin, "--store", c.store, "status"] : ["git", "-C", c.store, "status"] })),
        { label: "empty Bun", argv: [emptyBun(BENCH)] },
      ],
      rounds,
      "native git",
    );
    const lines = report(size, row, { before: l0, after: loadAverage() });
    out.push(...lines);
    console.error(lines.join("\n"));
  }
  if (only.includes("save-sync")) {
    const l0 = loadAverage();
    let n = 0;
    const row = interleave(
      "save + sync of one memory vs write + add + commit + push",
      cs.map((c) => ({
        label: c.label,
        argv: c.bin
          ? ["bash", "-c", `'${c.bin}' --store '${c.store}' save "Benchmark note pushed right after it was saved, number $RANDOM" >/dev/null && '${c.bin}' --store '${c.store}' sync >/dev/null`]
          : ["bash", "-c", `cd '${c.store}' && f=memories/bench-$(date +%s%N).json && printf '{"n": %s}\\n' $RANDOM > $f && git add $f && git commit -qm "save: one" && git push -q origin HEAD`],
        prepare: () => void n++,
      })),
      rounds,
      "native git",
    );
    const lines = report(size, row, { before: l0, after: loadAverage() });
    out.push(...lines);
    console.error(lines.join("\n"));
  }
  if (only.includes("pull")) {
    const l0 = loadAverage();
    const row = interleave(
      "pull of 100 changed memories vs `git pull`",
      cs.map((c) => ({
        label: c.label,
        argv: c.bin ? [c.bin, "--store", c.store, "pull"] : ["git", "-C", c.store, "pull", "-q", "--no-rebase", "origin", "main"],
        prepare: () => {
          run([PUSHER, "--store", c.other, "touch", ...hundred]);
          run([PUSHER, "--store", c.other, "sync"]);
        },
      })),
      pullRounds,
      "native git",
    );
    const lines = report(size, row, { before: l0, after: loadAverage() });
    out.push(...lines);
    console.error(lines.join("\n"));
  }
  fs.rmSync(path.join(BENCH, `ratio-${size}`), { recursive: true, force: true });
}
console.log(out.join("\n"));
