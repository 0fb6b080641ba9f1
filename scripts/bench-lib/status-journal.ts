// `memsync status` on a store whose changes are all still journaled (a generated store is
// written through the store API and never committed: 16.5 MB of journal at 10k memories),
// binaries side by side: each has its own scratch copy, rounds interleaved, CPU (user + system)
// and wall time of each process. The first status of each copy is untimed (it makes the
// journal-count cache where a binary keeps one), so the figures are of the repeated status.
//
//   bun scripts/bench-lib/status-journal.ts [--sizes 10000] [--bins main=BIN,after=BIN] [--rounds 9]

import path from "node:path";
import { arg } from "./args.ts";
import { loadAverage } from "./cold.ts";
import { ensureBenchStore, scratchCopy, settle } from "./generate.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH = path.join(REPO, ".bench");
const SEED = 20261121;

const sizes = arg("--sizes", "10000").split(",").map((s) => Number(s.replace(/k$/i, "000")));
const rounds = Number(arg("--rounds", "9"));
const bins = arg("--bins", `after=${path.join(REPO, "dist/memsync")}`)
  .split(",")
  .map((kv) => ({ label: kv.slice(0, kv.indexOf("=")), bin: path.resolve(kv.slice(kv.indexOf("=") + 1)) }));

function status(bin: string, store: string): { cpu: number; wall: number; changes: number } {
  const t0 = performance.now();
  const r = Bun.spawnSync([bin, "--store", store, "status", "--json"], { stdout: "pipe", stderr: "pipe" });
  const wall = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`status failed (exit ${r.exitCode}): ${r.stderr.toString()}`);
  const cpu = Number(r.resourceUsage.cpuTime.total) / 1000;
  return { cpu, wall, changes: JSON.parse(r.stdout.toString()).uncommitted_changes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const size of sizes) {
  const src = path.join(BENCH, `store-${size}`);
  await ensureBenchStore(src, size, { fresh: false, seed: SEED, log: (l) => console.log(l) });
  const copies = bins.map((b) => ({ ...b, store: path.join(BENCH, `status-journal-${size}-${b.label}`), cpu: [] as number[], wall: [] as number[] }));
  for (const c of copies) {
    scratchCopy(src, c.store);
    await settle(c.store);
    const first = status(c.bin, c.store);
    console.log(`  ${c.label}: ${first.changes} uncommitted changes; first status ${first.cpu.toFixed(0)} ms CPU, ${first.wall.toFixed(0)} ms wall`);
  }
  const load0 = loadAverage();
  for (let i = 0; i < rounds; i++) {
    for (const c of copies) {
      const r = status(c.bin, c.store);
      c.cpu.push(r.cpu);
      c.wall.push(r.wall);
    }
  }
  console.log(`status at ${size} memories, journal uncommitted, ${rounds} interleaved rounds, load ${load0} -> ${loadAverage()}`);
  const base = copies[0]!;
  for (const c of copies) {
    const ratio = `${(median(c.cpu) / median(base.cpu)).toFixed(2)}x CPU, ${(median(c.wall) / median(base.wall)).toFixed(2)}x wall of ${base.label}`;
    console.log(`  ${c.label.padEnd(8)} CPU ${median(c.cpu).toFixed(0)} ms  wall ${median(c.wall).toFixed(0)} ms  (${ratio})`);
  }
}
