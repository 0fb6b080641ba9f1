// The tunable splits only (recall@5 / MRR@10 of paraphrases, off-topic answered), for tuning without
// seeing a held-out figure; --misses lists the tune split's misses.
//
//   bun scripts/bench-lib/recall-tune.ts [--misses]

import { measureRecallQuality } from "./recall-quality.ts";

const TUNABLE = ["tune", "tune4", "tune5", "tune6", "tune7", "tune11", "tune21", "tune27", "tune28", "tune28b", "tune28c", "tune29", "tune29b", "tune32", "tune32b", "tune33", "tune34", "new15", "new16"] as const;
const r = await measureRecallQuality();
const f2 = (x: number) => x.toFixed(2);
console.log("| split | paraphrases | recall@5 | MRR@10 | off-topic | answered |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const s of TUNABLE) {
  const p = r.memsync.paraphrase![s]!;
  const o = r.memsync.offtopic![s]!;
  console.log(`| ${s} | ${p.queries} | ${f2(p.recall5)} | ${f2(p.mrr10)} | ${o.queries} | ${f2(o.answered)} |`);
}
const e = r.memsync.exact!.tune!;
console.log(`exact (tune): n ${e.queries}, recall@5 ${f2(e.recall5)}; superseded newer first ${f2(r.superseded.newerFirst)}`);
if (process.argv.includes("--misses")) console.log(["", "misses (tune):", ...r.misses.filter((m) => m.startsWith("tune") || /^heldout\/new1[56] /.test(m)).map((m) => `  ${m}`)].join("\n"));
