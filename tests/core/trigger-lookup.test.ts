import assert from "node:assert/strict";
import { test } from "node:test";
import { queryConcepts, triggerKey, triggerLabels, triggerWords } from "../../src/core/recall-concepts.ts";

// queryConcepts finds a phrase's triggers by a search of one text of every trigger word's key
// (core/recall-concepts.ts triggersOf), not a Map built on each cold start: it must find what that
// Map found, for every key — the triggers of each word whose key it is, in the tables' order.

test("every trigger key finds the triggers a table of all keys gives, in order; other phrases none", () => {
  const table = new Map<string, string[]>();
  for (const [word, label] of triggerWords()) {
    const k = triggerKey(word);
    if (k) table.set(k, [...(table.get(k) ?? []), label]);
  }
  assert.ok(table.size > 500, `the tables hold ${table.size} keys`);
  // keys key() changed ("real-time"), and keys of more than one trigger, are among them
  assert.ok(triggerWords().some(([w]) => triggerKey(w) !== w), "a word whose key differs from it");
  assert.ok([...table.values()].some((l) => l.length > 1), "a key of two triggers");
  for (const [k, labels] of table) assert.deepEqual(triggerLabels(k), labels, k);
  for (const phrase of ["", "billing worker", "real-time", "nightly batch run", "db x", "x db"]) {
    assert.deepEqual(triggerLabels(phrase), table.get(phrase) ?? [], phrase);
  }
});

test("a query's concepts from its trigger words: kinds and synonyms (a product's alias too)", () => {
  const labels = queryConcepts("which db do we use for realtime updates in prod?").map((c) => c.label);
  assert.deepEqual(labels, ["websocket-push", "db", "realtime", "prod"]);
});
