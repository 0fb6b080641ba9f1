import assert from "node:assert/strict";
import { test } from "node:test";
import { measureRecallQuality } from "../../scripts/bench-lib/recall-quality.ts";
import { MEMORY_LINES } from "../fixtures/recall-corpus/memories.ts";
import { NEW22_MEMORIES, NEW22_SUPERSEDES } from "../fixtures/recall-corpus/new22.ts";
import { CORPUS_QUERIES, SUPERSEDES } from "../fixtures/recall-corpus/queries.ts";
import { TUNE34_MEMORIES } from "../fixtures/recall-corpus/tune34.ts";

// Recall's quality on the labelled corpus (tests/fixtures/recall-corpus), in process on a temp
// store: floors a little below what recall reaches (docs/benchmarks.md has the figures), so a
// change that makes recall noisier or blinder fails here. The plain BM25 baseline must stay behind.

// ~3,200 recalls and as many BM25 searches in one process: ~10 s quiet, 94 s at load 21 (branch
// recall29): a timeout that a loaded 2-core machine does not come near
test("recall on the labelled corpus: paraphrases found, exact terms first, off-topic prompts quiet", { timeout: 300_000 }, async () => {
  const r = await measureRecallQuality();
  // every query but the lead's held-out sets (new12, new13, new17, new18, new19, new20, new21, new22): no floor gates on them;
  // new15 and new16 are readable tuning data since session lead28
  const all = (kind: string) => r.memsync[kind]!.withoutLeadSets!;
  assert.ok(r.memories >= 200 && r.queries >= 80, `${r.memories} memories, ${r.queries} queries`);
  assert.ok(all("paraphrase").recall5 >= 0.8, `paraphrase recall@5 ${all("paraphrase").recall5}`);
  assert.ok(all("paraphrase").mrr10 >= 0.75, `paraphrase MRR@10 ${all("paraphrase").mrr10}`);
  assert.ok(all("exact").recall5 >= 0.95 && all("exact").mrr10 >= 0.95, JSON.stringify(all("exact")));
  // off-topic: the sets before tune21 (branch recall15) at most 10%; tune21 and tune27, written to
  // find what still gets through (prompts sharing words with memories by chance), and new15 and
  // new16 (fresh prompts, once held out), tune28 and tune29 (off-topic prompts sharing common words)
  // held where they are (0.33; 0.20, 9 of 44; 0.16, 6 of 38; 0.25, 10 of 40; tune28 0.18, 7 of 40,
  // before branch recall28; tune29 0.14, 6 of 42, when written; tune32 0.14, 4 of 28, when written, 0.18 with new21's memories). Re-based when new21 brought 64
  // memories of new domains (216 -> 280, session lead31): more memories, more chance matches:
  // tune21 0.34 -> 0.39, tune28 0.13 -> 0.30 (one of its prompts, Zephyr on an nRF52, is now about
  // a memory), new15 0.16 -> 0.21, tune27 0.20 -> 0.25. tune33 (branch floor33), prompts sharing
  // a word or two with a memory by chance, 0.17 (5 of 30) when written. tune28 0.30 -> 0.275 (branch
  // floor34: a prompt meeting only a word common in the store gets nothing, JUnit5 and a CSV)
  const off = all("offtopic");
  const apart = [["tune21", 60, 0.4], ["tune27", 40, 0.25], ["new15", 35, 0.22], ["new16", 35, 0.3], ["tune28", 40, 0.28], ["tune29", 40, 0.15], ["tune32", 20, 0.2], ["tune33", 30, 0.17]] as const;
  let answeredApart = 0;
  let queriesApart = 0;
  for (const [split, least, most] of apart) {
    const s = r.memsync.offtopic![split]!;
    assert.ok(s.queries >= least && s.answered <= most, `${split} off-topic answered ${s.answered} of ${s.queries}`);
    answeredApart += s.answered * s.queries;
    queriesApart += s.queries;
  }
  const rest = (off.answered * off.queries - answeredApart) / (off.queries - queriesApart);
  // (0.10 on 216 memories; 0.125 on 280, the off-topic sets' prompts meeting new21's memories by chance)
  assert.ok(rest <= 0.13, `off-topic answered (all but ${apart.map(([s]) => s).join(", ")}) ${rest}`);
  assert.ok(r.superseded.newerFirst >= 0.85, `newer first ${r.superseded.newerFirst}`);
  assert.ok(r.superseded.olderMarked >= 0.5, `older marked ${r.superseded.olderMarked}`);
  assert.ok(r.duplicates.pairs > 0 && r.duplicates.folded === r.duplicates.pairs, JSON.stringify(r.duplicates));
  // the baseline answers most off-topic prompts and misses paraphrases: recall must do better
  assert.ok(r.bm25.offtopic!.withoutLeadSets!.answered > all("offtopic").answered + 0.3);
  // on the tuning queries by a margin (narrower since the tune3 batch, paraphrases that share about
  // one plain word with their memory, which suits BM25); on all (the later held-out sets share
  // more words with the memories) at least level
  assert.ok(r.memsync.paraphrase!.tune!.recall5 > r.bm25.paraphrase!.tune!.recall5 + 0.05);
  assert.ok(all("paraphrase").recall5 >= r.bm25.paraphrase!.withoutLeadSets!.recall5);
});

