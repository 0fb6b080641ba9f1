import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CorpusRow, captureQuality, loadCorpus } from "../../scripts/bench-lib/capture-quality.ts";
import { findMentions } from "../../src/core/capture/entities.ts";
import { extractCaptures } from "../../src/core/capture/extract.ts";

// Capture quality on the labelled corpus (tests/fixtures/capture-corpus.jsonl), in-process: floors
// a little below what extraction reaches, so a regression fails. The figures themselves are in
// docs/benchmarks.md (scripts/bench-lib/capture-quality.ts prints them).

/** A held-out capture set's shape: size, split, store share, id block, complete labels, no repeats. */
function heldOutCaptureSet(rows: readonly CorpusRow[], named: string, least: number, [low, high]: [number, number]): void {
  const set = named.split(" ")[0]!;
  const own = rows.filter((r) => r.set === set);
  assert.ok(own.length >= least && own.every((r) => r.split === "holdout"), `a held-out set ${named} of ${least}+ prompts`);
  assert.ok(own.filter((r) => !r.store).length >= own.length / 2, `${set}: at least half of it not to store`);
  assert.ok(own.filter((r) => r.store).length >= own.length * 0.35, `${set}: about 40% of it to store`);
  assert.ok(own.every((r) => r.id >= low && r.id <= high), `${set}: its own id range`);
  assert.deepEqual(own.filter((r) => r.store && !(r.type && r.what && r.entities && r.text.toLowerCase().includes(r.what))).map((r) => r.id), []);
  const outside = new Set(rows.filter((r) => r.set !== set).map((r) => r.text.toLowerCase()));
  assert.deepEqual(own.filter((r) => outside.has(r.text.toLowerCase())).map((r) => r.id), []);
  assert.equal(new Set(own.map((r) => r.text.toLowerCase())).size, own.length, `${set}: no text twice`);
}

