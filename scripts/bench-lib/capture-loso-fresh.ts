// Leave-one-set-out over every tunable set, the freshest writers' sets (NOT_TRAINED_ON) included:
// what training the second opinion on more writers gives on a writer it never saw. For each set,
// the rules alone, rules + the shipped table, and rules + a model trained on every other set
// (its thresholds chosen by the same cross-validation run inside those other sets only), in two
// regimes: "without fresh" (training leaves the NOT_TRAINED_ON sets out, as the shipped table
// does) and "with fresh" (training takes every other tunable set). A NOT_TRAINED_ON set is never
// in its own fold's training in either regime; in the "without fresh" regime its fold is the
// shipped regime (trained on every older set), so that column is the shipped table's honest figure.
// Never reads the held-out sets (NEVER_READ).
//
//   bun scripts/bench-lib/capture-loso-fresh.ts [--fast] [--only-with] [--veto-on-fresh] [--drop-on-fresh]
//
// --veto-on-fresh: the "without fresh" regime's veto floor (drop a rules' capture under it) chosen on
// the fresh sets, which its weights never saw (chooseDropOn; a fresh set's own fold on the other five).
// --drop-on-fresh: the "with fresh" regime's veto floor chosen on the fresh sets among the fold's training sets.
// --only-with: skip the "without fresh" regime (for comparing model changes, whose shipped
// column is then stale). --fast: score by the prepared sentences (storedWith, what
// secondOpinion decides) instead of a full extraction per left-out row (same stored / not stored).

import { extractWithOpinion } from "../../src/core/capture/extract.ts";
import { opinionOf, SHIPPED_OPINION } from "../../src/core/capture/second-opinion.ts";
import { chooseDropOn, chooseRetype, chooseThresholds, modelOf, NOT_TRAINED_ON, type PreparedRow, type Scored, scoreWith, setsIn, storedWith, train, type Weights } from "./capture-model.ts";
import { loadCorpus, scoreRows } from "./capture-quality.ts";

export interface Fold {
  addAt: number;
  dropBelow: number;
  retypeAt: number;
  tp: number;
  fp: number;
  fn: number;
}

/**
 * Each set of `target` scored by a model trained on `pool` minus that set, thresholds chosen by
 * leave-one-set-out inside the fold's training sets. Pair trainings (pool minus two sets) are
 * shared between the two folds that need them.
 */
export function loso(pool: readonly PreparedRow[], target: readonly string[], fullExtraction: boolean, dropOn: ReadonlySet<string> | null = null, calibration: readonly PreparedRow[] = []): Map<string, Fold> {
  const sets = setsIn(pool);
  const pairCache = new Map<string, Weights>();
  const pairModel = (a: string, b: string) => {
    const key = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
    let w = pairCache.get(key);
    if (!w) {
      w = train(pool.filter((r) => r.set !== a && r.set !== b));
      pairCache.set(key, w);
    }
    return w;
  };
  const out = new Map<string, Fold>();
  for (const s of target) {
    const inner = pool.filter((r) => r.set !== s);
    const innerSets = sets.filter((x) => x !== s);
    const innerScored: Scored[] = [];
    for (const o of innerSets) {
      const w = pairModel(s, o);
      for (const r of inner) if (r.set === o) innerScored.push(scoreWith(w, r));
    }
    const t = chooseThresholds(innerScored);
    if (dropOn) t.dropBelow = chooseDropOn(innerScored, t.addAt, dropOn);
    const rt = chooseRetype(innerScored);
    const w = train(inner);
    // a veto calibrated on rows outside the training pool, scored by this fold's own model
    if (calibration.length) t.dropBelow = chooseDropOn(calibration.map((r) => scoreWith(w, r)), t.addAt, new Set(setsIn(calibration)));
    const left = pool.filter((r) => r.set === s);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    if (fullExtraction) {
      const m = modelOf(w, t.addAt, t.dropBelow, rt);
      const q = scoreRows(
        left.map((r) => r.row),
        (text) => extractWithOpinion(text, opinionOf(m)).extraction.captures,
      );
      tp = q.tp;
      fp = q.fp;
      fn = q.fn;
    } else {
      for (const r of left) {
        const now = storedWith(scoreWith(w, r), t.addAt, t.dropBelow);
        if (now && r.row.store) tp++;
        else if (now) fp++;
        else if (r.row.store) fn++;
      }
    }
    out.set(s, { addAt: t.addAt, dropBelow: t.dropBelow, retypeAt: rt, tp, fp, fn });
  }
  return out;
}

