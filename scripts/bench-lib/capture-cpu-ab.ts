// Extraction CPU per prompt, this tree against another copy of src (e.g. main's, unpacked with
// `git archive main src | tar -x -C .bench/main-src`), in one process, interleaved, so the
// machine's load falls on both alike: user+sys CPU per prompt over the whole capture corpus.
//
//   bun scripts/bench-lib/capture-cpu-ab.ts .bench/main-src/src [--rounds 15]

import path from "node:path";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { NEVER_READ } from "./capture-model.ts";
import { loadCorpus } from "./capture-quality.ts";

const other = process.argv[2];
if (!other) {
  console.error("usage: capture-cpu-ab.ts <other src dir> [--rounds N]");
  process.exit(2);
}
const i = process.argv.indexOf("--rounds");
const rounds = i === -1 ? 15 : Number(process.argv[i + 1]);
const base = (await import(path.resolve(other, "core/capture/extract.ts"))) as { extractCaptures: typeof extractCaptures };
// (a held-out set being written is not even run here)
const texts = loadCorpus()
  .filter((r) => !NEVER_READ.has(r.set ?? ""))
  .map((r) => r.text);

function cpuMicros(fn: (t: string) => unknown): number {
  const t0 = process.cpuUsage();
  for (const t of texts) fn(t);
  const d = process.cpuUsage(t0);
  return d.user + d.system;
}

for (let w = 0; w < 3; w++) cpuMicros(extractCaptures), cpuMicros(base.extractCaptures);
const here: number[] = [];
const there: number[] = [];
// the order alternates too: the second run of a round inherits the first's garbage
for (let r = 0; r < rounds; r++) {
  if (r % 2 === 0) {
    there.push(cpuMicros(base.extractCaptures));
    here.push(cpuMicros(extractCaptures));
  } else {
    here.push(cpuMicros(extractCaptures));
    there.push(cpuMicros(base.extractCaptures));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const per = (xs: number[]) => median(xs) / texts.length;
console.log(`${texts.length} prompts, ${rounds} interleaved rounds, median CPU (user+sys) per prompt:`);
console.log(`  base ${per(there).toFixed(1)} µs   this ${per(here).toFixed(1)} µs   ratio ${(per(here) / per(there)).toFixed(3)}   load ${(await import("node:os")).loadavg()[0]!.toFixed(2)}`);