test("the recall set new15 (once held out, tuning data since lead28) has its shape: 120+ paraphrases, 12+ exact terms, 35+ off-topic, no memory named more than twice", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "new15");
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("paraphrase") >= 120 && of("exact") >= 12 && of("offtopic") >= 35, `${of("paraphrase")} / ${of("exact")} / ${of("offtopic")}`);
  assert.ok(rows.every((q) => q.split === "heldout"));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  const named = new Map<string, number>();
  for (const k of rows.flatMap((q) => q.relevant)) named.set(k, (named.get(k) ?? 0) + 1);
  assert.deepEqual([...named].filter(([k, n]) => n > 2 || !keys.has(k)), []);
});

// the fresh batches (new16 tuning data since lead28, new17 held out; new17 also checked for repeats
// within itself, as its writer asked)
for (const [batch, ownRepeats] of [["new16", false], ["new17", true]] as const) {
  test(`the ${batch === "new17" ? "held-out " : ""}recall set ${batch} has its shape: 150+ paraphrases, 12+ exact terms, 35+ off-topic, no memory named more than twice`, () => {
    heldOutShape(batch, { paraphrase: 150, exact: 12, offtopic: 35 }, { ownRepeats, onlyThreeKinds: false });
  });
}

/**
 * A held-out recall batch aimed at the memories earlier batches asked least about: at least so
 * many queries of each kind (no superseded ones: that kind's figure is gated on all its queries),
 * no memory named more than twice, no query repeated here or from another batch.
 */
function heldOutShape(batch: string, least: { paraphrase: number; exact: number; offtopic: number }, opts = { ownRepeats: true, onlyThreeKinds: true }, own: readonly string[] = []): void {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === batch);
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("paraphrase") >= least.paraphrase && of("exact") >= least.exact && of("offtopic") >= least.offtopic, `${of("paraphrase")} / ${of("exact")} / ${of("offtopic")}`);
  if (opts.onlyThreeKinds) assert.equal(rows.length, of("paraphrase") + of("exact") + of("offtopic"), "no superseded queries: that kind's figure is gated on all its queries");
  assert.ok(rows.every((q) => q.split === "heldout" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  // the memories its store holds: the shared corpus, and a batch's own where it runs on a store of its own
  const keys = new Set([...MEMORY_LINES.map((l) => l.split("|")[0]!), ...own]);
  const named = new Map<string, number>();
  for (const k of rows.flatMap((q) => q.relevant)) named.set(k, (named.get(k) ?? 0) + 1);
  assert.deepEqual([...named].filter(([k, n]) => n > 2 || !keys.has(k)), []);
  // no query of the batch repeats a query of another batch (nor, where its writer asked, its own)
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== batch).map((q) => q.q.toLowerCase()));
  assert.deepEqual(rows.filter((q) => others.has(q.q.toLowerCase())).map((q) => q.q), []);
  if (opts.ownRepeats) assert.equal(new Set(rows.map((q) => q.q.toLowerCase())).size, rows.length);
}

// new18 (branch corpus27): a smaller batch
test("the held-out recall set new18 has its shape: 25+ paraphrases, 10+ exact terms, 10+ off-topic, no memory named more than twice, no repeats", () => {
  heldOutShape("new18", { paraphrase: 25, exact: 10, offtopic: 10 });
});

