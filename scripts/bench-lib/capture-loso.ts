// Leave-one-set-out check of capture's learned second opinion: for each set of the corpus, a model
// trained on every other set (its thresholds chosen by the same cross-validation run inside those
// other sets only), then the left-out set scored with the rules alone and with rules + model,
// through the real extraction. The honest test of whether the model generalises: it never saw
// the set it is scored on (the rules, tuned on every set, did).
//
//   bun scripts/bench-lib/capture-loso.ts [--add-at P]
//
// --add-at P: every fold uses the threshold P (e.g. the shipped one, chosen by cross-validation
// over all sets, the left-out one included) instead of choosing its own inside the other sets.

import { extractWithOpinion } from "../../src/core/capture/extract.ts";
import { opinionOf } from "../../src/core/capture/second-opinion.ts";
import { ADD_GRID, chooseThresholds, modelOf, outOfSet, prepareRows, setsIn, storedWith, train } from "./capture-model.ts";
import { loadCorpus, type Quality, scoreRows } from "./capture-quality.ts";

const fixed = process.argv.indexOf("--add-at");
const addAt = fixed === -1 ? null : Number(process.argv[fixed + 1]);
const rows = prepareRows(loadCorpus());
const sets = setsIn(rows);
const f3 = (n: number) => n.toFixed(3);
const line = (q: Quality) => `${f3(q.precision)} / ${f3(q.recall)} / ${f3(q.typeAccuracy)} (${q.tp}/${q.fp}/${q.fn})`;
console.log("| left out | prompts | thresholds (add at) | rules alone P / R / type (tp/fp/fn) | rules + model P / R / type (tp/fp/fn) |");
console.log("|---|--:|--:|--:|--:|");
const sum = { rp: 0, rr: 0, rt: 0, mp: 0, mr: 0, mt: 0 };
for (const s of sets) {
  const inner = rows.filter((r) => r.set !== s);
  const t = addAt === null ? chooseThresholds(outOfSet(inner, sets.filter((x) => x !== s))) : { addAt, dropBelow: -1 };
  const model = modelOf(train(inner), t.addAt, t.dropBelow);
  const left = rows.filter((r) => r.set === s).map((r) => r.row);
  const rules = scoreRows(left, (text) => extractWithOpinion(text, null).extraction.captures);
  const both = scoreRows(left, (text) => extractWithOpinion(text, opinionOf(model)).extraction.captures);
  sum.rp += rules.precision;
  sum.rr += rules.recall;
  sum.rt += rules.typeAccuracy;
  sum.mp += both.precision;
  sum.mr += both.recall;
  sum.mt += both.typeAccuracy;
  console.log(`| ${s} | ${left.length} | ${t.addAt}${t.dropBelow >= 0 ? `, drop < ${t.dropBelow}` : ""} | ${line(rules)} | ${line(both)} |`);
}
const n = sets.length;
console.log(`| average of ${n} sets | | | ${f3(sum.rp / n)} / ${f3(sum.rr / n)} / ${f3(sum.rt / n)} | ${f3(sum.mp / n)} / ${f3(sum.mr / n)} / ${f3(sum.mt / n)} |`);

// the curve the thresholds are chosen from: every set scored by a model that never saw it, and
// what keeping a skipped sentence at each threshold would add (prompts rightly / wrongly stored)
const pooled = outOfSet(rows, sets);
const added = ADD_GRID.map((a) => {
  let tp = 0;
  let fp = 0;
  for (const x of pooled) if (x.r.captures === 0 && storedWith(x, a, -1)) x.r.row.store ? tp++ : fp++;
  return `${a}: +${tp}/+${fp}`;
});
console.log(`\nout of set, added stores (right/wrong) at each threshold: ${added.join(", ")}`);
