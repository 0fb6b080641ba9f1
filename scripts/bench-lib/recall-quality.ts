// Recall quality on the labelled corpus (tests/fixtures/recall-corpus): recall@5, MRR@10 and the
// share of off-topic prompts that return anything, for memsync's recall and for plain BM25 (FTS5
// bm25 over the content, any word of the query, stop words out) as the baseline. In process, on
// a fresh store in a temp folder: the memories are saved as capture would keep them (entities
// found by capture's own entity finder), a day apart in the corpus's order.
//
//   bun scripts/bench-lib/recall-quality.ts [--json] [--misses]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findMentions } from "../../src/core/capture/entities.ts";
import { STOP_WORDS } from "../../src/core/stop-words.ts";
import type { OpsEnv } from "../../src/ops/context.ts";
import { initStore } from "../../src/ops/init.ts";
import { recall } from "../../src/ops/recall.ts";
import { saveMemories } from "../../src/ops/save.ts";
import { Store } from "../../src/store/store.ts";
import { CORPUS_MEMORIES, type CorpusMemory } from "../../tests/fixtures/recall-corpus/memories.ts";
import { CORPUS_QUERIES, type CorpusQuery, NEAR_DUPLICATE_PAIRS, type QueryKind, SUPERSEDES } from "../../tests/fixtures/recall-corpus/queries.ts";
import { NEW22_MEMORIES } from "../../tests/fixtures/recall-corpus/new22.ts";
import { TUNE34_MEMORIES } from "../../tests/fixtures/recall-corpus/tune34.ts";

const DAY = 86_400;
const NOW = 1_800_000_000;

export interface Scores {
  queries: number;
  /** Share of each query's relevant memories in the first 5, averaged. */
  recall5: number;
  /** 1 / rank of the first relevant memory in the first 10 (0 if none), averaged. */
  mrr10: number;
  /** Off-topic queries only: share that returned anything. */
  answered: number;
}

export interface QualityResult {
  memories: number;
  queries: number;
  /** kind -> split ("tune", of which "tune4" to "tune7", "tune11", "tune21", "tune27", "tune28", "tune28b", "tune28c", "tune29", "tune29b", "tune32", "tune32b", "tune33", "tune34"; "heldout", "new", "new3" to "new6", "new9", "new10", "new11", "new12", "new13", "new15", "new16": written later, once held out, now readable tuning data; "new17", "new18", "new19", "new20", "new21", "new22": held out (new22 on a store of its own), "all") -> scores; for memsync and the BM25 baseline. */
  memsync: Record<string, Record<string, Scores>>;
  bm25: Record<string, Record<string, Scores>>;
  /** Superseded queries: the newer memory shown before the older, and the older marked. */
  superseded: { newerFirst: number; olderMarked: number; queries: number };
  /** Near-duplicate pairs both matched by a query: shown once (the other folded). */
  duplicates: { folded: number; pairs: number };
  misses: string[];
}

type Ranked = { keys: string[][]; superseded: Set<string> };

/** The lead's held-out recall batches: measured only, never tuned on (new12 and new13 were never
 * released; new15 and new16 became readable tuning data in session lead28). */
export const LEAD_HELD_OUT: ReadonlySet<string> = new Set(["new12", "new13", "new17", "new18", "new19", "new20", "new21", "new22"]);