describe("capture quality on the labelled corpus", () => {
  const rows = loadCorpus();
  test("the corpus: >= 300 prompts, both kinds, a third held out", () => {
    assert.ok(rows.length >= 300, `${rows.length} prompts`);
    assert.ok(rows.filter((r) => r.store).length >= 120 && rows.filter((r) => !r.store).length >= 120);
    const held = rows.filter((r) => r.split === "holdout" && r.set === undefined).length;
    const first = rows.filter((r) => r.set === undefined).length;
    assert.ok(held >= first / 4 && held <= first / 2, `${held} held out`);
    assert.ok(rows.filter((r) => r.set === "new").length >= 100, "a later held-out set of 100+ prompts");
    assert.ok(rows.filter((r) => r.set === "new3").length >= 80, "a third held-out set of 80+ prompts");
    assert.ok(rows.filter((r) => r.set === "new4").length >= 80, "a fourth held-out set of 80+ prompts");
    assert.ok(rows.filter((r) => r.set === "new5").length >= 80, "a fifth held-out set of 80+ prompts");
    assert.ok(rows.filter((r) => r.set === "new6").length >= 90, "a sixth held-out set of 90+ prompts");
    assert.ok(rows.filter((r) => r.set === "new8").length >= 100, "a seventh held-out set (branch quality8) of 100+ prompts");
    assert.ok(rows.filter((r) => r.set === "new9").length >= 120, "an eighth held-out set (branch capture9) of 120+ prompts");
    const new10 = rows.filter((r) => r.set === "new10");
    assert.ok(new10.length >= 140 && new10.every((r) => r.split === "holdout"), "a held-out set new10 (branch corpus11) of 140+ prompts");
    assert.ok(new10.filter((r) => !r.store).length >= new10.length / 2, "new10: at least half of it not to store");
    const new12 = rows.filter((r) => r.set === "new12");
    assert.ok(new12.length >= 160 && new12.every((r) => r.split === "holdout"), "a held-out set new12 (branch corpus12) of 160+ prompts");
    assert.ok(new12.filter((r) => !r.store).length >= new12.length / 2, "new12: at least half of it not to store");
    const new13 = rows.filter((r) => r.set === "new13");
    assert.ok(new13.length >= 170 && new13.every((r) => r.split === "holdout"), "a held-out set new13 (branch corpus13) of 170+ prompts");
    assert.ok(new13.filter((r) => !r.store).length >= new13.length / 2, "new13: at least half of it not to store");
    const new14 = rows.filter((r) => r.set === "new14");
    assert.ok(new14.length >= 180 && new14.every((r) => r.split === "holdout"), "a held-out set new14 (branch corpus14) of 180+ prompts");
    assert.ok(new14.filter((r) => !r.store).length >= new14.length / 2, "new14: at least half of it not to store");
    // new12-new16 were retired to readable tuning data (lead27, lead28); their labels and split are unchanged
    const new15 = rows.filter((r) => r.set === "new15");
    assert.ok(new15.length >= 200 && new15.every((r) => r.split === "holdout"), "a held-out set new15 (branch corpus15) of 200+ prompts");
    assert.ok(new15.filter((r) => !r.store).length >= new15.length / 2, "new15: at least half of it not to store");
    const new16 = rows.filter((r) => r.set === "new16");
    assert.ok(new16.length >= 230 && new16.every((r) => r.split === "holdout"), "a held-out set new16 (branch corpus16) of 230+ prompts");
    assert.ok(new16.filter((r) => !r.store).length >= new16.length / 2, "new16: at least half of it not to store");
    assert.ok(new16.filter((r) => r.store).length >= new16.length * 0.4, "new16: about 45% of it to store");
    const new17 = rows.filter((r) => r.set === "new17");
    assert.ok(new17.length >= 230 && new17.every((r) => r.split === "holdout"), "a held-out set new17 (branch corpus17) of 230+ prompts");
    assert.ok(new17.filter((r) => !r.store).length >= new17.length / 2, "new17: at least half of it not to store");
    assert.ok(new17.filter((r) => r.store).length >= new17.length * 0.4, "new17: about 45% of it to store");
    assert.ok(new17.every((r) => r.id >= 17801 && r.id <= 18499), "new17: its own id range, clear of tune17 (17501-17723) and tune18 (18501+)");
    const new18 = rows.filter((r) => r.set === "new18");
    assert.ok(new18.length >= 200 && new18.every((r) => r.split === "holdout"), "a held-out set new18 (branch capture26) of 200+ prompts");
    assert.ok(new18.filter((r) => !r.store).length >= new18.length / 2, "new18: at least half of it not to store");
    assert.ok(new18.filter((r) => r.store).length >= new18.length * 0.35, "new18: about 40% of it to store");
    assert.ok(new18.every((r) => r.id >= 24001 && r.id <= 24499), "new18: its own id range");
    const new19 = rows.filter((r) => r.set === "new19");
    assert.ok(new19.length >= 220 && new19.every((r) => r.split === "holdout"), "a held-out set new19 (branch corpus27) of 220+ prompts");
    assert.ok(new19.filter((r) => !r.store).length >= new19.length / 2, "new19: at least half of it not to store");
    assert.ok(new19.filter((r) => r.store).length >= new19.length * 0.35, "new19: about 40% of it to store");
    assert.ok(new19.every((r) => r.id >= 29001 && r.id <= 29499), "new19: its own id range, clear of the tune27 batch written beside it");
    const new20 = rows.filter((r) => r.set === "new20");
    assert.ok(new20.length >= 220 && new20.every((r) => r.split === "holdout"), "a held-out set new20 (branch corpus28) of 220+ prompts");
    assert.ok(new20.filter((r) => !r.store).length >= new20.length / 2, "new20: at least half of it not to store");
    assert.ok(new20.filter((r) => r.store).length >= new20.length * 0.35, "new20: about 40% of it to store");
    assert.ok(new20.every((r) => r.id >= 30001 && r.id <= 30499), "new20: its own id range");
    // each row to store is fully labelled, its what a phrase of its own text; no text repeats another set's
    assert.deepEqual(new20.filter((r) => r.store && !(r.type && r.what && r.entities && r.text.toLowerCase().includes(r.what))).map((r) => r.id), []);
    const elsewhere = new Set(rows.filter((r) => r.set !== "new20").map((r) => r.text.toLowerCase()));
    assert.deepEqual(new20.filter((r) => elsewhere.has(r.text.toLowerCase())).map((r) => r.id), []);
    // the held-out sets since new21: each in its own id block, 35-50% to store, each row to store
    // fully labelled (its what a phrase of its own text), no text repeating another set's or its own
    heldOutCaptureSet(rows, "new21 (branch corpus30)", 220, [32001, 32499]);
    // new22 (branch corpus32): ids clear of new21's block and of tuning batches written beside it
    heldOutCaptureSet(rows, "new22 (branch corpus32)", 200, [34001, 34499]);
    // new23 (branch corpus35): ids clear of the tuning batches written beside it
    heldOutCaptureSet(rows, "new23 (branch corpus35)", 200, [37001, 37499]);
    const tune26 = rows.filter((r) => r.set === "tune26" || r.set === "tune26b");
    assert.ok(tune26.length >= 100 && tune26.every((r) => r.split === "tune" && r.id >= 26001 && r.id <= 26999), "capture26's tuning batches: 100+ prompts, ids 26001+");
    assert.ok(rows.filter((r) => r.set === "tune10").length >= 120, "capture10's tuning batch: 40+ prompts for each class it attacked");
    const tune11 = rows.filter((r) => r.set === "tune11");
    assert.ok(tune11.filter((r) => !r.store).length >= 60 && tune11.filter((r) => r.store).length >= 25, "capture11's tuning batch: 60+ pasted outputs, 25+ near misses");
    const tune19 = rows.filter((r) => r.set === "tune19");
    assert.ok(tune19.length >= 250 && tune19.filter((r) => !r.store).length >= tune19.length * 0.6, "tune19's training batch: 250+ prompts, 60%+ not to store");
    const tune21 = rows.filter((r) => r.set === "tune21");
    assert.ok(tune21.length >= 200 && tune21.filter((r) => r.store).length >= tune21.length * 0.35, "tune21's training batch: 200+ prompts, ~40% to store");
    const tune22 = rows.filter((r) => r.set === "tune22");
    assert.ok(tune22.length >= 200 && tune22.filter((r) => r.store).length >= tune22.length * 0.35, "tune22's training batch: 200+ prompts, ~40% to store");
    const tune23 = rows.filter((r) => r.set === "tune23");
    assert.ok(tune23.length >= 200 && tune23.filter((r) => r.store).length >= tune23.length * 0.35, "tune23's training batch: 200+ prompts, ~40% to store");
    assert.ok(tune23.every((r) => r.split === "tune" && r.id >= 23001 && r.id <= 23499), "tune23: its own id range, clear of tune23b (23501+)");
    const tune23b = rows.filter((r) => r.set === "tune23b");
    assert.ok(tune23b.length >= 60 && tune23b.every((r) => r.split === "tune" && r.id >= 23501 && r.id <= 23999), "tune23b: capture23's second batch, 60+ prompts, ids 23501+");
    const tune27 = rows.filter((r) => r.set?.startsWith("tune27"));
    assert.ok(tune27.length >= 140 && tune27.every((r) => r.split === "tune" && r.id >= 27701 && r.id <= 27899), "capture27's batches: 140 prompts, ids 27701-27899");
    const tune28 = rows.filter((r) => r.set === "tune28");
    assert.ok(tune28.length >= 60 && tune28.every((r) => r.split === "tune" && r.id >= 28201 && r.id <= 28299), "capture28's batch: 60+ prompts, ids 28201-28299");
    assert.ok(tune28.filter((r) => r.store).length >= tune28.length * 0.4, "tune28: about half of it look-alikes to keep");
    const tune28b = rows.filter((r) => r.set === "tune28b");
    assert.ok(tune28b.length >= 60 && tune28b.every((r) => r.split === "tune" && r.id >= 28301 && r.id <= 28399), "capture28's second batch: 60+ prompts, ids 28301-28399");
    const tune28c = rows.filter((r) => r.set === "tune28c");
    assert.ok(tune28c.length >= 60 && tune28c.every((r) => r.split === "tune" && r.id >= 28401 && r.id <= 28499), "capture28's third batch: 60+ prompts, ids 28401-28499");
    const tune28d = rows.filter((r) => r.set === "tune28d");
    assert.ok(tune28d.length >= 40 && tune28d.every((r) => r.split === "tune" && r.id >= 28501 && r.id <= 28599), "capture28's fourth batch: 40 prompts, ids 28501-28599");
    const tune29 = rows.filter((r) => r.set === "tune29");
    assert.ok(tune29.length >= 60 && tune29.every((r) => r.split === "tune" && r.id >= 29401 && r.id <= 29499), "capture29's batch: 60+ prompts, ids 29401-29499 (clear of new19's 29001-29227)");
    assert.ok(tune29.filter((r) => r.store).length >= tune29.length * 0.45, "tune29: about half of it standing problems and fixes to keep");
    const tune29b = rows.filter((r) => r.set === "tune29b");
    assert.ok(tune29b.length >= 40 && tune29b.every((r) => r.split === "tune" && r.id >= 29501 && r.id <= 29599), "capture29's second batch: 40 prompts, ids 29501-29599");
    const tune29c = rows.filter((r) => r.set === "tune29c");
    assert.ok(tune29c.length >= 50 && tune29c.every((r) => r.split === "tune" && r.id >= 29601 && r.id <= 29699), "capture29b's batch: 50 prompts, ids 29601-29699");
    assert.ok(tune29c.filter((r) => r.store).length === tune29c.length / 2, "tune29c: half of it look-alikes to keep");
    const tune29d = rows.filter((r) => r.set === "tune29d");
    assert.ok(tune29d.length >= 24 && tune29d.every((r) => r.split === "tune" && r.id >= 29701 && r.id <= 29799) && tune29d.filter((r) => r.store).length === tune29d.length / 2, "capture29b's second batch: 24 prompts, ids 29701-29799, half to keep");
    const tune30 = rows.filter((r) => r.set === "tune30");
    assert.ok(tune30.length >= 59 && tune30.every((r) => r.split === "tune" && r.id >= 30801 && r.id <= 30899), "capture30's batch: 59 prompts, ids 30801-30899 (clear of new20's 30001-30243)");
    assert.ok(tune30.filter((r) => r.store).length >= tune30.length * 0.45, "tune30: about half of it look-alikes to keep");
    const tune30b = rows.filter((r) => r.set === "tune30b");
    assert.ok(tune30b.length >= 40 && tune30b.every((r) => r.split === "tune" && r.id >= 30901 && r.id <= 30949) && tune30b.filter((r) => r.store).length === tune30b.length / 2, "capture30's second batch: 40 prompts, ids 30901-30949, half to keep");
    const tune30c = rows.filter((r) => r.set === "tune30c");
    assert.ok(tune30c.length >= 40 && tune30c.every((r) => r.split === "tune" && r.id >= 30951 && r.id <= 30999) && tune30c.filter((r) => r.store).length === tune30c.length / 2, "capture30's third batch: 40 prompts, ids 30951-30999, half to keep");
    const tune31 = rows.filter((r) => r.set === "tune31");
    assert.ok(tune31.length >= 50 && tune31.every((r) => r.split === "tune" && r.id >= 31101 && r.id <= 31199) && tune31.filter((r) => r.store).length === tune31.length / 2, "capture31's batch: 50 prompts, ids 31101-31199, half to keep");
    const tune31b = rows.filter((r) => r.set === "tune31b");
    assert.ok(tune31b.length >= 20 && tune31b.every((r) => r.split === "tune" && r.id >= 31201 && r.id <= 31249) && tune31b.filter((r) => r.store).length === tune31b.length / 2, "capture31's second batch: 20 prompts, ids 31201-31249, half to keep");
    const tune32 = rows.filter((r) => r.set === "tune32");
    assert.ok(tune32.length === 60 && tune32.every((r) => r.split === "tune" && r.id >= 35201 && r.id <= 35299) && tune32.filter((r) => r.store).length === 33, "capture32's batch: 60 prompts, ids 35201-35299, 33 to keep");
    const tune32b = rows.filter((r) => r.set === "tune32b");
    assert.ok(tune32b.length === 27 && tune32b.every((r) => r.split === "tune" && r.id >= 35301 && r.id <= 35349) && tune32b.filter((r) => r.store).length === 17, "capture32's second batch: 27 prompts, ids 35301-35349, 17 to keep");
    const tune34 = rows.filter((r) => r.set === "tune34");
    assert.ok(tune34.length === 71 && tune34.every((r) => r.split === "tune" && r.id >= 36001 && r.id <= 36099) && tune34.filter((r) => r.store).length === 27, "capture34's batch: 71 prompts, ids 36001-36099, 27 to keep");
    const tune34b = rows.filter((r) => r.set === "tune34b");
    assert.ok(tune34b.length === 26 && tune34b.every((r) => r.split === "tune" && r.id >= 36101 && r.id <= 36149) && tune34b.filter((r) => r.store).length === 12, "capture34's second batch: 26 prompts, ids 36101-36149, 12 to keep");
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, "ids are unique");
    for (const r of rows) if (r.store) assert.ok(r.type && r.what !== undefined && Array.isArray(r.entities), `#${r.id} is labelled`);
  });
  // ~8,500 prompts extracted in one process: 43 s at load 10 in a fresh-clone CI (lead31), a third
  // of the default timeout; the corpus grows each session, so the same margin as recall-quality's
  test("precision, recall, type, what and entities stay above their floors on both splits", { timeout: 300_000 }, () => {
    const q = captureQuality(rows);
    // tune's entity floor is lower since the second tuning set (set "tune2"), whose entity labels
    // were written quickly (generic words like json or e2e left out); "new" is the later held-out set
    const floors = {
      // (tune's entity recall floor is 0.87 since tune3, whose labels name tools the vocabulary lacks)
      tune: { precision: 0.97, recall: 0.95, typeAccuracy: 0.95, whatAccuracy: 0.95, entityPrecision: 0.8, entityRecall: 0.87 },
      holdout: { precision: 0.94, recall: 0.88, typeAccuracy: 0.9, whatAccuracy: 0.88, entityPrecision: 0.88, entityRecall: 0.9 },
      new: { precision: 0.94, recall: 0.86, typeAccuracy: 0.9, whatAccuracy: 0.88, entityPrecision: 0.63, entityRecall: 0.78 },
      // a third held-out set (branch quality3): recall is far from the target there
      new3: { precision: 0.9, recall: 0.72, typeAccuracy: 0.85, whatAccuracy: 0.88, entityPrecision: 0.63, entityRecall: 0.78 },
      // a fourth (branch quality4)
      new4: { precision: 0.94, recall: 0.87, typeAccuracy: 0.9, whatAccuracy: 0.9, entityPrecision: 0.62, entityRecall: 0.83 },
      // a fifth (branch quality5)
      new5: { precision: 0.94, recall: 0.87, typeAccuracy: 0.9, whatAccuracy: 0.85, entityPrecision: 0.74, entityRecall: 0.85 },
      // a sixth (branch quality6)
      new6: { precision: 0.94, recall: 0.84, typeAccuracy: 0.92, whatAccuracy: 0.84, entityPrecision: 0.68, entityRecall: 0.8 },
      // branch quality8 read the misses of the sets above by class (not new8's), so their floors
      // were not raised with it; new8 was written first and measured twice (before, after)
      // (raised by branch capture9, which read new8's error counts by class, never its prompts)
      // (raised again by branch capture10, which read new8's and new9's misses by class: tune data now)
      new8: { precision: 0.95, recall: 0.95, typeAccuracy: 0.9, whatAccuracy: 0.88, entityPrecision: 0.65, entityRecall: 0.9 },
      // an eighth (branch capture9): written first, measured before and once after
      new9: { precision: 0.94, recall: 0.94, typeAccuracy: 0.92, whatAccuracy: 0.93, entityPrecision: 0.7, entityRecall: 0.84 },
      // capture9's tuning batch: precision held at >= 0.95 on every tune set
      tune9: { precision: 0.95, recall: 0.9, typeAccuracy: 0.95, whatAccuracy: 0.93, entityPrecision: 0.7, entityRecall: 0.82 },
      // capture10's tuning batch (conventions with a habitual verb, trouble with a rate or a fix, entities)
      tune10: { precision: 0.97, recall: 0.9, typeAccuracy: 0.95, whatAccuracy: 0.92, entityPrecision: 0.72, entityRecall: 0.87 },
      // capture11's tuning batch (pasted tool output, none to store; near misses stated beside a pasted line)
      tune11: { precision: 0.97, recall: 0.9, typeAccuracy: 0.92, whatAccuracy: 0.92, entityPrecision: 0.72, entityRecall: 0.9 },
      // capture14's batch, written as training data for the learned model: the rules were never
      // tuned on it (rules alone: P 0.914, R 0.681), so its floors are the rules + model's today
      // (entity precision 0.547 with the keep threshold held at 0.8, ADD_AT_LEAST: fewer of the model's adds, whose entities counted)
      tune14: { precision: 0.95, recall: 0.84, typeAccuracy: 0.96, whatAccuracy: 0.96, entityPrecision: 0.54, entityRecall: 0.89 },
      // capture15's batch, training data too (standing facts beside look-alike status lines, history,
      // one-off trouble): the rules store its one-off trouble (rules alone P 0.705), floors are today's
      // (entity precision 0.38 -> 0.37 by capture17: the model keeps more of its statements, names and all)
      tune15: { precision: 0.94, recall: 0.91, typeAccuracy: 0.96, whatAccuracy: 0.91, entityPrecision: 0.37, entityRecall: 0.92 },
      // capture16's batch (standing facts, policies and standing problems beside status lines, one-off
      // trouble, small talk of the same subject), floors are today's
      tune16: { precision: 0.97, recall: 0.94, typeAccuracy: 0.96, whatAccuracy: 0.96, entityPrecision: 0.9, entityRecall: 0.95 },
      // capture17's batch (mobile, games, embedded, data/ML, infra, frontend; terse, chatty and
      // non-native voices; 135 of 223 not to store), written before capture ran on it (integ19: P 0.931);
      // capture17 then wrote guards from its false stores, so its precision floor is in sample
      tune17: { precision: 0.99, recall: 0.95, typeAccuracy: 0.96, whatAccuracy: 0.9, entityPrecision: 0.43, entityRecall: 0.78 },
      // capture18's batch (a product lead, ticket and review pastes, an SRE mid-incident, notebook talk,
      // a junior, emoji chat; 149 of 244 not to store), written before capture ran on it (integ20: P
      // 0.873 / R 0.937); capture18 then wrote guards from its false stores, so its floors are in sample
      tune18: { precision: 0.99, recall: 0.94, typeAccuracy: 0.9, whatAccuracy: 0.9, entityPrecision: 0.5, entityRecall: 0.85 },
      // tune19's batch (formal prose, security, DBA, QA, tech writing, maintainers, dictation, lists,
      // code blocks, meeting summaries, agent instructions; 174 of 275 not to store): floors a little
      // under the fresh figure, taken before the table was trained on it (P/R 0.871/0.871, 88/13/13);
      // capture19 then wrote guards from its false stores, so its precision floor is in sample (1.000 / 0.941);
      // entity P 0.435 -> 0.429 with the writing preference it keeps (extra names in it)
      tune19: { precision: 0.99, recall: 0.92, typeAccuracy: 0.92, whatAccuracy: 0.89, entityPrecision: 0.42, entityRecall: 0.8 },
      // capture21's batches (tune21: Rails/Elixir/Go shops, a game studio, a data platform, compliance,
      // a student, PR descriptions, commit messages, Slack threads, handovers, dictated and non-native
      // text; tune21b: a second, smaller one written after the guards). Fresh figures, before any
      // change: tune21 P/R 0.920/0.911 (92/8/9), tune21b 0.852/0.885 (23/4/3) with the guards of tune21.
      // The model's table is not trained on either (capture-model.ts NOT_TRAINED_ON): 1.000/0.911, 1.000/0.846.
      // Guards were then written from both: these floors are in sample for the rules.
      // Entities not labelled.
      tune21: { precision: 0.99, recall: 0.9, typeAccuracy: 0.9, whatAccuracy: 0.88, entityPrecision: 0, entityRecall: 0 },
      tune21b: { precision: 0.99, recall: 0.84, typeAccuracy: 0.81, whatAccuracy: 0.84, entityPrecision: 0, entityRecall: 0 },
      // capture22's batch (an Android team, Unity/Unreal, Kubernetes tickets, fintech risk, a bioinformatics
      // lab, a WordPress agency, devrel, an intern, RFC comments, support escalations, all-hands notes,
      // incident retros, quoted email, mixed languages, ALL CAPS). Fresh figure at a68d714, rules + model:
      // P/R 0.859/0.908 (79/13/8); rules alone 0.878/0.828 (72/10/15). The table is not trained on it.
      // Guards were then written from it: these floors are in sample. Entities not labelled.
      tune22: { precision: 0.99, recall: 0.93, typeAccuracy: 0.92, whatAccuracy: 0.88, entityPrecision: 0, entityRecall: 0 },
      // tune22b (written after tune22's guards, before capture ran on it): fresh, rules + model, 0.875/0.966
      // (28/4/1) at fbbfffa and at a68d714 alike; its 4 false stores then guarded: in sample.
      tune22b: { precision: 0.99, recall: 0.93, typeAccuracy: 0.9, whatAccuracy: 0.86, entityPrecision: 0, entityRecall: 0 },
      // capture26's batches (requests for work in many wrappers beside standing rules of the same
      // verbs). tune26 fresh, before its guard: P/R 0.657/0.920 (23/12/2); then 0.958/0.920 (23/1/2),
      // in sample. tune26b, written after the guard and before it ran there: 0.542/0.929 (13/11/1)
      // without it, 0.867/0.929 (13/2/1) with it (its two left: a colleague's change narrated).
      tune26: { precision: 0.95, recall: 0.9, typeAccuracy: 0.85, whatAccuracy: 0.85, entityPrecision: 0.6, entityRecall: 0.8 },
      tune26b: { precision: 0.85, recall: 0.9, typeAccuracy: 0.95, whatAccuracy: 0.95, entityPrecision: 0, entityRecall: 0 },
      // capture27's batches (standing problems beside passing trouble; pasted tool messages beside
      // problems that name one). tune27 fresh on main's code: P/R 0.840/0.700 (21/4/9), 0.913/0.700
      // (21/2/9) after capture27's guards (not tuned on its errors; its recall is the rules' own on
      // unseen domains). tune27b, written after the first guards: 0.778/0.933 (14/4/1) on main's
      // code, 0.824/0.933 (14/3/1) fresh with them, then guarded from its false stores: in sample.
      // Entities not labelled.
      tune27: { precision: 0.9, recall: 0.68, typeAccuracy: 0.6, whatAccuracy: 0.95, entityPrecision: 0, entityRecall: 0 },
      tune27b: { precision: 0.97, recall: 0.9, typeAccuracy: 0.85, whatAccuracy: 0.95, entityPrecision: 0, entityRecall: 0 },
      // tune27c (decision look-alikes beside decisions, written after the guards): fresh 0.824/0.933
      // (14/3/1), main's code the same; then its three false stores guarded (an invite, a choice put
      // off, "no call yet"): in sample
      tune27c: { precision: 0.97, recall: 0.9, typeAccuracy: 0.95, whatAccuracy: 0.95, entityPrecision: 0, entityRecall: 0 },
      // capture28's batches (voices the corpus lacked; entities not labelled). tune28 fresh on main's
      // code: P/R 0.889/0.941 (32/4/2); tune28b, written after tune28's mechanisms: 0.657/0.958
      // (23/12/1). Mechanisms were then written from both: tune28 1.000/0.941, tune28b 0.793/0.958
      // (23/6/1), in sample.
      tune28: { precision: 0.97, recall: 0.9, typeAccuracy: 0.9, whatAccuracy: 0.85, entityPrecision: 0, entityRecall: 0 },
      tune28b: { precision: 0.75, recall: 0.9, typeAccuracy: 0.9, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      // tune28c (every class, written after those mechanisms): fresh 0.885/0.767 (23/3/7) on main's code
      // and on the branch's alike; then its pasted HTTP response and a vendor's notes quoted guarded:
      // 0.958/0.767 (23/1/7), in sample. tune28d (written after that): main 0.941/0.800 (16/1/4),
      // fresh on the branch 1.000/0.800 (16/0/4).
      tune28c: { precision: 0.93, recall: 0.75, typeAccuracy: 0.9, whatAccuracy: 0.85, entityPrecision: 0, entityRecall: 0 },
      tune28d: { precision: 0.95, recall: 0.78, typeAccuracy: 0.9, whatAccuracy: 0.85, entityPrecision: 0, entityRecall: 0 },
      // capture29's batches (trouble talk beside standing problems and fixes; entities not labelled).
      // tune29 fresh on main's code: 0.825/0.971 (33/7/1); after the report test, in sample:
      // 0.971/0.971 (33/1/1). tune29b (written after the test): main 0.833/0.750 (15/3/5), fresh on
      // the branch 0.882/0.750 (15/2/5).
      tune29: { precision: 0.95, recall: 0.95, typeAccuracy: 0.8, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      tune29b: { precision: 0.85, recall: 0.72, typeAccuracy: 0.8, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      // capture29b's batch (status, others' trouble and choices, a spell's recurrence, beside our own
      // choices and standing problems; written and labelled before capture ran on it): main be2fcef
      // 0.677/0.840 (21/10/4); after the spell and outsider shapes, in sample, 0.955/0.840 (21/1/4).
      // tune29b after them (its two false stores were the brief's examples): 1.000/0.750 (15/0/5).
      tune29c: { precision: 0.9, recall: 0.8, typeAccuracy: 0.85, whatAccuracy: 0.95, entityPrecision: 0, entityRecall: 0 },
      // tune29d (written after those shapes, before they ran on it): main 0.714/0.833 (10/4/2), fresh
      // on the branch 0.909/0.833 (10/1/2).
      tune29d: { precision: 0.85, recall: 0.8, typeAccuracy: 0.75, whatAccuracy: 0.85, entityPrecision: 0, entityRecall: 0 },
      // capture30's batches (acts told as events beside the state or rule they left; entities not
      // labelled). tune30 fresh on main 163e2bb: 0.700/0.724 (21/9/8); after event-told.ts, in
      // sample, 1.000/0.793 (23/0/6). tune30b (written after event-told.ts): main 0.810/0.850
      // (17/4/3), fresh on the branch 0.944/0.850 (17/1/3). tune30c (written after the later
      // mechanisms): main 0.680/0.850 (17/8/3), fresh 0.810/0.850 (17/4/3), then in sample
      // 0.947/0.900 (18/1/2).
      tune30: { precision: 0.95, recall: 0.75, typeAccuracy: 0.7, whatAccuracy: 0.85, entityPrecision: 0, entityRecall: 0 },
      tune30b: { precision: 0.9, recall: 0.8, typeAccuracy: 0.8, whatAccuracy: 0.8, entityPrecision: 0, entityRecall: 0 },
      tune30c: { precision: 0.9, recall: 0.85, typeAccuracy: 0.9, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      // capture31's batch (standing instructions to the assistant for a kind of task beside the same
      // words for one task; labelled before capture ran on it): fresh on main a1212ea 0.818/0.720
      // (18/4/7), what 0.556; after scoped-instruction.ts, in sample, 0.960/0.960 (24/1/1), what 1.000.
      tune31: { precision: 0.9, recall: 0.9, typeAccuracy: 0.9, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      // tune31b (written after scoped-instruction.ts, before it ran on it): main 0.700/0.700 (7/3/3),
      // fresh on the branch 0.909/1.000 (10/1/0).
      tune31b: { precision: 0.85, recall: 0.9, typeAccuracy: 0.9, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      // capture32's batch (standing problems in the plain present with a condition of a kind, beside
      // facts meant that way, one-offs, spells, specs, requests; someone else's view beside the same
      // voices deciding; labelled before capture ran on it): fresh on main 491b84b 0.857/0.727 (24/4/9),
      // type 0.583; after standing-failure.ts and anothers-view.ts, in sample, 0.938/0.909 (30/2/3), type 0.900.
      tune32: { precision: 0.9, recall: 0.85, typeAccuracy: 0.85, whatAccuracy: 0.9, entityPrecision: 0, entityRecall: 0 },
      // capture34's batch (not-to-store shapes beside their twins to keep; labelled before capture ran
      // on it): fresh on main 2d7d940 0.786/0.815 (22/6/5), type 0.818; after moment-report.ts and the
      // question / proposal / quote widenings, in sample, 1.000/0.815 (22/0/5), type 0.818.
      tune34: { precision: 0.95, recall: 0.8, typeAccuracy: 0.8, whatAccuracy: 0.95, entityPrecision: 0, entityRecall: 0 },
    } as const;
    for (const split of ["tune", "holdout", "new", "new3", "new4", "new5", "new6", "new8", "new9", "tune9", "tune10", "tune11", "tune14", "tune15", "tune16", "tune17", "tune18", "tune19", "tune21", "tune21b", "tune22", "tune22b", "tune26", "tune26b", "tune27", "tune27b", "tune27c", "tune28", "tune28b", "tune28c", "tune28d", "tune29", "tune29b", "tune29c", "tune29d", "tune30", "tune30b", "tune30c", "tune31", "tune31b", "tune32", "tune34"] as const) {
      for (const [k, floor] of Object.entries(floors[split])) {
        const got = q[split][k as keyof (typeof floors)["tune"]];
        assert.ok(got >= floor, `${split} ${k} ${got.toFixed(3)} < ${floor}`);
      }
    }
  });

  test("entities: aliases in their context, a name before a version, no low-value words", () => {
    const names = (t: string) => findMentions(t).map((m) => m.name);
    assert.deepEqual(names("We use ES for search with a custom analyzer"), ["elasticsearch"]);
    assert.deepEqual(names("The package targets ES2022 and ES modules"), ["es2022", "esm"]);
    assert.deepEqual(names("ES is the locale code we ship first"), []);
    assert.deepEqual(names("We expose the catalogue over gql"), ["graphql"]);
    assert.deepEqual(names("We are bumping React to 18.3"), ["react"]);
    assert.deepEqual(names("Components react to changes in the store"), []);
    // code identifiers, file formats and generic acronyms of the trade are no entities
    assert.deepEqual(names("closing the pool in afterAll and passing maxWorkers fixed it"), []);
    assert.deepEqual(names("The PDF export on the VM is signed with an HMAC over SHA256"), []);
    assert.deepEqual(names("The CDN answers over HTTP; variables in camelCase, types in PascalCase"), []);
    assert.deepEqual(names("the iOS app talks to LaunchDarkly"), ["ios", "launchdarkly"]);
    for (const t of ["Releases move to Tuesdays", "Every schema change needs a DBA review", "Postgres LISTEN/NOTIFY", "Redis INCR with a TTL per user", "The job FAILED on the M1 runner, amd64 is fine", "Revisit in Q3", "POST with SKIP LOCKED"]) {
      assert.deepEqual(names(t).filter((n) => !["postgresql", "redis"].includes(n)), [], t);
    }
  });
});

describe("capture: the shapes tune6 added", () => {
  const stored = (t: string) => extractCaptures(t).captures;
  test("a plan the assistant proposed, accepted in so many words, is a decision; an idea weighed is not", () => {
    const got = stored("Yes, do it the way you suggested: we keep one tenant_id column, no table per tenant.");
    assert.equal(got[0]?.type, "decision");
    assert.match(got[0]?.decision?.what ?? "", /tenant_id/);
    assert.deepEqual(stored("You suggested Redis Streams, sounds interesting, let me think about it."), []);
  });
  test("a compiler's diagnostic pasted is no problem to keep", () => {
    assert.deepEqual(stored("error TS2322: Type 'string' is not assignable to type 'number'.\nFound 1 error in src/total.ts:9"), []);
  });
  test("a fix whose clause points back keeps the sentence that names the setting", () => {
    const got = stored("Our workers were killed twice an hour because the heartbeat_interval was too short; raising it to 30s stopped the restarts.");
    assert.equal(got[0]?.type, "solution");
    assert.match(got[0]?.decision?.what ?? "", /heartbeat_interval/);
  });
});

describe("capture: the shapes tune8 added", () => {
  const stored = (t: string) => extractCaptures(t).captures;
  const first = (t: string) => stored(t)[0];
  test("trouble and its fix in one sentence is a fix, whatever clause holds it", () => {
    for (const t of [
      "Uploads stalled because the multipart chunk size was 1MB; raising it to 8MB fixed the throughput.",
      "The sitemap job kept crashing on big shops, we paginated the product query and it runs clean now.",
      "Got the docker image from 1.2GB down to 180MB by switching to a distroless base.",
      "Emails went out without a sender name until we set MAIL_FROM_NAME in the env.",
    ]) assert.equal(first(t)?.type, "solution", t);
    const two = stored("Root cause of the double refunds: the retry ran before the first call timed out. We now pass an idempotency key.");
    assert.equal(two.length, 1);
    assert.equal(two[0]?.type, "solution");
    assert.match(two[0]?.decision?.what ?? "", /idempotency key/);
  });
  test("a symptom said as a measure is a problem; a limit set on purpose is not", () => {
    assert.equal(first("Our p95 on the checkout API climbed to 3.1s since Tuesday's deploy.")?.type, "problem");
    assert.equal(first("The Sidekiq workers keep respawning whenever Redis fails over.")?.type, "problem");
    assert.deepEqual(stored("Our p99 target for search is 300ms."), []);
    assert.deepEqual(stored("The build takes 4 minutes, which is fine."), []);
  });
  test("negatives, wh-clefts and a debate's outcome are decisions", () => {
    assert.equal(first("We won't be using Mongo for the event store.")?.type, "decision");
    assert.equal(first("We're dropping support for Chrome 90 in the dashboard.")?.type, "decision");
    assert.equal(first("What we ended up with is one Redis per region behind Envoy.")?.type, "decision");
    assert.match(first("long debate about ORMs, but in the end we're going with Drizzle for the new service.")?.decision?.what ?? "", /drizzle/i);
  });
  test("a wish to understand, a phrasal 'pick it up', a decision put off and a key handed over are not kept", () => {
    for (const t of [
      "I want to understand why we're using Celery before I touch the beat schedule.",
      "let's pick it up after the standup",
      "We won't be deciding on the queue until the load test is done.",
      "use this key for the load test: AKIAQQQQQQQQEXAMPLE2",
      "I pushed the tag, the release pipeline is running now.",
    ]) assert.deepEqual(stored(t), [], t);
  });
  test("the language of answers and a '..., that's how I like it' are preferences", () => {
    assert.equal(first("Answer in Italian please, but keep identifiers in English.")?.type, "preference");
    assert.equal(first("Keep functions short and pure, that's how I like them.")?.type, "preference");
  });
});

describe("capture: the shapes tune9 added", () => {
  const stored = (t: string) => extractCaptures(t).captures;
  const first = (t: string) => stored(t)[0];
  const notKept = (texts: readonly string[]) => {
    for (const t of texts) assert.deepEqual(stored(t), [], t);
  };
  test("a request for what was decided before is not a decision, however it is worded", () => {
    notKept([
      "I need the decision we made about the session store, can you pull it up",
      "Go back to what we agreed on the branching model and paste it here.",
      "Recall our policy on database access.",
      "As we agreed earlier, which Python version do we support",
    ]);
    // the same words without asking for them back still state the decision
    assert.equal(first("As we agreed earlier, we support Python 3.11 and up.")?.type, "decision");
  });
  test("someone else's choice told as news, a verdict on a moment, small talk and a doubt right after are not kept", () => {
    notKept([
      "The Remix team moved to Vite for their builds, apparently.",
      "The data team decided to use Snowflake for their warehouse, not relevant for us.",
      "In the other squad, the rule is that every service gets its own database.",
      "we agreed that was the best demo so far",
      "From now on I'll blame the intern for everything, haha",
      "Remember us when you ship it :)",
      "ok great, that's agreed then",
      "Our architect says never use GraphQL subscriptions. Not sure he's right.",
    ]);
    // a decision that names a known thing survives a smiley
    assert.equal(first("We're going with Postgres for the ledger :)")?.type, "decision");
  });
  test("a tool's lines beside a tool's output are not the user's words", () => {
    assert.deepEqual(stored("FAILURE: Build failed with an exception.\n* What went wrong:\nExecution failed for task ':web:bundle'."), []);
    assert.deepEqual(stored("vite v5.1.0 building for production...\n✓ 312 modules transformed.\nbuild failed: could not resolve \"./env\""), []);
    // "build failed:" written by a person, with no tool output beside it, is still read
    assert.equal(first("build failed: the Docker cache keeps getting evicted on CI, every build takes 20 minutes")?.type, "problem");
  });
  test("house practices, a choice ruled out, a plan taken up in other words", () => {
    assert.equal(first("Log lines in this service are JSON with a request_id field.")?.type, "decision");
    assert.equal(first("Dates in the API are always RFC 3339 strings.")?.type, "decision");
    // trouble that is always there is a problem, not a practice
    assert.notEqual(first("The staging deploy is always slow on Mondays.")?.type, "decision");
    assert.match(first("We ruled out DynamoDB because of the query patterns.")?.decision?.what ?? "", /dynamodb/i);
    assert.match(first("That approach works for me, go ahead with the read replicas.")?.decision?.what ?? "", /read replicas/);
    assert.equal(first("The dashboard gets sluggish once a tenant has 10k rows.")?.type, "problem");
  });
  test("a choice still to be made is not kept; who alone may act, what the team sticks to, what it stays away from are", () => {
    notKept(["Next sprint we'll evaluate moving to Temporal.", "We need to decide between Sentry and Bugsnag by Monday.", "The proposal for moving to Bazel is still open for comments."]);
    assert.equal(first("Only the SRE team may change the alerting rules in Grafana.")?.type, "decision");
    assert.equal(first("For the API docs we stick to OpenAPI 3.1 generated from the code.")?.type, "decision");
    assert.match(first("We're staying away from Redux in the new app.")?.decision?.what ?? "", /redux/i);
    assert.match(first("Your outline is good, let's implement it with one worker per region.")?.decision?.what ?? "", /one worker per region/);
    assert.match(first("Yes to the retry budget you sketched, per client.")?.decision?.what ?? "", /retry budget/);
  });
  test("another's choice for their own things, an old team's habit, a joke and a compiler's lines are not kept; a naming style and an option taken are", () => {
    notKept([
      "Basecamp moved their deploys to Kamal, interesting.",
      "The data team standardised on dbt for their models; our setup is different.",
      "My previous company used to switch from Travis to GitHub Actions.",
      "from now on I only write YAML in my dreams haha",
      "Failed to compile.\n./src/app.tsx\nType error: Cannot find name 'props'.",
    ]);
    // a rule for everyone keeps its "their"
    assert.equal(first("Nobody should deploy from their own laptop.")?.type, "decision");
    assert.equal(first("Database columns are snake_case, JSON fields camelCase.")?.type, "decision");
    assert.match(first("ok, go with option 2 from your list, the outbox table.")?.decision?.what ?? "", /outbox table/);
  });
  test("a rule whose negation is the rule is read", () => {
    assert.equal(first("Nobody should query the ledger tables from the reporting jobs, ever; use the export.")?.type, "decision");
    assert.equal(first("Secrets never go in the Helm values, not even encrypted ones.")?.type, "decision");
    // "we didn't decide" stays undone
    assert.deepEqual(stored("We didn't decide to use Kafka for the events."), []);
  });
  test("a version the whole project moves to is a decision; a one-off bump is a task", () => {
    assert.equal(first("Upgrade Django to 5.1 in all services, we need the async ORM.")?.type, "decision");
    assert.equal(first("bump Vue to 3.5 across the frontend packages")?.type, "decision");
    notKept(["bump lodash to 4.17.21", "Please upgrade the Stripe SDK to v14 in this file."]);
  });
  test("'if' as a construct is no hypothetical; a thing of ours getting a new part is a decision", () => {
    assert.equal(first("I prefer guard clauses over deeply nested if statements.")?.type, "preference");
    assert.equal(first("The storefront is getting a GraphQL gateway in front of the REST services.")?.type, "decision");
    assert.deepEqual(stored("If we use Redis for this, the cache is getting a TTL."), []);
    assert.notEqual(first("The API is getting a lot of 502s from nginx.")?.type, "decision");
    // news about people and chat tools, and a verdict on a repo's state, are no practice
    notKept(["The team is getting a new PM next month.", "Env vars in this project are a mess honestly.", "Logs in this repo are always noisy on startup, ignore them."]);
  });
  test("a recap asked for or a statement tagged as a question is not kept; things that won't get a feature, passive nevers, 'full stop' rules and a tuning fix are read", () => {
    notKept(["Refresh my memory on the release checklist.", "need a recap of what we decided about retries", "The cache TTL we agreed on was five minutes, right"]);
    assert.match(first("The CLI won't support Windows, it's out of scope.")?.decision?.what ?? "", /windows/i);
    assert.equal(first("Customer data stays in the EU region, full stop.")?.type, "decision");
    assert.equal(first("Applied migrations are never edited after they merge.")?.type, "decision");
    assert.equal(first("Video uploads over 50 MB time out on the mobile app.")?.type, "problem");
    assert.equal(first("Redis kept evicting sessions, so we tuned maxmemory up to 4gb and the evictions stopped.")?.type, "solution");
  });
  test("when alone a thing may happen is a rule; a symptom on every occasion and a duration with its cause are problems", () => {
    assert.equal(first("Schema migrations run only between 6 and 8 UTC on weekdays.")?.type, "decision");
    assert.equal(first("The SSE streams disconnect every time the ingress reloads.")?.type, "problem");
    assert.equal(first("Our Docker builds take 14 minutes because of the uncached npm install.")?.type, "problem");
    assert.deepEqual(stored("We deploy only on weekdays?"), []);
  });
});

describe("capture: the shapes tune10 added", () => {
  const stored = (t: string) => extractCaptures(t).captures;
  const first = (t: string) => stored(t)[0];
  const names = (t: string) => stored(t).flatMap((c) => c.entities);
  test("how a kind of thing is done here, said with a habitual verb, is a decision; trouble said so and a question are not", () => {
    assert.equal(first("Proto files follow buf's style guide, one package per folder.")?.type, "decision");
    assert.equal(first("Snapshot tests sit next to their component as *.snap files.")?.type, "decision");
    assert.equal(first("Release branches are cut from main every Thursday.")?.type, "decision");
    assert.equal(first("In this repo migration files look like 0001_add_users.sql.")?.type, "decision");
    // a rule said of a kind of thing is the team's, not a taste
    assert.equal(first("Image tags look like <app>-<sha>, never latest.")?.type, "decision");
    assert.notEqual(first("Safari users get logged out after every deploy.")?.type, "decision");
    assert.deepEqual(stored("Do the topic names follow some pattern?"), []);
    assert.deepEqual(stored("Commit messages follow no pattern at all, it's chaos."), []);
    assert.deepEqual(stored("Stack traces look like garbage in the console today."), []);
    assert.deepEqual(stored("Seems like deploys take 30 minutes now, let me check why."), []);
    // how things are done elsewhere is no practice of ours
    assert.deepEqual(stored("In most companies I've worked at, hotfix branches are cut from main."), []);
  });
  test("trouble at a rate or a cost is a problem; 'broke' and 'fixed X by doing Y' read the fix", () => {
    assert.equal(first("The API gateway adds about 200ms to every call on mobile.")?.type, "problem");
    assert.equal(first("RabbitMQ consumers reconnect several times an hour in production.")?.type, "problem");
    assert.notEqual(first("Releases happen twice a week.")?.type, "problem");
    assert.equal(first("The Android build broke after the AGP update; pinning Gradle to 8.5 got it green again.")?.type, "solution");
    assert.equal(first("Fixed the double submits by disabling the button until the request returns.")?.type, "solution");
    assert.deepEqual(stored("I fixed the coffee machine by turning it off and on again."), []);
    assert.equal(first("The iOS build failed after the Xcode 16 update until we bumped CocoaPods to 1.15.")?.type, "solution");
  });
  test("a plan put off and a tool's message pasted after a colon are not kept; the same trouble told in words is", () => {
    assert.deepEqual(stored("We should probably revisit the retry policy at some point."), []);
    assert.deepEqual(stored("tests fail with: TypeError: Cannot read properties of undefined (reading 'id')"), []);
    assert.deepEqual(stored("here you go: [2026-11-20 08:14:55] ERROR api: upstream timed out"), []);
    assert.equal(first("The nightly export fails with a timeout whenever the Postgres replica lags.")?.type, "problem");
  });
  test("a state said as the cause of trouble is the problem; a ban said of a kind of thing keeps the practice whole", () => {
    assert.equal(first("The Swift build takes 25 minutes because the module cache is disabled on CI.")?.type, "problem");
    assert.match(first("Migrations go in db/migrate, never in the app folder.")?.decision?.what ?? "", /db\/migrate/);
  });
  test("negation scope: a thing set against the chosen one (', not Stripe,') negates nothing after it", () => {
    assert.match(first("Emails go out through Postmark, not SES, from this sprint on.")?.decision?.what ?? "", /postmark/i);
    assert.deepEqual(stored("We didn't decide on Postmark, not yet."), []);
  });
  test("a cause said as 'came from', a heads-up for future sessions, 'my default is', 'we're deprecating', an instruction to prefer", () => {
    assert.equal(first("The timeouts came from a missing index on orders.user_id; we now create it in the migration.")?.type, "solution");
    assert.equal(first("Heads up for future sessions: the QA database is reset every Monday at 6 UTC.")?.type, "decision");
    assert.equal(first("My default for scripts is Python with uv, not bash.")?.type, "preference");
    assert.equal(first("We're deprecating the SOAP endpoints; they go away in June.")?.type, "decision");
    assert.equal(first("For HTTP clients, prefer ky over axios in the frontend.")?.type, "preference");
    assert.deepEqual(stored("Do you prefer tabs over spaces?"), []);
  });
  test("a heading 'Where X lives:' or 'Where we landed:' and a link 'Which means ...' hold statements; a question does not", () => {
    assert.equal(first("Where the secrets live: Vault, one path per service, read at boot.")?.type, "decision");
    assert.equal(first("Where we ended up: SQS for jobs, SNS for fan-out.")?.type, "decision");
    assert.equal(first("Which means every endpoint gets a request_id header.")?.type, "decision");
    assert.deepEqual(stored("Where do the secrets live?"), []);
    assert.equal(first("Which is why we encode timestamps as ISO strings everywhere.")?.type, "decision");
    assert.equal(first("API errors are wrapped in a problem+json body.")?.type, "decision");
    // any participle needs a specific token or name: a status update is not kept
    assert.deepEqual(stored("Dashboards are updated with the new numbers, take a look."), []);
    assert.equal(first("Tokens are stored in plain text in the old repo, which is bad.")?.type, "problem");
    // a participle of loss is trouble, not a practice
    assert.equal(first("Payments are duplicated in the ledger after a webhook retry.")?.type, "problem");
    assert.deepEqual(stored("Where we landed: not sure yet, maybe SQS."), []);
  });
  test("entities: no ticket keys, identifier parts or flags; a name after a verb of how a tool serves", () => {
    assert.deepEqual(names("We decided to host the docs on Netlify, see DOCS-42."), ["netlify"]);
    assert.ok(!names("Env vars are prefixed with SVC_ and validated at boot, from now on.").includes("svc"));
    assert.ok(names("From now on uploads are scanned by Sophos before they reach the bucket.").includes("sophos"));
    // a person after a verb of talk is no tool
    assert.ok(!names("Talked to Marco: from now on invoices are rendered with Typst.").includes("marco"));
    assert.ok(names("Talked to Marco: from now on invoices are rendered with Typst.").includes("typst"));
  });
});
