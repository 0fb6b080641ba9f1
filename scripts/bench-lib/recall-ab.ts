// recall in process, this checkout against another one (a "before" checkout of main), side by
// side in one process on the same benchmark store: each round runs every prompt on both, in
// turn, so both see the same load. Reports median and p99 per prompt and the ratio after/before.
//
//   bun scripts/bench-lib/recall-ab.ts --before /tmp/main-checkout [--size 10000] [--rounds 200]

import path from "node:path";
import { statOf } from "./cold.ts";
import { ensureBenchStore } from "./generate.ts";
import { RECALL_PROMPTS } from "./recall-bench.ts";
import { arg } from "./args.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const SEED = 20261121;


/** Prompts as a hook gets them: the benchmark's three, a paraphrase, and two about nothing in the store. */
const PROMPTS: Record<string, string> = {
  ...RECALL_PROMPTS,
  paraphrase: "which db do we use for the billing worker?",
  offtopic: "What's a good recipe for banana bread?",
  "offtopic-dev": "How do I reverse a linked list in Python?",
};

type RecallFn = (store: unknown, opts: { query: string }) => Promise<{ items: unknown[]; total: number }>;

async function side(root: string): Promise<{ recall: RecallFn; open: (dir: string) => Promise<{ close(): void }> }> {
  const { recall } = (await import(path.join(root, "src/ops/recall.ts"))) as { recall: RecallFn };
  const { Store } = (await import(path.join(root, "src/store/store.ts"))) as { Store: { open(dir: string): Promise<{ close(): void }> } };
  return { recall, open: (dir) => Store.open(dir) };
}

if (import.meta.main) {
  const before = path.resolve(arg("--before", ""));
  const size = Number(arg("--size", "10000"));
  const rounds = Number(arg("--rounds", "200"));
  const dir = path.join(REPO, ".bench", `store-${size}`);
  await ensureBenchStore(dir, size, { fresh: false, seed: SEED, log: (l) => console.error(l) });
  const sides = { before: await side(before), after: await side(REPO) };
  const stores = { before: await sides.before.open(dir), after: await sides.after.open(dir) };
  const ms: Record<string, number[]> = {};
  const shown: Record<string, number> = {};
  for (let r = -5; r < rounds; r++) {
    for (const [name, q] of Object.entries(PROMPTS)) {
      for (const s of ["before", "after"] as const) {
        const t0 = performance.now();
        const out = await sides[s].recall(stores[s], { query: q });
        const dt = performance.now() - t0;
        if (r < 0) continue; // warm-up
        (ms[`${name}:${s}`] ??= []).push(dt);
        shown[`${name}:${s}`] = out.items.length;
      }
    }
  }
  stores.before.close();
  stores.after.close();
  console.log(`recall in process on ${size.toLocaleString("en")} memories, ${rounds} rounds (before and after in turn, one process); load ${(await import("node:os")).loadavg()[0]!.toFixed(2)}`);
  console.log("| prompt | before median / p99 ms (shown) | after median / p99 ms (shown) | after/before median | after/before p99 |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const name of Object.keys(PROMPTS)) {
    const b = statOf(ms[`${name}:before`]!);
    const a = statOf(ms[`${name}:after`]!);
    const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.99)]!;
    const bp = p99(ms[`${name}:before`]!);
    const ap = p99(ms[`${name}:after`]!);
    console.log(`| ${name} | ${b.median.toFixed(2)} / ${bp.toFixed(2)} (${shown[`${name}:before`]}) | ${a.median.toFixed(2)} / ${ap.toFixed(2)} (${shown[`${name}:after`]}) | ${(a.median / b.median).toFixed(2)}x | ${(ap / bp).toFixed(2)}x |`);
  }
}
