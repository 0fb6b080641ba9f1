// Why recall misses, per split, in aggregate (for held-out sets) or query by query (tune only):
// where the relevant memory was lost (not a candidate, under the floor, under the relative
// relevance cut, ranked 2nd-5th or lower), and how often plain BM25 got right what recall did not.
//
//   bun scripts/bench-lib/recall-diag.ts [--show tune4] [--gap]
//
// The lead's held-out sets new12, new13, new17, new18, new19, new20, new21 and new22 are skipped (never run, never counted); new11 and
// new10 are tune data since branch recall13, new15 and new16 since session lead28.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findMentions } from "../../src/core/capture/entities.ts";
import { contentWords, memoryTerms, recallText, termsFromStored, wordSet } from "../../src/core/memory-terms.ts";
import { heldByAssociation } from "../../src/core/recall-associated.ts";
import { fitOf, floorOf, recallTerms } from "../../src/core/recall-rank.ts";
import { STOP_WORDS } from "../../src/core/stop-words.ts";
import type { OpsEnv } from "../../src/ops/context.ts";
import { initStore } from "../../src/ops/init.ts";
import { recall } from "../../src/ops/recall.ts";
import { saveMemories } from "../../src/ops/save.ts";
import { Store } from "../../src/store/store.ts";
import { CORPUS_MEMORIES } from "../../tests/fixtures/recall-corpus/memories.ts";
import { CORPUS_QUERIES } from "../../tests/fixtures/recall-corpus/queries.ts";
import { LEAD_HELD_OUT } from "./recall-quality.ts";

const DAY = 86_400;
const NOW = 1_800_000_000;
const WORD = /[\p{L}\p{N}]+/gu;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-recall-diag-"));
const env: OpsEnv = { storeRoot: root, hostName: "bench", user: null };
await initStore(env, { git: false });
const store = await Store.open(root);
const n = CORPUS_MEMORIES.length;
const records = CORPUS_MEMORIES.map((m, i) => ({ content: m.content, type: m.type, created_at: NOW - (n - i) * DAY, entities: [...new Set(findMentions(m.content).map((x) => x.name))] }));
const saved = await saveMemories(store, env, records, records.map((_, i) => `memory ${i + 1}`));
const keyOf = new Map(saved.map((s, i) => [s.memory.id, CORPUS_MEMORIES[i]!.key]));
const textOf = new Map(CORPUS_MEMORIES.map((m) => [m.key, m.content]));
// --gap: each paraphrase BM25 has in its top 5 and recall does not, with its class
const gap = process.argv.includes("--gap");
const show = process.argv.includes("--show") ? process.argv[process.argv.indexOf("--show") + 1]! : null;

type Tally = Record<string, number>;
const tallies = new Map<string, Tally>();
const bump = (split: string, k: string) => {
  const t = tallies.get(split) ?? {};
  t[k] = (t[k] ?? 0) + 1;
  tallies.set(split, t);
};
for (const q of CORPUS_QUERIES) {
  if (q.kind !== "paraphrase") continue;
  const split = q.batch ?? q.split;
  // the lead's held-out sets: never run here (their misses must stay unseen)
  if (LEAD_HELD_OUT.has(split)) continue;
  const r = await recall(store, { query: q.q, limit: 10, budget: 100_000, now: NOW });
  const keys = r.items.map((i) => [keyOf.get(i.id)!, ...i.collapsed.map((c) => keyOf.get(c)!)]);
  const at = keys.findIndex((ks) => ks.some((k) => q.relevant.includes(k)));
  const words = [...new Set(q.q.toLowerCase().match(WORD) ?? [])].filter((w) => !STOP_WORDS.has(w));
  const hits = words.length ? (await store.search(`content : (${words.map((w) => `"${w}"`).join(" OR ")})`, { statuses: ["active"] }, 10, false)).hits : [];
  const bat = hits.findIndex((h) => q.relevant.includes(keyOf.get(h.memory.id)!));
  // where the relevant memory was lost
  const terms = recallTerms(q.q);
  let why = "";
  if (at === 0) why = "first";
  else if (at > 0 && at < 5) why = "rank 2-5";
  else if (at >= 5) why = "rank 6-10";
  else if (r.items.length >= 10 && (await recall(store, { query: q.q, limit: 50, budget: 1_000_000, now: NOW })).items.some((i) => q.relevant.includes(keyOf.get(i.id)!))) why = "rank 11+";
  else if (terms.match === null) why = "no terms";
  else {
    const cands = await store.searchWithTerms(terms.match, { statuses: ["active", "promoted"] }, 50);
    const fits = cands.map((h) => fitOf(terms, termsFromStored(h.terms ?? "", h.memory.entities) ?? memoryTerms(recallText(h.memory), h.memory.entities)));
    const by = heldByAssociation(terms, fits, cands.map((h) => ({ content: contentWords(h.memory.content), words: wordSet(recallText(h.memory)) })));
    const passes = floorOf(terms, fits, cands.length < 50).map((p, j) => p || by[j] !== null);
    const i = cands.findIndex((h) => q.relevant.includes(keyOf.get(h.memory.id)!));
    if (i < 0) why = "not a candidate";
    else if (!fits[i]!.passes && !passes[i]) why = `floor (${fits[i]!.strongFound.length} strong of ${terms.strong.length})`;
    else why = "cut (relative relevance)";
  }
  bump(split, why);
  if (bat === 0 && at !== 0) bump(split, `BM25 first, memsync ${why}`);
  if (bat >= 0 && bat < 5 && (at < 0 || at >= 5)) {
    bump(split, "BM25 top5, memsync not");
    bump(split, `BM25 top5, memsync ${why}`);
    if (gap) console.log(`gap ${split.padEnd(7)} ${why.padEnd(24)} bm25@${bat} ${JSON.stringify(q.q)} want ${q.relevant.join(",")} | strong ${terms.strong.join(" ")} | shown ${r.items.length}`);
  }
  if (show && show.split(",").includes(split) && at !== 0) {
    console.log(`${split} ${why.padEnd(22)} shown ${r.items.length} bm25@${bat} ${JSON.stringify(q.q)} want ${q.relevant.join(",")} | strong ${terms.strong.join(" ")} | concepts ${terms.concepts.map((c) => c.label).join(",")}`);
    for (const k of q.relevant) console.log(`    want ${k}: ${JSON.stringify(textOf.get(k)?.slice(0, 160))}`);
    for (const it of r.items.slice(0, Math.max(3, at + 1))) console.log(`    ${(q.relevant.includes(keyOf.get(it.id)!) ? "*" : " ")}${keyOf.get(it.id)!.padEnd(20)} score ${it.score.toFixed(3)} rel ${it.relevance.toFixed(3)} rec ${it.recency.toFixed(2)} decay ${it.decay.toFixed(2)} ${JSON.stringify(textOf.get(keyOf.get(it.id)!)?.slice(0, 90))}`);
  }
}
store.close();
fs.rmSync(root, { recursive: true, force: true });
for (const [split, t] of tallies) console.log(split.padEnd(8), JSON.stringify(Object.fromEntries(Object.entries(t).sort())));