function score(queries: readonly CorpusQuery[], results: ReadonlyMap<CorpusQuery, Ranked>): Scores {
  let r5 = 0;
  let mrr = 0;
  let answered = 0;
  for (const q of queries) {
    const ranked = results.get(q)!.keys;
    if (q.kind === "offtopic") {
      if (ranked.length > 0) answered++;
      continue;
    }
    const top5 = new Set(ranked.slice(0, 5).flat());
    r5 += q.relevant.filter((k) => top5.has(k)).length / q.relevant.length;
    const first = ranked.slice(0, 10).findIndex((keys) => keys.some((k) => q.relevant.includes(k)));
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = queries.length;
  const off = queries.filter((q) => q.kind === "offtopic").length;
  return { queries: n, recall5: off === n ? 0 : r5 / (n - off), mrr10: off === n ? 0 : mrr / (n - off), answered: off ? answered / off : 0 };
}

function byKind(results: ReadonlyMap<CorpusQuery, Ranked>): Record<string, Record<string, Scores>> {
  const out: Record<string, Record<string, Scores>> = {};
  const kinds: (QueryKind | "on-topic")[] = ["paraphrase", "exact", "superseded", "on-topic", "offtopic"];
  for (const kind of kinds) {
    const of = CORPUS_QUERIES.filter((q) => (kind === "on-topic" ? q.kind !== "offtopic" : q.kind === kind));
    out[kind] = {
      tune: score(of.filter((q) => q.split === "tune"), results),
      heldout: score(of.filter((q) => q.split === "heldout" && q.batch === undefined), results),
      new: score(of.filter((q) => q.batch === "new"), results),
      new3: score(of.filter((q) => q.batch === "new3"), results),
      new4: score(of.filter((q) => q.batch === "new4"), results),
      new5: score(of.filter((q) => q.batch === "new5"), results),
      new6: score(of.filter((q) => q.batch === "new6"), results),
      new9: score(of.filter((q) => q.batch === "new9"), results),
      new10: score(of.filter((q) => q.batch === "new10"), results),
      new11: score(of.filter((q) => q.batch === "new11"), results),
      new12: score(of.filter((q) => q.batch === "new12"), results),
      new13: score(of.filter((q) => q.batch === "new13"), results),
      new15: score(of.filter((q) => q.batch === "new15"), results),
      new16: score(of.filter((q) => q.batch === "new16"), results),
      new17: score(of.filter((q) => q.batch === "new17"), results),
      new18: score(of.filter((q) => q.batch === "new18"), results),
      new19: score(of.filter((q) => q.batch === "new19"), results),
      new20: score(of.filter((q) => q.batch === "new20"), results),
      new21: score(of.filter((q) => q.batch === "new21"), results),
      new22: score(of.filter((q) => q.batch === "new22"), results),
      tune4: score(of.filter((q) => q.batch === "tune4"), results),
      tune5: score(of.filter((q) => q.batch === "tune5"), results),
      tune6: score(of.filter((q) => q.batch === "tune6"), results),
      tune7: score(of.filter((q) => q.batch === "tune7"), results),
      tune11: score(of.filter((q) => q.batch === "tune11"), results),
      tune21: score(of.filter((q) => q.batch === "tune21"), results),
      tune27: score(of.filter((q) => q.batch === "tune27"), results),
      tune28: score(of.filter((q) => q.batch === "tune28"), results),
      tune28b: score(of.filter((q) => q.batch === "tune28b"), results),
      tune28c: score(of.filter((q) => q.batch === "tune28c"), results),
      tune29: score(of.filter((q) => q.batch === "tune29"), results),
      tune29b: score(of.filter((q) => q.batch === "tune29b"), results),
      tune32: score(of.filter((q) => q.batch === "tune32"), results),
      tune32b: score(of.filter((q) => q.batch === "tune32b"), results),
      tune33: score(of.filter((q) => q.batch === "tune33"), results),
      tune34: score(of.filter((q) => q.batch === "tune34"), results),
      all: score(of, results),
      // all but the lead's held-out sets: what the test's floors gate on (a floor on them would
      // make every helper tune to them); new15 and new16 are readable tuning data since lead28
      withoutLeadSets: score(of.filter((q) => !LEAD_HELD_OUT.has(q.batch ?? "")), results),
    };
  }
  return out;
}

/**
 * Batches whose queries run on a store of the corpus and memories of their own, kept out of the
 * shared corpus: tune34's memories outside software made the older batches' everyday off-topic
 * prompts about something (33 of 638 more answered). The held-out new22 (half of its memories
 * outside software) runs the same way, so the older batches' figures do not move with it.
 */
export const OWN_STORE: Readonly<Record<string, readonly CorpusMemory[]>> = { tune34: TUNE34_MEMORIES, new22: NEW22_MEMORIES };

/** A store holding the corpus (and any memories of a batch's own after it); returns it open with the key of every memory id. */
export async function corpusStore(root: string, own: readonly CorpusMemory[] = []): Promise<{ store: Store; keyOf: Map<string, string> }> {
  const env: OpsEnv = { storeRoot: root, hostName: "bench", user: null };
  await initStore(env, { git: false });
  const store = await Store.open(root);
  const memories = [...CORPUS_MEMORIES, ...own];
  const n = memories.length;
  const records = memories.map((m, i) => ({
    content: m.content,
    type: m.type,
    created_at: NOW - (n - i) * DAY,
    entities: [...new Set(findMentions(m.content).map((x) => x.name))],
  }));
  const saved = await saveMemories(store, env, records, records.map((_, i) => `memory ${i + 1}`));
  const keyOf = new Map(saved.map((s, i) => [s.memory.id, memories[i]!.key]));
  return { store, keyOf };
}

const WORD = /[\p{L}\p{N}]+/gu;

export async function measureRecallQuality(): Promise<QualityResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-recall-quality-"));
  const shared = await corpusStore(path.join(root, "corpus"));
  const stores = new Map<string, { store: Store; keyOf: Map<string, string> }>();
  for (const [batch, own] of Object.entries(OWN_STORE)) stores.set(batch, await corpusStore(path.join(root, batch), own));
  const mine = new Map<CorpusQuery, Ranked>();
  const base = new Map<CorpusQuery, Ranked>();
  const misses: string[] = [];
  let newerFirst = 0;
  let olderMarked = 0;
  let pairs = 0;
  let folded = 0;
  try {
    for (const q of CORPUS_QUERIES) {
      const { store, keyOf } = stores.get(q.batch ?? "") ?? shared;
      const r = await recall(store, { query: q.q, limit: 10, budget: 100_000, now: NOW });
      const keys = r.items.map((i) => [keyOf.get(i.id)!, ...i.collapsed.map((c) => keyOf.get(c)!)]);
      const superseded = new Set(r.items.filter((i) => i.superseded_by !== undefined).map((i) => keyOf.get(i.id)!));
      mine.set(q, { keys, superseded });
      const flat = keys.flat();
      const relevantIn5 = new Set(keys.slice(0, 5).flat());
      if (q.kind === "offtopic" ? keys.length > 0 : !q.relevant.some((k) => relevantIn5.has(k)) || !q.relevant.includes(keys[0]?.[0] ?? "")) {
        misses.push(`${q.split}${q.batch ? `/${q.batch}` : ""} ${q.kind}: ${JSON.stringify(q.q)} -> ${keys.slice(0, 5).map((k) => k.join("+")).join(", ") || "(nothing)"}${q.relevant.length ? `; wanted ${q.relevant.join(", ")}` : ""}`);
      }
      if (q.kind === "superseded") {
        const newer = q.relevant[0]!;
        const older = SUPERSEDES[newer]!;
        const at = (k: string) => keys.findIndex((ks) => ks.includes(k));
        if (at(newer) >= 0 && (at(older) < 0 || at(newer) < at(older))) newerFirst++;
        if (at(older) < 0 || superseded.has(older)) olderMarked++;
      }
      for (const [a, b] of NEAR_DUPLICATE_PAIRS) {
        if (!flat.includes(a) || !flat.includes(b)) continue;
        pairs++;
        if (keys.some((ks) => ks.includes(a) && ks.includes(b))) folded++;
      }

      // the baseline: FTS5 bm25 over the content column, any word
      const words = [...new Set(q.q.toLowerCase().match(WORD) ?? [])].filter((w) => !STOP_WORDS.has(w));
      const hits = words.length ? (await store.search(`content : (${words.map((w) => `"${w}"`).join(" OR ")})`, { statuses: ["active"] }, 10, false)).hits : [];
      base.set(q, { keys: hits.map((h) => [keyOf.get(h.memory.id)!]), superseded: new Set() });
    }
  } finally {
    for (const s of [shared, ...stores.values()]) s.store.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  const sup = CORPUS_QUERIES.filter((q) => q.kind === "superseded").length;
  return {
    memories: CORPUS_MEMORIES.length,
    queries: CORPUS_QUERIES.length,
    memsync: byKind(mine),
    bm25: byKind(base),
    superseded: { newerFirst: newerFirst / sup, olderMarked: olderMarked / sup, queries: sup },
    duplicates: { folded, pairs },
    misses,
  };
}

const f2 = (x: number) => x.toFixed(2);

export function qualityTable(r: QualityResult): string[] {
  const out = [
    `${r.memories} memories, ${r.queries} queries (every third of each kind held out from tuning; "new", "new3" to "new6", "new9", "new10", "new11", "new15", "new16": queries written later, once held out, now tuning data; "new12", "new13", "new17", "new18", "new19", "new20", "new21", "new22": held out (new21 with its own 64 memories in the shared corpus, new22 with 56 on a store of its own); "tune4" to "tune7", "tune11", "tune21", "tune27", "tune28", "tune28b", "tune28c", "tune29", "tune29b", "tune32", "tune32b", "tune33", "tune34": part of tune); memsync recall (limit 10) vs plain BM25 (FTS5 bm25 over content, any word)`,
    "",
    "| queries | split | n | recall@5 memsync | recall@5 BM25 | MRR@10 memsync | MRR@10 BM25 |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const kind of ["paraphrase", "exact", "superseded", "on-topic"]) {
    for (const split of ["tune", "tune4", "tune5", "tune6", "tune7", "tune11", "tune21", "tune27", "tune28", "tune28b", "tune28c", "tune29", "tune29b", "tune32", "tune32b", "tune33", "tune34", "heldout", "new", "new3", "new4", "new5", "new6", "new9", "new10", "new11", "new12", "new13", "new15", "new16", "new17", "new18", "new19", "new20", "new21", "new22", "all"]) {
      if (r.memsync[kind]![split]!.queries === 0) continue;
      const m = r.memsync[kind]![split]!;
      const b = r.bm25[kind]![split]!;
      out.push(`| ${kind} | ${split} | ${m.queries} | ${f2(m.recall5)} | ${f2(b.recall5)} | ${f2(m.mrr10)} | ${f2(b.mrr10)} |`);
    }
  }
  out.push("", "| off-topic prompts that return anything | split | n | memsync | BM25 |", "| --- | --- | ---: | ---: | ---: |");
  for (const split of ["tune", "tune4", "tune5", "tune6", "tune7", "tune11", "tune21", "tune27", "tune28", "tune28b", "tune28c", "tune29", "tune29b", "tune32", "tune32b", "tune33", "tune34", "heldout", "new", "new3", "new4", "new5", "new6", "new9", "new10", "new11", "new12", "new13", "new15", "new16", "new17", "new18", "new19", "new20", "new21", "new22", "all"]) {
    const m = r.memsync.offtopic![split]!;
    const b = r.bm25.offtopic![split]!;
    out.push(`| off-topic | ${split} | ${m.queries} | ${f2(m.answered)} | ${f2(b.answered)} |`);
  }
  out.push(
    "",
    `Superseded: newer shown before the older in ${f2(r.superseded.newerFirst)} of ${r.superseded.queries} queries; the older marked (or left out) in ${f2(r.superseded.olderMarked)}.`,
    `Near-duplicates: ${r.duplicates.folded} of ${r.duplicates.pairs} pairs that both matched a query shown as one item.`,
  );
  return out;
}

if (import.meta.main) {
  const r = await measureRecallQuality();
  if (process.argv.includes("--json")) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(qualityTable(r).join("\n"));
    // only the tune split's misses are printed: the held-out queries stay unseen while tuning
    if (process.argv.includes("--misses")) console.log(["", "misses (tune):", ...r.misses.filter((m) => m.startsWith("tune")).map((m) => `  ${m}`)].join("\n"));
  }
}
