// recall and context on a generated store (the benchmark corpus, same seed as scripts/bench):
// whole-process cold runs of the compiled binary (hyperfine when installed), side by side with
// search, and the same operations in-process. A hook runs recall on every prompt, so its cold
// time is the figure that matters.
//
//   bun scripts/bench-lib/recall-bench.ts [--size 10000] [--runs 30] [--json]

import fs from "node:fs";
import path from "node:path";
import { projectContext } from "../../src/ops/project-context.ts";
import { searchMemories } from "../../src/ops/query.ts";
import { recall } from "../../src/ops/recall.ts";
import { Store } from "../../src/store/store.ts";
import { type ColdCase, findHyperfine, measure, type Stat, statOf } from "./cold.ts";
import { PROJECTS } from "./corpus.ts";
import { ensureBenchStore } from "./generate.ts";
import { arg } from "./args.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(REPO, "dist/memsync");
const SEED = 20261121;

/** Prompts as an agent's user types them: the words recall looks for come out of these. */
export const RECALL_PROMPTS = {
  short: "connection timeout",
  prompt: "Why does the billing worker run out of connections during the nightly batch, and how did we fix the timeout?",
  rare: "what was the kestrel codename about?",
} as const;

export interface RecallBenchResult {
  size: number;
  cold: Record<string, Stat>;
  inproc: Record<string, Stat & { total?: number; shown?: number }>;
}


export async function measureRecall(size: number, runs: number): Promise<RecallBenchResult> {
  const dir = path.join(REPO, ".bench", `store-${size}`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  await ensureBenchStore(dir, size, { fresh: false, seed: SEED, log: (l) => console.error(l) });
  const jsonDir = path.join(REPO, ".bench", "hyperfine");
  fs.mkdirSync(jsonDir, { recursive: true });
  const opts = { runs, warmup: 3, hyperfine: findHyperfine(), jsonDir };
  const on = (...rest: string[]) => [BIN, "--store", dir, ...rest];
  const project = PROJECTS[0];
  const cases: ColdCase[] = [
    { key: `${size}-search-common`, argv: on("search", ...RECALL_PROMPTS.short.split(" ")) },
    { key: `${size}-recall-short`, argv: on("recall", RECALL_PROMPTS.short) },
    { key: `${size}-recall-prompt`, argv: on("recall", RECALL_PROMPTS.prompt) },
    { key: `${size}-recall-rare`, argv: on("recall", RECALL_PROMPTS.rare) },
    { key: `${size}-context`, argv: on("context", "--project", project) },
  ];
  const cold: Record<string, Stat> = {};
  for (const c of cases) cold[c.key.slice(String(size).length + 1)] = measure(c, opts);

  const inproc: RecallBenchResult["inproc"] = {};
  const store = await Store.open(dir);
  try {
    const time = async (key: string, fn: () => Promise<{ total: number; shown?: number }>) => {
      await fn();
      const ms: number[] = [];
      let last = { total: 0 } as { total: number; shown?: number };
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        last = await fn();
        ms.push(performance.now() - t0);
      }
      inproc[key] = { ...statOf(ms), ...last };
    };
    const filter = { statuses: ["active", "promoted"] };
    await time("search-common", async () => ({ total: (await searchMemories(store, RECALL_PROMPTS.short, filter, 20)).total }));
    for (const [k, q] of Object.entries(RECALL_PROMPTS)) {
      await time(`recall-${k}`, async () => {
        const r = await recall(store, { query: q });
        return { total: r.total, shown: r.items.length };
      });
    }
    await time("context", async () => {
      const r = await projectContext(store, { project });
      return { total: r.total, shown: r.items.length };
    });
  } finally {
    store.close();
  }
  return { size, cold, inproc };
}

if (import.meta.main) {
  const size = Number(arg("--size", "10000"));
  const runs = Number(arg("--runs", "30"));
  const r = await measureRecall(size, runs);
  if (process.argv.includes("--json")) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(`store of ${size} memories; ${runs} runs each (median, mean ± sd in ms)`);
    for (const [k, s] of Object.entries(r.cold)) console.log(`  cold ${k.padEnd(16)} ${s.median.toFixed(1).padStart(6)}  ${s.mean.toFixed(1)} ± ${s.stddev.toFixed(1)}   ${s.lastLine ?? ""}`);
    for (const [k, s] of Object.entries(r.inproc)) console.log(`  in-process ${k.padEnd(16)} ${s.median.toFixed(2).padStart(6)}  matches ${s.total}${s.shown !== undefined ? `, shown ${s.shown}` : ""}`);
  }
}