// new19 (branch corpus28): no new memories
test("the held-out recall set new19 has its shape: 35+ paraphrases, 15+ exact terms, 20+ off-topic, no memory named more than twice, no repeats", () => {
  heldOutShape("new19", { paraphrase: 35, exact: 15, offtopic: 20 });
});

// new20 (branch corpus30): no new memories, so the other batches' figures do not move
test("the held-out recall set new20 has its shape: 40+ paraphrases, 15+ exact terms, 25+ off-topic, no memory named more than twice, no repeats", () => {
  heldOutShape("new20", { paraphrase: 40, exact: 15, offtopic: 25 });
});

// new21 (branch corpus32): brings 64 memories of its own (the end of memories.ts), so every other
// batch's figures move (more distractors); its queries ask mostly about those memories
test("the held-out recall set new21 has its shape: 55+ paraphrases, 15+ exact terms, 30+ off-topic, its 60+ memories named, no memory named more than twice, no repeats", () => {
  heldOutShape("new21", { paraphrase: 55, exact: 15, offtopic: 30 });
  const own = MEMORY_LINES.slice(MEMORY_LINES.indexOf(MEMORY_LINES.find((l) => l.startsWith("game-engine|"))!)).map((l) => l.split("|")[0]!);
  assert.ok(own.length >= 60, `${own.length} memories of its own`);
  const named = new Set(CORPUS_QUERIES.filter((q) => q.batch === "new21").flatMap((q) => q.relevant));
  assert.ok(own.filter((k) => named.has(k)).length >= 60, "new21 asks about its own memories");
});

// new22 (branch corpus35): 56 memories of its own, half outside software, on a store of its own
// (recall-quality.ts OWN_STORE) so that no other batch's figures move
test("the held-out recall set new22 has its shape: 55+ paraphrases, 15+ exact terms, 30+ off-topic, its 50+ memories (half outside software) named and kept out of the shared corpus, no memory named more than twice, no repeats", () => {
  const own = NEW22_MEMORIES.map((m) => m.key);
  heldOutShape("new22", { paraphrase: 55, exact: 15, offtopic: 30 }, { ownRepeats: true, onlyThreeKinds: true }, own);
  assert.ok(own.length >= 50 && new Set(own).size === own.length, `${own.length} memories of its own`);
  const shared = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(own.filter((k) => shared.has(k)), [], "new22's memories are not in the shared corpus");
  const named = new Set(CORPUS_QUERIES.filter((q) => q.batch === "new22").flatMap((q) => q.relevant));
  assert.deepEqual(own.filter((k) => !named.has(k)), [], "every new22 memory is asked about");
  for (const [newer, older] of Object.entries(NEW22_SUPERSEDES)) assert.ok(SUPERSEDES[newer] === older && own.indexOf(older) < own.indexOf(newer), `${newer} replaces ${older}, saved after it`);
});

test("the tuning set tune27 has its shape: 40+ off-topic prompts, 150+ paraphrases of memories that exist, none repeating another batch's query", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune27");
  assert.ok(rows.filter((q) => q.kind === "offtopic").length >= 40 && rows.filter((q) => q.kind === "paraphrase").length >= 150);
  assert.ok(rows.every((q) => q.split === "tune" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !keys.has(k)), []);
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== "tune27").map((q) => q.q.toLowerCase()));
  assert.equal(rows.filter((q) => others.has(q.q.toLowerCase())).length, 0, "a tune27 prompt repeats another batch's");
});

test("the tuning sets tune28, tune28b and tune28c have their shape: 50+ off-topic prompts, 40+ paraphrases and 70+ exact terms of memories that exist, none repeating another batch's query", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune28" || q.batch === "tune28b" || q.batch === "tune28c");
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("offtopic") >= 50 && of("paraphrase") >= 40 && of("exact") >= 70, `${of("paraphrase")} / ${of("exact")} / ${of("offtopic")}`);
  assert.ok(rows.every((q) => q.split === "tune" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !keys.has(k)), []);
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== "tune28" && q.batch !== "tune28b" && q.batch !== "tune28c").map((q) => q.q.toLowerCase()));
  assert.equal(rows.filter((q) => others.has(q.q.toLowerCase())).length, 0, "a tune28 prompt repeats another batch's");
  assert.equal(new Set(rows.map((q) => q.q.toLowerCase())).size, rows.length);
});

