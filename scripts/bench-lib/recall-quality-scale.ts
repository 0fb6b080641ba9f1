// Recall quality at scale: the labelled corpus (tests/fixtures/recall-corpus) saved into a copy of
// a bench store (recall-bench's corpus, 1k / 10k / 50k memories of other topics), then every
// labelled query recalled by this checkout and, side by side on the same store, by another one
// (--before). recall-quality.ts measures the corpus alone (216 memories), where what recall does
// past 1,000 matches never runs; here it does. recall@5 and MRR@10 per kind and split, counted
// as recall-quality.ts counts them (a bench memory is never relevant).
//
//   bun scripts/bench-lib/recall-quality-scale.ts --before /tmp/main-checkout [--size 50000]
//
// `--before same`: this checkout against itself with the impact postings off (MEMSYNC_BOUNDED_FROM
// set past the store's size during its recalls: ops/recall.ts then runs as before them). A
// checkout of another index version cannot share the store's index (it would rebuild it).
// `--tuning-only`: the tuning queries alone (no held-out split, no "new" batch): for tuning runs.

import fs from "node:fs";
import path from "node:path";
import { findMentions } from "../../src/core/capture/entities.ts";
import type { OpsEnv } from "../../src/ops/context.ts";
import { saveMemories } from "../../src/ops/save.ts";
import { Store } from "../../src/store/store.ts";
import { CORPUS_MEMORIES } from "../../tests/fixtures/recall-corpus/memories.ts";
import { CORPUS_QUERIES, type CorpusQuery } from "../../tests/fixtures/recall-corpus/queries.ts";
import { arg } from "./args.ts";
import { ensureBenchStore, scratchCopy } from "./generate.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const SEED = 20261121;
const DAY = 86_400;
const NOW = 1_800_000_000;

type RecallFn = (store: unknown, opts: { query: string; limit: number; budget: number; now: number }) => Promise<{ items: { id: string; collapsed: string[] }[] }>;

const before = arg("--before", "");
if (!before) throw new Error("usage: bun scripts/bench-lib/recall-quality-scale.ts --before <checkout> [--size 50000]");
const size = Number(arg("--size", "50000"));
const src = path.join(REPO, ".bench", `store-${size}`);
await ensureBenchStore(src, size, { fresh: false, seed: SEED, log: (l) => console.error(l) });
const dir = path.join(REPO, ".bench", `quality-scale-${size}`);
scratchCopy(src, dir);

const env: OpsEnv = { storeRoot: dir, hostName: "bench", user: null };
const store = await Store.open(dir);
const n = CORPUS_MEMORIES.length;
const records = CORPUS_MEMORIES.map((m, i) => ({ content: m.content, type: m.type, created_at: NOW - (n - i) * DAY, entities: [...new Set(findMentions(m.content).map((x) => x.name))] }));
const saved = await saveMemories(store, env, records, records.map((_, i) => `memory ${i + 1}`));
const keyOf = new Map(saved.map((s, i) => [s.memory.id, CORPUS_MEMORIES[i]!.key]));
// the saved memories merged into recall's impact postings, as a sync after them would
await store.settleBoundedSearch(1);

const mine = (await import(path.join(REPO, "src/ops/recall.ts"))).recall as RecallFn;
const same = before === "same";
const unbounded = (fn: RecallFn): RecallFn => async (st, o) => {
  const was = process.env.MEMSYNC_BOUNDED_FROM;
  process.env.MEMSYNC_BOUNDED_FROM = String(Number.MAX_SAFE_INTEGER);
  try {
    return await fn(st, o);
  } finally {
    if (was === undefined) delete process.env.MEMSYNC_BOUNDED_FROM;
    else process.env.MEMSYNC_BOUNDED_FROM = was;
  }
};
const theirs = same ? unbounded(mine) : ((await import(path.join(path.resolve(before), "src/ops/recall.ts"))).recall as RecallFn);
const theirStore = same ? store : await ((await import(path.join(path.resolve(before), "src/store/store.ts"))).Store as { open(d: string): Promise<{ close(): void }> }).open(dir);
const tuningOnly = process.argv.includes("--tuning-only");
const QUERIES = tuningOnly ? CORPUS_QUERIES.filter((q) => q.split === "tune" && !(q.batch ?? "").startsWith("new")) : CORPUS_QUERIES;

type Tally = { n: number; r5: number; mrr: number; answered: number; off: number };
const tallies = [new Map<string, Tally>(), new Map<string, Tally>()];
let changed = 0;
const splitOf = (q: CorpusQuery) => q.batch ?? q.split;
for (const q of QUERIES) {
  const outs = [await mine(store, { query: q.q, limit: 10, budget: 100_000, now: NOW }), await theirs(theirStore, { query: q.q, limit: 10, budget: 100_000, now: NOW })];
  if (JSON.stringify(outs[0]) !== JSON.stringify(outs[1])) changed++;
  outs.forEach((r, side) => {
    // a bench memory has no key: it is never relevant
    const keys = r.items.map((i) => [keyOf.get(i.id) ?? "", ...i.collapsed.map((c) => keyOf.get(c) ?? "")]);
    for (const bucket of [`${q.kind} ${splitOf(q)}`, `${q.kind} all`]) {
      const t = tallies[side]!.get(bucket) ?? { n: 0, r5: 0, mrr: 0, answered: 0, off: 0 };
      t.n++;
      if (q.kind === "offtopic") {
        t.off++;
        if (keys.length) t.answered++;
      } else {
        const top5 = new Set(keys.slice(0, 5).flat());
        t.r5 += q.relevant.filter((k) => top5.has(k)).length / q.relevant.length;
        const first = keys.slice(0, 10).findIndex((ks) => ks.some((k) => q.relevant.includes(k)));
        if (first >= 0) t.mrr += 1 / (first + 1);
      }
      tallies[side]!.set(bucket, t);
    }
  });
}
store.close();
if (!same) theirStore.close();
// the copy (a 50k store's index is ~600 MB with its files): made again on the next run
fs.rmSync(dir, { recursive: true, force: true });
const f = (t: Tally) => (t.off ? `answered ${(t.answered / t.off).toFixed(3)}` : `recall@5 ${(t.r5 / t.n).toFixed(3)} MRR@10 ${(t.mrr / t.n).toFixed(3)}`);
console.log(`${n} labelled memories in a store of ${size} bench memories; ${QUERIES.length} queries${tuningOnly ? " (tuning only)" : ""}, ${changed} outcomes differ`);
console.log("| kind split | n | this checkout | before |\n| --- | --: | --- | --- |");
for (const k of [...tallies[0]!.keys()].sort()) console.log(`| ${k} | ${tallies[0]!.get(k)!.n} | ${f(tallies[0]!.get(k)!)} | ${f(tallies[1]!.get(k)!)} |`);
