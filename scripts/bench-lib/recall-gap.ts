// Where recall loses its paraphrases, per set, in counts (issue 15, branch recall29): for each
// paraphrase whose relevant memory is not in recall's first 5, whether the floor lost it (the
// prompt got nothing: the gate judged it off-topic; or the page left the memory out) or the
// ranking did (shown 6th-10th), each split by whether plain BM25 has the memory in its first 5;
// and how the memory relates to the prompt: no word shared (not a candidate: only a link of
// vocabulary could find it), some words but no strong one, one strong word, two or more; and
// whether a concept of the prompt is held by it (a link recall has, weighed too low) or not.
//
// --fuse prices reciprocal-rank fusion of recall's page with BM25's list (k = 60; BM25's weight 1
// and 0.5), and with the order of recall's own candidates by BM25, for prompts recall answers
// (so off-topic answered is unchanged by construction).
//
// The lead's held-out sets (LEAD_HELD_OUT) are left out; --held-out counts them instead, as figures
// only (no text of theirs is ever printed). --show SET lists one readable set's misses.
//
//   bun scripts/bench-lib/recall-gap.ts [--held-out] [--fuse] [--show SET]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { memoryTerms, recallText, termsFromStored } from "../../src/core/memory-terms.ts";
import { holdsConcept } from "../../src/core/recall-concepts.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";
import { STOP_WORDS } from "../../src/core/stop-words.ts";
import { recall } from "../../src/ops/recall.ts";
import { CORPUS_QUERIES } from "../../tests/fixtures/recall-corpus/queries.ts";
import { corpusStore, LEAD_HELD_OUT, OWN_STORE } from "./recall-quality.ts";

const NOW = 1_800_000_000;
const WORD = /[\p{L}\p{N}]+/gu;
const heldOut = process.argv.includes("--held-out");
const fuse = process.argv.includes("--fuse");
const show = process.argv.includes("--show") ? process.argv[process.argv.indexOf("--show") + 1]! : null;
if (show !== null && LEAD_HELD_OUT.has(show)) {
  console.error(`recall-gap: ${show} is held out: its queries are never shown`);
  process.exit(2);
}

