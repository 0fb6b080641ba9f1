import assert from "node:assert/strict";
import { test } from "node:test";
import { measureProjectScope } from "../../scripts/bench-lib/recall-projects.ts";

// Recall's project scope on the labelled multi-project set (tests/fixtures/recall-projects), in
// process on a temp store: floors a margin below what recall reaches (branch projects26 measured
// inside 0.97 recall@5 / 0.95 MRR@10, outside 0.93 / 0.90, no should-be-quiet prompt answered),
// so a change that leaks another project's memories or loses the project's own fails here.

test("recall scoped by project: inside and outside a repository, the right memories and quiet otherwise", async () => {
  const r = await measureProjectScope();
  const inside = r.scores.inside!;
  const outside = r.scores.outside!;
  assert.ok(r.memories >= 30 && r.queries >= 60, `${r.memories} memories, ${r.queries} prompts`);
  assert.ok(inside.recall5 >= 0.9 && inside.mrr10 >= 0.85, `inside ${JSON.stringify(inside)}`);
  assert.ok(outside.recall5 >= 0.85 && outside.mrr10 >= 0.8, `outside ${JSON.stringify(outside)}`);
  // another project's memory inside a project is never in scope: none may leak
  assert.equal(r.scores["inside/elsewhere"]!.answered, 0, r.misses.join("\n"));
  // under one in ten: with six quiet prompts outside, none (a two-word concept counted as two
  // strong words let "explain how stripe connect payouts work" reach a project's memories)
  assert.ok(inside.answered <= 0.1 && outside.answered <= 0.1, `quiet answered: inside ${inside.answered}, outside ${outside.answered}\n${r.misses.join("\n")}`);
});
