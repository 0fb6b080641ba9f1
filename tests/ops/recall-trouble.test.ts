import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall, reportsTrouble, troubleWeight } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// A prompt that reports trouble ("the dashboard bundle is huge") is answered first by what went
// wrong and what fixed it, not by a decision that says the same words (branch recall13).

const T0 = 1_790_000_000;

function memory(i: number, type: string, content: string): Memory {
  return { ...createMemory({ content, type }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

test("reportsTrouble reads a prompt as capture reads a problem", () => {
  for (const q of ["the dashboard bundle is too big", "tokens rejected as not yet valid", "checkout test keeps failing", "search is slow again"]) assert.equal(reportsTrouble(q), true, q);
  for (const q of ["which bundler do we use for the dashboard", "how are tokens signed", "where do checkout tests run"]) assert.equal(reportsTrouble(q), false, q);
  assert.equal(troubleWeight(true, "problem") > 1 && troubleWeight(true, "solution") > 1, true);
  assert.equal(troubleWeight(true, "decision"), 1);
  assert.equal(troubleWeight(false, "problem"), 1);
});

test("through recall: a problem ranks before a newer decision with the same words when the prompt reports trouble", async () => {
  const decision = "The dashboard bundle is built by Vite with one chunk per route.";
  const problem = "The dashboard bundle grew to 2.4 MB because all of lodash was imported for one function.";
  const store = await storeWith([memory(0, "problem", problem), memory(1, "decision", decision)], T0);
  try {
    const asked = await recall(store, { query: "dashboard bundle is too big", now: T0 + 100 });
    assert.deepEqual(asked.items.map((i) => i.text), [problem, decision]);
    // asked as a question about the choice, the decision keeps its place
    const choice = await recall(store, { query: "how is the dashboard bundle built", now: T0 + 100 });
    assert.equal(choice.items[0]!.text, decision);
  } finally {
    store.close();
  }
});
