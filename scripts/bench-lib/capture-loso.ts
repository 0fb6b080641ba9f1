// Leave-one-set-out check of capture's learned second opinion: for each set of the corpus, a model
// trained on every other set (its thresholds chosen by the same cross-validation run inside those
// other sets only), then the left-out set scored with the rules alone and with rules + model,
// through the real extraction. The honest test of whether the model generalises: it never saw
// the set it is scored on (the rules, tuned on every set, did).
//
//   bun scripts/bench-lib/capture-loso.ts [--add-at P] [--retype-at P] [--floor P] [--per-false N] [--misses]
//
// --floor / --per-false: the threshold objective's pooled precision floor and right adds per false one
// (capture-model.ts, chooseThresholds; --per-false 0: the floor alone). The report ends with the pooled
// precision / recall curve of every set scored by a model that never saw it, at each keep and drop threshold.
//
// --add-at P / --retype-at P: every fold uses the threshold P (e.g. the shipped one, chosen by
// cross-validation over all sets, the left-out one included) instead of choosing its own inside
// the other sets. "keep only" is capture12's use of the model; "keep + retype" also lets it change
// the type of a rules' capture (second-opinion.ts, retypeOf). --misses: after the table, each
// left-out set's errors under rules + model (missed, false stores, wrong types), counted by class.

