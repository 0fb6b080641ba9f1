// The import benchmark (issue 14): CortexGraph's JSONL storage of 10,000 memories with 3,000
// relations (and 50,000 with 15,000) imported into an empty store by the compiled binary, then
// committed (`memsync import cortexgraph DIR` + `memsync commit`, each a whole process), against
// the targets of 5 s and 25 s for both together. Peak memory is each process's max RSS.
//
//   bun scripts/bench-lib/import.ts [--sizes 10000,50000] [--runs 3] [--bins [NAME=]BEFORE,[NAME=]AFTER]
//
// --bins compares binaries side by side in one run (each size, each run: every binary in turn on
// the same source). A floor row beside them: native git adding and committing the same record
// files (`git add -A && git commit`, two processes) in a fresh repository, and a bare Bun loop
// making the same files (file-floor.ts).
//
// The source is generated with a fixed seed: engineering notes of 20-120 words, 1-4 tags, 0-3
// entities, ages over two years, use counts, CortexGraph's every field (floats such as 1.0 and
// 1e-05 among them), 2% of lines later replaced and 1% tombstoned, as an append-only log has them.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generate } from "./cortexgraph-source.ts";

const REPO = path.resolve(import.meta.dirname, "../..");

interface Timed {
  seconds: number;
  /** CPU time of the process (user + system), which a busy machine does not inflate as it does wall time. */
  cpu: number;
  maxRssMiB: number;
  stdout: string;
}

function run(bin: string, args: string[], cwd?: string): Timed {
  const t0 = performance.now();
  const p = Bun.spawnSync([bin, ...args], { stdout: "pipe", stderr: "pipe", cwd, env: { ...process.env, MEMSYNC_MACHINE: "bench", GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "bench@bench", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "bench@bench" } });
  const seconds = (performance.now() - t0) / 1000;
  if (p.exitCode !== 0) throw new Error(`${bin} ${args.join(" ")}: ${p.stderr.toString()}`);
  // Bun gives the child's getrusage max RSS in bytes
  const cpu = p.resourceUsage ? Number(p.resourceUsage.cpuTime.user + p.resourceUsage.cpuTime.system) / 1e6 : 0;
  return { seconds, cpu, maxRssMiB: (p.resourceUsage?.maxRSS ?? 0) / 1048576, stdout: p.stdout.toString() };
}

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const sizes = opt("sizes", "10000,50000").split(",").map(Number);
const runs = Number(opt("runs", "3"));
// each binary as PATH or NAME=PATH (the name labels its rows)
const named = new Map(opt("bins", path.join(REPO, "dist/memsync")).split(",").map((b) => {
  const eq = b.indexOf("=");
  const bin = path.resolve(eq > 0 && !b.slice(0, eq).includes("/") ? b.slice(eq + 1) : b);
  return [bin, eq > 0 && !b.slice(0, eq).includes("/") ? b.slice(0, eq) : path.relative(process.cwd(), bin) || bin] as const;
}));
const bins = [...named.keys()];
const label = (bin: string) => (bins.length === 1 ? "" : ` — ${named.get(bin)}`);
const TARGET: Record<number, number> = { 10000: 5, 50000: 25 };

