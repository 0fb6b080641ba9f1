// Why off-topic prompts of the readable sets are answered in a large store (branch floor33): the
// labelled corpus saved into a copy of a bench store (as recall-quality-scale.ts does), each
// readable off-topic prompt recalled, and for each answered one what its first item shares with
// it: fitOf's floor (two strong words, a concept) or not (floorOf's one word in the store's
// language, the store's own associations), whether that item is a bench memory, and the words.
//
//   bun scripts/bench-lib/recall-floor-why-scale.ts [--size 10000] [--show]

import fs from "node:fs";
import path from "node:path";
import { findMentions } from "../../src/core/capture/entities.ts";
import { memoryTerms, recallText } from "../../src/core/memory-terms.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";
import type { OpsEnv } from "../../src/ops/context.ts";
import { recall } from "../../src/ops/recall.ts";
import { saveMemories } from "../../src/ops/save.ts";
import { Store } from "../../src/store/store.ts";
import { CORPUS_MEMORIES } from "../../tests/fixtures/recall-corpus/memories.ts";
import { CORPUS_QUERIES } from "../../tests/fixtures/recall-corpus/queries.ts";
import { arg } from "./args.ts";
import { ensureBenchStore, scratchCopy } from "./generate.ts";
import { LEAD_HELD_OUT } from "./recall-quality.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const DAY = 86_400;
const NOW = 1_800_000_000;
const size = Number(arg("--size", "10000"));
const show = process.argv.includes("--show");
const src = path.join(REPO, ".bench", `store-${size}`);
await ensureBenchStore(src, size, { fresh: false, seed: 20261121, log: (l) => console.error(l) });
const dir = path.join(REPO, ".bench", `floor-why-${size}`);
scratchCopy(src, dir);
const env: OpsEnv = { storeRoot: dir, hostName: "bench", user: null };
const store = await Store.open(dir);
const n = CORPUS_MEMORIES.length;
const records = CORPUS_MEMORIES.map((m, i) => ({ content: m.content, type: m.type, created_at: NOW - (n - i) * DAY, entities: [...new Set(findMentions(m.content).map((x) => x.name))] }));
const saved = new Set((await saveMemories(store, env, records, records.map((_, i) => `memory ${i + 1}`))).map((s) => s.memory.id));
const tally = new Map<string, number>();
let asked = 0;
try {
  for (const q of CORPUS_QUERIES) {
    if (q.kind !== "offtopic" || q.split !== "tune" || LEAD_HELD_OUT.has(q.batch ?? "")) continue;
    asked++;
    const r = await recall(store, { query: q.q, limit: 10, budget: 100_000, now: NOW });
    if (r.items.length === 0) continue;
    const terms = recallTerms(q.q);
    const read = (await store.readMemory(r.items[0]!.id))?.result;
    if (!read?.ok) continue;
    const m = read.record;
    const fit = fitOf(terms, memoryTerms(recallText(m), m.entities));
    const concept = terms.concepts.some((c) => c.from.some((w) => fit.strongFound.includes(w)));
    const how = !fit.passes ? "one word (floorOf, association)" : fit.strongFound.length >= 2 ? `two+ strong words${terms.strong.length >= 5 ? " of a 5+ word prompt" : ""}` : concept ? "a concept" : "its only strong word";
    const key = `${how}, ${saved.has(m.id) ? "corpus" : "bench"} memory`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
    if (show) console.log(`${q.batch} ${JSON.stringify(q.q)} -> [${fit.strongFound.join(" ")}] of [${terms.strong.join(" ")}] ${key}: ${m.content.slice(0, 90)}`);
  }
} finally {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`${asked} readable off-topic prompts in a store of ${size} + ${n}; answered, by what the first item shares:`);
for (const [k, c] of [...tally].sort((a, b) => b[1] - a[1])) console.log(`  ${c}  ${k}`);