if (import.meta.main) {
  const fast = process.argv.includes("--fast");
  const dropOn = process.argv.includes("--drop-on-fresh") ? NOT_TRAINED_ON : null;
  // --veto-on-fresh: the "without fresh" regime's veto floor chosen on the fresh sets (never trained on)
  const vetoOnFresh = process.argv.includes("--veto-on-fresh");
  const onlyWith = process.argv.includes("--only-with");
  const { prepareRows } = await import("./capture-model.ts");
  const all = prepareRows(loadCorpus(), new Set());
  const sets = setsIn(all);
  const older = all.filter((r) => !NOT_TRAINED_ON.has(r.set));
  const t0 = performance.now();
  const withFresh = loso(all, sets, !fast, dropOn);
  // the regime the shipped table is trained in: the older sets' folds among the older sets; a fresh set
  // is scored by the model of every older set (thresholds by leave-one-set-out among them), as shipped
  const freshRows = all.filter((r) => NOT_TRAINED_ON.has(r.set));
  const without = onlyWith ? new Map<string, Fold>() : loso(older, setsIn(older), !fast, null, vetoOnFresh ? freshRows : []);
  if (!onlyWith) {
    const w = train(older);
    const innerScored: Scored[] = [];
    const olderSets = setsIn(older);
    for (const o of olderSets) {
      const wo = train(older.filter((r) => r.set !== o));
      for (const r of older) if (r.set === o) innerScored.push(scoreWith(wo, r));
    }
    const t = chooseThresholds(innerScored);
    for (const s of sets.filter((x) => NOT_TRAINED_ON.has(x))) {
      if (vetoOnFresh) {
        const others = freshRows.filter((r) => r.set !== s);
        t.dropBelow = chooseDropOn(others.map((r) => scoreWith(w, r)), t.addAt, new Set(setsIn(others)));
      }
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (const r of all.filter((x) => x.set === s)) {
        const now = storedWith(scoreWith(w, r), t.addAt, t.dropBelow);
        if (now && r.row.store) tp++;
        else if (now) fp++;
        else if (r.row.store) fn++;
      }
      without.set(s, { addAt: t.addAt, dropBelow: t.dropBelow, retypeAt: 0, tp, fp, fn });
      if (vetoOnFresh) console.error(`${s}: keep at ${t.addAt}, veto < ${t.dropBelow}`);
    }
  }
  const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : "-");
  const pr = (tp: number, fp: number, fn: number) => `${f3(tp / (tp + fp))} / ${f3(tp / (tp + fn))} (${tp}/${fp}/${fn})`;
  console.log("| left out | prompts | rules alone | rules + shipped table | rules + LOSO, without fresh sets | rules + LOSO, with fresh sets | thresholds (with) |");
  console.log("|---|--:|--:|--:|--:|--:|--:|");
  type Sum = { tp: number; fp: number; fn: number };
  const zero = (): Sum => ({ tp: 0, fp: 0, fn: 0 });
  const groups = { fresh: [zero(), zero(), zero(), zero()], older: [zero(), zero(), zero(), zero()] };
  const addTo = (s: Sum, q: Sum) => {
    s.tp += q.tp;
    s.fp += q.fp;
    s.fn += q.fn;
  };
  for (const s of sets) {
    const rows = all.filter((r) => r.set === s).map((r) => r.row);
    const rules = scoreRows(rows, (text) => extractWithOpinion(text, null).extraction.captures);
    const shipped = scoreRows(rows, (text) => extractWithOpinion(text, SHIPPED_OPINION).extraction.captures);
    const a = without.get(s);
    const b = withFresh.get(s)!;
    const g = NOT_TRAINED_ON.has(s) ? groups.fresh : groups.older;
    addTo(g[0]!, rules);
    addTo(g[1]!, shipped);
    if (a) addTo(g[2]!, a);
    if (a && vetoOnFresh && !NOT_TRAINED_ON.has(s)) console.error(`${s}: keep at ${a.addAt}, veto < ${a.dropBelow}`);
    addTo(g[3]!, b);
    console.log(
      `| ${s}${NOT_TRAINED_ON.has(s) ? " (fresh)" : ""} | ${rows.length} | ${pr(rules.tp, rules.fp, rules.fn)} | ${pr(shipped.tp, shipped.fp, shipped.fn)}${NOT_TRAINED_ON.has(s) ? "" : " (in sample)"} | ${a ? pr(a.tp, a.fp, a.fn) : "-"} | ${pr(b.tp, b.fp, b.fn)} | ${b.addAt}${b.dropBelow >= 0 ? `, drop < ${b.dropBelow}` : ""}; ${b.retypeAt} |`,
    );
  }
  for (const [name, g] of Object.entries(groups)) {
    console.log(`| **pooled, ${name}** | | ${g.map((q) => pr(q.tp, q.fp, q.fn)).join(" | ")} | |`);
  }
  const both = [0, 1, 2, 3].map((i) => {
    const s = zero();
    addTo(s, groups.fresh[i]!);
    addTo(s, groups.older[i]!);
    return s;
  });
  console.log(`| **pooled, all ${sets.length}** | | ${both.map((q) => pr(q.tp, q.fp, q.fn)).join(" | ")} | |`);
  console.error(`(${((performance.now() - t0) / 1000).toFixed(0)} s of training and scoring${fast ? ", --fast" : ""})`);
}