const rows: string[] = [];
console.log(`Machine load when the run started: ${os.loadavg()[0]!.toFixed(2)} (1-minute average).`);
for (const size of sizes) {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-bench-import-src-"));
  generate(src, size, Math.round(size * 0.3), 20261124 + size);
  const mib = (fs.statSync(path.join(src, "memories.jsonl")).size + fs.statSync(path.join(src, "relations.jsonl")).size) / 1048576;
  const results = new Map<string, { imp: Timed; commit: Timed; out: any }[]>(bins.map((b) => [b, []]));
  const floor: Timed[] = [];
  const bare: Timed[] = [];
  const scratch: string[] = [];
  for (let i = 0; i < (size >= 50000 ? Math.min(runs, 2) : runs); i++) {
    for (const bin of bins) {
      const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "memsync-bench-import-")), "store");
      run(bin, ["init", store]);
      const imp = run(bin, ["--store", store, "import", "cortexgraph", src, "--json"]);
      const commit = run(bin, ["--store", store, "commit"]);
      results.get(bin)!.push({ imp, commit, out: JSON.parse(imp.stdout) });
      if (bin === bins.at(-1)) {
        // the floor: native git committing the same files in a fresh repository
        const plain = path.join(path.dirname(store), "plain");
        fs.mkdirSync(plain);
        for (const d of ["memories", "relations"]) fs.cpSync(path.join(store, d), path.join(plain, d), { recursive: true });
        run("git", ["init", "-q", plain]);
        const add = run("git", ["add", "-A"], plain);
        const ci = run("git", ["commit", "-q", "-m", "import"], plain);
        floor.push({ seconds: add.seconds + ci.seconds, cpu: add.cpu + ci.cpu, maxRssMiB: Math.max(add.maxRssMiB, ci.maxRssMiB), stdout: "" });
        // the other floor: a bare loop making the same record files, one `sync -f` (file-floor.ts)
        const made = JSON.parse(run(process.execPath, [path.join(REPO, "scripts/bench-lib/file-floor.ts"), store, path.join(path.dirname(store), "bare")]).stdout);
        bare.push({ seconds: made.seconds, cpu: made.cpu, maxRssMiB: 0, stdout: "" });
      }
      // removed after the last run: on ext4 without a journal a new file skips the inodes freed in
      // the last 5-35 s one by one (recently_deleted), so removing 13,000 files just before the next
      // binary's import made that import pay for the previous one's
      scratch.push(path.dirname(store));
    }
  }
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
  fs.rmSync(src, { recursive: true, force: true });
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const target = TARGET[size];
  const name = `${size.toLocaleString("en-US")} memories + ${Math.round(size * 0.3).toLocaleString("en-US")} relations (${mib.toFixed(1)} MiB)`;
  for (const bin of bins) {
    const rs = results.get(bin)!;
    const total = med(rs.map((x) => x.imp.seconds + x.commit.seconds));
    const o = rs[0]!.out;
    const verdict = target === undefined ? "" : total <= target ? `met (${(target - total).toFixed(1)} s to spare)` : `**not met** (${(total - target).toFixed(1)} s over)`;
    rows.push(
      `| ${name}${label(bin)} | ${o.memories.imported.toLocaleString("en-US")} / ${o.relations.imported.toLocaleString("en-US")} | ${med(rs.map((x) => x.imp.seconds)).toFixed(2)} | ${med(rs.map((x) => x.commit.seconds)).toFixed(2)} | ${total.toFixed(2)} | ${target ?? "–"} s: ${verdict} | ${med(rs.map((x) => x.imp.cpu)).toFixed(2)} / ${med(rs.map((x) => x.commit.cpu)).toFixed(2)} | ${Math.max(...rs.map((x) => x.imp.maxRssMiB)).toFixed(0)} / ${Math.max(...rs.map((x) => x.commit.maxRssMiB)).toFixed(0)} | ${rs.length} |`,
    );
  }
  rows.push(`| ${name} — floor: a bare Bun loop making the same files (temp + rename), one sync -f | – | ${med(bare.map((x) => x.seconds)).toFixed(2)} | – | – | – | ${med(bare.map((x) => x.cpu)).toFixed(2)} / – | – | ${bare.length} |`);
  rows.push(`| ${name} — floor: native git add -A + commit of the same files | – | – | ${med(floor.map((x) => x.seconds)).toFixed(2)} | – | – | – / ${med(floor.map((x) => x.cpu)).toFixed(2)} | – / ${Math.max(...floor.map((x) => x.maxRssMiB)).toFixed(0)} | ${floor.length} |`);
}
console.log("| source | imported (memories / relations) | import s | commit s | import + commit s (median) | target | CPU s (import / commit) | peak RSS MiB (import / commit) | runs |");
console.log("|---|--:|--:|--:|--:|---|--:|--:|--:|");
for (const r of rows) console.log(r);
console.log(`\nMachine load when the run ended: ${os.loadavg()[0]!.toFixed(2)} (1-minute average, ${os.cpus().length} cores).`);