import { extractWithOpinion } from "../../src/core/capture/extract.ts";
import { opinionOf } from "../../src/core/capture/second-opinion.ts";
import { ADD_GRID, ADDED_PER_FALSE, chooseRetype, chooseThresholds, DROP_GRID, modelOf, outOfSet, pooledAt, PRECISION_FLOOR, prepareRows, RETYPE_GRID, setsIn, storedWith, train, typeRight } from "./capture-model.ts";
import { loadCorpus, type Quality, scoreRows } from "./capture-quality.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? null : Number(process.argv[i + 1]);
};
const addAt = arg("--add-at");
const perFalse = arg("--per-false") ?? ADDED_PER_FALSE;
const floor = arg("--floor") ?? PRECISION_FLOOR;
const retypeAt = arg("--retype-at");
const rows = prepareRows(loadCorpus());
const sets = setsIn(rows);
const f3 = (n: number) => n.toFixed(3);
const line = (q: Quality) => `${f3(q.precision)} / ${f3(q.recall)} / ${f3(q.typeAccuracy)} (${q.tp}/${q.fp}/${q.fn})`;
/** Only what differs from the column before it. */
const vs = (q: Quality, before: Quality) => (line(q) === line(before) ? "=" : line(q));
console.log("| left out | prompts | thresholds (add at; retype at) | rules alone P / R / type (tp/fp/fn) | rules + model, keep only | rules + model, keep + retype | types right (rules → retyped) |");
console.log("|---|--:|--:|--:|--:|--:|--:|");
const misses: string[] = [];
const pool = { rtp: 0, rfp: 0, rfn: 0, tp: 0, fp: 0, fn: 0 };
const sum = { rp: 0, rr: 0, rt: 0, kp: 0, kr: 0, kt: 0, mp: 0, mr: 0, mt: 0 };
for (const s of sets) {
  const inner = rows.filter((r) => r.set !== s);
  const innerScored = addAt === null || retypeAt === null ? outOfSet(inner, sets.filter((x) => x !== s)) : [];
  const t = addAt === null ? chooseThresholds(innerScored, floor, perFalse) : { addAt, dropBelow: -1 };
  const rt = retypeAt ?? chooseRetype(innerScored);
  const w = train(inner);
  const keepOnly = modelOf(w, t.addAt, t.dropBelow);
  const model = modelOf(w, t.addAt, t.dropBelow, rt);
  const left = rows.filter((r) => r.set === s).map((r) => r.row);
  const rules = scoreRows(left, (text) => extractWithOpinion(text, null).extraction.captures);
  const keep = scoreRows(left, (text) => extractWithOpinion(text, opinionOf(keepOnly)).extraction.captures);
  const both = scoreRows(left, (text) => extractWithOpinion(text, opinionOf(model)).extraction.captures);
  pool.rtp += rules.tp;
  pool.rfp += rules.fp;
  pool.rfn += rules.fn;
  pool.tp += both.tp;
  pool.fp += both.fp;
  pool.fn += both.fn;
  sum.rp += rules.precision;
  sum.rr += rules.recall;
  sum.rt += rules.typeAccuracy;
  sum.kp += keep.precision;
  sum.kr += keep.recall;
  sum.kt += keep.typeAccuracy;
  sum.mp += both.precision;
  sum.mr += both.recall;
  sum.mt += both.typeAccuracy;
  for (const e of both.errors) misses.push(`${s}\t${e.kind}\t${e.class}\t#${e.id} ${JSON.stringify(e.text.slice(0, 140))} -> ${e.got}`);
  const right = (q: Quality) => Math.round(q.typeAccuracy * q.tp);
  console.log(`| ${s} | ${left.length} | ${t.addAt}${t.dropBelow >= 0 ? `, drop < ${t.dropBelow}` : ""}; ${rt} | ${line(rules)} | ${vs(keep, rules)} | ${vs(both, keep)} | ${right(keep)} → ${right(both)} |`);
}
const n = sets.length;
const avg = (p: number, r: number, t: number) => `${f3(p / n)} / ${f3(r / n)} / ${f3(t / n)}`;
console.log(`| average of ${n} sets | | | ${avg(sum.rp, sum.rr, sum.rt)} | ${avg(sum.kp, sum.kr, sum.kt)} | ${avg(sum.mp, sum.mr, sum.mt)} | |`);
const pr = (tp: number, fp: number, fn: number) => `${f3(tp / (tp + fp))} / ${f3(tp / (tp + fn))} (${tp}/${fp}/${fn})`;
console.log(`| pooled over ${n} sets (P / R) | | | ${pr(pool.rtp, pool.rfp, pool.rfn)} | | ${pr(pool.tp, pool.fp, pool.fn)} | |`);
if (process.argv.includes("--misses")) {
  const byClass = new Map<string, number>();
  for (const m of misses) {
    const [, kind, cls] = m.split("\t");
    const k = `${kind!.split(" ")[0]} ${cls}`;
    byClass.set(k, (byClass.get(k) ?? 0) + 1);
  }
  console.log(`\nleft-out errors by kind and class: ${[...byClass].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  for (const m of misses) console.log(m);
}

// the curve the thresholds are chosen from: every set scored by a model that never saw it, and
// what keeping a skipped sentence at each threshold would add (prompts rightly / wrongly stored)
const pooled = outOfSet(rows, sets);
const added = ADD_GRID.map((a) => {
  let tp = 0;
  let fp = 0;
  for (const x of pooled) if (x.r.captures === 0 && storedWith(x, a, -1)) x.r.row.store ? tp++ : fp++;
  return `${a}: +${tp}/+${fp}`;
});
// the pooled precision / recall curve (rules + model, every set scored by a model that never saw it)
for (const d of DROP_GRID) {
  const curve = ADD_GRID.map((a) => {
    const { tp, fp, fn } = pooledAt(pooled, a, d);
    return `${a}: ${f3(tp / (tp + fp))}/${f3(tp / (tp + fn))} (${tp}/${fp}/${fn})`;
  });
  console.log(`\nout of set, pooled P/R (tp/fp/fn), drop < ${d}: ${curve.join(", ")}`);
}
const chosen = chooseThresholds(pooled, floor, perFalse);
console.log(`chosen on all sets (floor ${floor}, ${perFalse} right per false add): keep at ${chosen.addAt}, drop < ${chosen.dropBelow}`);
console.log(`\nout of set, added stores (right/wrong) at each threshold: ${added.join(", ")}`);
// and what retyping the rules' captures at each threshold would do (types made right / made wrong)
const retyped = RETYPE_GRID.map((a) => {
  let fixed = 0;
  let broken = 0;
  for (const x of pooled) {
    const r = typeRight(x, a);
    if (r.retyped > r.rules) fixed++;
    if (r.retyped < r.rules) broken++;
  }
  return `${a}: +${fixed}/-${broken}`;
});
console.log(`out of set, types retyped (made right/made wrong) at each threshold: ${retyped.join(", ")}`);