/** One paraphrase: recall's page (each item with the near-duplicates folded into it), BM25's list and recall's candidates in BM25 order. */
interface Row {
  set: string;
  relevant: readonly string[];
  page: string[][];
  bm25: string[];
  candidates: string[];
  loss: string | null;
  relation: string | null;
  link: string | null;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-recall-gap-"));
const { store, keyOf } = await corpusStore(root);
const rows: Row[] = [];
try {
  for (const q of CORPUS_QUERIES) {
    const set = q.batch ?? q.split;
    // a batch on a store of its own (OWN_STORE: tune34, new22) asks about memories this store lacks
    if (q.kind !== "paraphrase" || LEAD_HELD_OUT.has(set) !== heldOut || set in OWN_STORE) continue;
    const r = await recall(store, { query: q.q, limit: 10, budget: 100_000, now: NOW });
    const page = r.items.map((i) => [keyOf.get(i.id)!, ...i.collapsed.map((c) => keyOf.get(c)!)]);
    const words = [...new Set(q.q.toLowerCase().match(WORD) ?? [])].filter((w) => !STOP_WORDS.has(w));
    const bm25 = words.length ? (await store.search(`content : (${words.map((w) => `"${w}"`).join(" OR ")})`, { statuses: ["active"] }, 10, false)).hits.map((h) => keyOf.get(h.memory.id)!) : [];
    const terms = recallTerms(q.q);
    const hits = terms.match ? await store.searchWithTerms(terms.match, { statuses: ["active", "promoted"] }, 50) : [];
    const at = page.findIndex((ks) => ks.some((k) => q.relevant.includes(k)));
    let loss: string | null = null;
    let relation: string | null = null;
    let link: string | null = null;
    if (at < 0 || at >= 5) {
      loss = at >= 5 ? "rank 6-10" : page.length === 0 ? "nothing shown" : "left off the page";
      const i = hits.findIndex((h) => q.relevant.includes(keyOf.get(h.memory.id)!));
      if (i < 0) relation = "no word shared";
      else {
        const h = hits[i]!;
        const mt = termsFromStored(h.terms ?? "", h.memory.entities) ?? memoryTerms(recallText(h.memory), h.memory.entities);
        const n = fitOf(terms, mt).strongFound.length;
        relation = n === 0 ? "no strong word" : n === 1 ? "one strong word" : "two+ strong words";
        link = terms.concepts.some((c) => holdsConcept(mt, c)) ? "concept held" : "no concept held";
      }
    }
    rows.push({ set, relevant: q.relevant, page, bm25, candidates: hits.slice(0, 10).map((h) => keyOf.get(h.memory.id)!), loss, relation, link });
    if (show === set && loss !== null) console.log(`${loss.padEnd(17)} ${relation!.padEnd(17)} ${(link ?? "").padEnd(15)} bm25@${bm25.findIndex((k) => q.relevant.includes(k))} ${JSON.stringify(q.q)} want ${q.relevant.join(",")}`);
  }
} finally {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
}

const sets = [...new Set(rows.map((r) => r.set)), "pooled"];
const of = (set: string) => (set === "pooled" ? rows : rows.filter((r) => r.set === set));
const inTop5 = (keys: readonly string[], relevant: readonly string[]) => keys.slice(0, 5).some((k) => relevant.includes(k));

console.log("\n| set | n | missed | nothing shown (BM25 top 5 / not) | left off the page | rank 6-10 | no word shared | no strong word | one strong word | two+ | concept held |");
console.log("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |");
for (const set of sets) {
  const rs = of(set);
  const missed = rs.filter((r) => r.loss !== null);
  const split = (loss: string) => {
    const m = missed.filter((r) => r.loss === loss);
    return `${m.filter((r) => inTop5(r.bm25, r.relevant)).length} / ${m.filter((r) => !inTop5(r.bm25, r.relevant)).length}`;
  };
  const rel = (x: string) => missed.filter((r) => r.relation === x).length;
  console.log(`| ${set} | ${rs.length} | ${missed.length} | ${split("nothing shown")} | ${split("left off the page")} | ${split("rank 6-10")} | ${rel("no word shared")} | ${rel("no strong word")} | ${rel("one strong word")} | ${rel("two+ strong words")} | ${missed.filter((r) => r.link === "concept held").length} |`);
}

if (fuse) {
  /** Reciprocal-rank fusion of the page with a list of keys; a key folded into a page item counts for that item. */
  const fused = (page: string[][], list: readonly string[], weight: number, k = 60): string[][] => {
    const score = new Map<string, number>();
    const items = new Map<string, string[]>();
    page.forEach((ks, i) => {
      score.set(ks[0]!, 1 / (k + i + 1));
      items.set(ks[0]!, ks);
    });
    list.forEach((key, i) => {
      const owner = page.find((ks) => ks.includes(key))?.[0] ?? key;
      if (!items.has(owner)) items.set(owner, [owner]);
      score.set(owner, (score.get(owner) ?? 0) + weight / (k + i + 1));
    });
    return [...score.keys()].sort((a, b) => score.get(b)! - score.get(a)!).map((key) => items.get(key)!).slice(0, 10);
  };
  const scores = (rs: readonly Row[], pageOf: (r: Row) => string[][]) => {
    let r5 = 0;
    let mrr = 0;
    for (const r of rs) {
      const page = pageOf(r);
      const top5 = new Set(page.slice(0, 5).flat());
      r5 += r.relevant.filter((k) => top5.has(k)).length / r.relevant.length;
      const at = page.findIndex((ks) => ks.some((k) => r.relevant.includes(k)));
      if (at >= 0) mrr += 1 / (at + 1);
    }
    return `${(r5 / rs.length).toFixed(3)} / ${(mrr / rs.length).toFixed(3)}`;
  };
  console.log("\n| set | recall | fused with BM25 (weight 1) | (weight 0.5) | fused with its candidates' BM25 order (1) | (0.5) | plain BM25 |");
  console.log("| --- | --: | --: | --: | --: | --: | --: |");
  for (const set of sets) {
    const rs = of(set);
    const when = (f: (r: Row) => string[][]) => (r: Row) => (r.page.length ? f(r) : []);
    console.log(`| ${set} | ${scores(rs, (r) => r.page)} | ${scores(rs, when((r) => fused(r.page, r.bm25, 1)))} | ${scores(rs, when((r) => fused(r.page, r.bm25, 0.5)))} | ${scores(rs, when((r) => fused(r.page, r.candidates, 1)))} | ${scores(rs, when((r) => fused(r.page, r.candidates, 0.5)))} | ${scores(rs, (r) => r.bm25.map((k) => [k]))} |`);
  }
}
