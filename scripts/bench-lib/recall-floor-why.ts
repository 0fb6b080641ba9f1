// Why an off-topic prompt of the readable sets passes the relevance floor (branch floor33): for
// each memory that passes, which rule let it through (fitOf: a concept or two strong words;
// floorOf: a word no passing memory holds, a specific word, the quantity asked for; association)
// and how many candidates hold each strong word it shares. Readable sets only.
//
//   bun scripts/bench-lib/recall-floor-why.ts [--batch tune28] [--kind paraphrase]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { contentWords, memoryTerms, recallText, termsFromStored, wordSet } from "../../src/core/memory-terms.ts";
import { heldByAssociation } from "../../src/core/recall-associated.ts";
import { everyday } from "../../src/core/recall-gate.ts";
import { fitOf, floorOf, recallTerms } from "../../src/core/recall-rank.ts";
import { CORPUS_QUERIES } from "../../tests/fixtures/recall-corpus/queries.ts";
import { corpusStore, LEAD_HELD_OUT } from "./recall-quality.ts";

const arg = (k: string) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1]! : null);
const batch = arg("--batch");
const kind = arg("--kind") ?? "offtopic";
// --q: one prompt of the readable sets, whatever its kind and split
const only = arg("--q");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-floor-why-"));
const { store, keyOf } = await corpusStore(root);
try {
  for (const q of CORPUS_QUERIES) {
    if (LEAD_HELD_OUT.has(q.batch ?? "")) continue;
    if (only ? q.q !== only : q.kind !== kind || q.split !== "tune") continue;
    if (batch && q.batch !== batch) continue;
    const terms = recallTerms(q.q);
    if (terms.match === null) continue;
    const cands = await store.searchWithTerms(terms.match, { statuses: ["active", "promoted"] }, 50);
    const fits = cands.map((h) => fitOf(terms, termsFromStored(h.terms ?? "", h.memory.entities) ?? memoryTerms(recallText(h.memory), h.memory.entities)));
    const floor = floorOf(terms, fits, cands.length < 50);
    const by = heldByAssociation(terms, fits, cands.map((h) => ({ content: contentWords(h.memory.content), words: wordSet(recallText(h.memory)) })));
    const holders = new Map<string, number>();
    for (const f of fits) for (const w of f.strongFound) holders.set(w, (holders.get(w) ?? 0) + 1);
    const lines: string[] = [];
    fits.forEach((f, i) => {
      if (!floor[i] && by[i] === null) return;
      const mine = cands[i]!.memory.id;
      const rel = q.kind === "offtopic" ? "" : q.relevant.includes(keyOf.get(mine)!) ? " RELEVANT" : "";
      const how = f.passes ? (f.strongFound.length >= 2 ? "two-strong" : "concept/one-of-one") : floor[i] ? "floorOf" : `assoc(${by[i]})`;
      lines.push(`    ${keyOf.get(cands[i]!.memory.id)} ${how} strong=[${f.strongFound.map((w) => `${w}:${holders.get(w)}${everyday(w) ? ":everyday" : ""}`).join(" ")}] found=${f.found.size} cov=${f.covered.toFixed(2)}${f.answered ? " answered" : ""}${rel}`);
    });
    const rel = q.kind === "offtopic" ? "" : ` wanted ${q.relevant.join(",")}`;
    console.log(`${q.batch ?? q.split} ${JSON.stringify(q.q)} strong=[${terms.strong.join(" ")}] concepts=[${terms.concepts.map((c) => `${c.from.join("+")}${c.linkOnly ? "(link)" : ""}${c.kind ? `:${c.kind}` : ""}`).join(" ")}] cands=${cands.length}${rel}`);
    if (lines.length) console.log(lines.join("\n"));
  }
} finally {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
}
