import assert from "node:assert/strict";
import { test } from "node:test";
import { recallTerms } from "../../src/core/recall-rank.ts";
import { choiceWeight } from "../../src/ops/recall.ts";

// A question for which product of a kind ("which database do we use") is answered by the decision
// that names one: a decision's relevance counts more than a problem's or a fact's for it, and
// for no other question. (Measured on the recall corpus: docs/benchmarks.md, branch quality6.)

test("a decision weighs more for a question for a choice, and only then", () => {
  const choice = recallTerms("which database do we use");
  assert.equal(choice.asks, "choice");
  assert.ok(choiceWeight(choice, "decision") > 1);
  for (const type of ["problem", "solution", "fact", "pattern", "preference"]) assert.equal(choiceWeight(choice, type), 1, type);
  for (const q of ["database connections ran out", "how long are database dumps kept"]) assert.equal(choiceWeight(recallTerms(q), "decision"), 1, q);
});