test("the tuning sets tune29 and tune29b have their shape: 40+ off-topic prompts and 100+ paraphrases of memories that exist, none repeating another batch's query", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune29" || q.batch === "tune29b");
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("offtopic") >= 40 && of("paraphrase") >= 100, `${of("paraphrase")} / ${of("offtopic")}`);
  assert.ok(rows.every((q) => q.split === "tune" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !keys.has(k)), []);
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== "tune29" && q.batch !== "tune29b").map((q) => q.q.toLowerCase()));
  assert.equal(rows.filter((q) => others.has(q.q.toLowerCase())).length, 0, "a tune29 prompt repeats another batch's");
  assert.equal(new Set(rows.map((q) => q.q.toLowerCase())).size, rows.length);
});

test("the tuning sets tune32 and tune32b have their shape: 35+ off-topic prompts and 100+ paraphrases of memories that exist, none repeating another batch's query", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune32" || q.batch === "tune32b");
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("offtopic") >= 35 && of("paraphrase") >= 100, `${of("paraphrase")} / ${of("offtopic")}`);
  assert.ok(rows.every((q) => q.split === "tune" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !keys.has(k)), []);
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== "tune32" && q.batch !== "tune32b").map((q) => q.q.toLowerCase()));
  assert.equal(rows.filter((q) => others.has(q.q.toLowerCase())).length, 0, "a tune32 prompt repeats another batch's");
  assert.equal(new Set(rows.map((q) => q.q.toLowerCase())).size, rows.length);
});

test("the tuning set tune33 has its shape: 25+ off-topic prompts and 15+ paraphrases of memories that exist, none repeating another batch's query", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune33");
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("offtopic") >= 25 && of("paraphrase") >= 15, `${of("paraphrase")} / ${of("offtopic")}`);
  assert.ok(rows.every((q) => q.split === "tune" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !keys.has(k)), []);
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== "tune33").map((q) => q.q.toLowerCase()));
  assert.equal(rows.filter((q) => others.has(q.q.toLowerCase())).length, 0, "a tune33 prompt repeats another batch's");
  assert.equal(new Set(rows.map((q) => q.q.toLowerCase())).size, rows.length);
});

test("the tuning set tune34 has its shape: 30+ memories of its own outside software, 35+ paraphrases, 10+ exact terms, 12+ off-topic prompts, none repeating another batch's query", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune34");
  const of = (kind: string) => rows.filter((q) => q.kind === kind).length;
  assert.ok(of("paraphrase") >= 35 && of("exact") >= 10 && of("offtopic") >= 12, `${of("paraphrase")} / ${of("exact")} / ${of("offtopic")}`);
  assert.ok(rows.every((q) => q.split === "tune" && (q.kind === "offtopic") === (q.relevant.length === 0)));
  const own = new Set(TUNE34_MEMORIES.map((m) => m.key));
  assert.ok(own.size >= 30 && own.size === TUNE34_MEMORIES.length, `${own.size} memories`);
  // its own memories are not in the shared corpus (recall-quality.ts OWN_STORE)
  assert.ok(MEMORY_LINES.every((l) => !own.has(l.split("|")[0]!)));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !own.has(k)), []);
  const others = new Set(CORPUS_QUERIES.filter((q) => q.batch !== "tune34").map((q) => q.q.toLowerCase()));
  assert.equal(rows.filter((q) => others.has(q.q.toLowerCase())).length, 0, "a tune34 prompt repeats another batch's");
  assert.equal(new Set(rows.map((q) => q.q.toLowerCase())).size, rows.length);
});

test("the tuning set tune21 has its shape: 60+ off-topic prompts, 60+ paraphrases of memories that exist", () => {
  const rows = CORPUS_QUERIES.filter((q) => q.batch === "tune21");
  assert.ok(rows.filter((q) => q.kind === "offtopic").length >= 60 && rows.filter((q) => q.kind === "paraphrase").length >= 60);
  assert.ok(rows.every((q) => q.split === "tune"));
  const keys = new Set(MEMORY_LINES.map((l) => l.split("|")[0]!));
  assert.deepEqual(rows.flatMap((q) => q.relevant).filter((k) => !keys.has(k)), []);
});
