import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { irregularForms, memoryTerms } from "../../src/core/recall-concepts.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";
import { memsyncJson, newStore, saveMany } from "../helpers/env.ts";

// Irregular verbs in everyday English (branch recalldomain34): a note outside software says "ate",
// "wore", "fed", and the asker says "eating", "wearing", "feeding". Porter stems them apart, so
// without the forms a paraphrase shares one word fewer with its memory and falls under the floor.

describe("irregular verbs of everyday English", () => {
  test("a verb's -ing form finds its past forms, and common verbs outside developer talk are known", () => {
    const found = (q: string, text: string) => [...fitOf(recallTerms(q), memoryTerms(text, [])).found].sort();
    assert.deepEqual(found("slugs eating the lettuce", "Slugs ate the lettuce seedlings"), ["eating", "lettuce", "slugs"]);
    assert.deepEqual(found("who fed the cat", "The cat is fed twice a day"), ["cat", "fed"]);
    assert.deepEqual(found("wearing a brace after the sprain", "She wore a brace for two weeks after the sprain"), ["brace", "sprain", "wearing"]);
    assert.ok(fitOf(recallTerms("what stopped something eating the young lettuces"), memoryTerms("Slugs ate the lettuce seedlings until copper tape went around the raised beds.", [])).passes);
  });

  test("a plural noun in -ings is not taken for a verb, nor a noun that shares a form", () => {
    // "settings" is no form of "set" ("sets"), "findings" none of "find" ("found")
    assert.deepEqual(irregularForms("settings"), []);
    assert.deepEqual(irregularForms("findings"), []);
    // "bit" (a bit, 64-bit) and "won't" are left out of the table
    assert.deepEqual(irregularForms("bite"), []);
    assert.deepEqual(irregularForms("win"), []);
    assert.deepEqual(irregularForms("eating").slice().sort(), ["ate", "eaten", "eats"]);
  });

  test("through the binary: a one-word paraphrase with an irregular verb finds its memory, an unrelated prompt still gets nothing", () => {
    const store = newStore();
    const [slugs] = saveMany(store, [
      "Slugs ate the lettuce seedlings until copper tape went around the raised beds.",
      "The boiler pressure gauge should read between 1 and 1.5 bar.",
      "Deploys go out on Tuesdays after the staging soak.",
    ]);
    const ids = (q: string) => (memsyncJson(["--store", store, "recall", q]).items as { id: string }[]).map((i) => i.id);
    assert.deepEqual(ids("what stopped something eating the young lettuces"), [slugs]);
    assert.deepEqual(ids("what are you eating for dinner tonight"), []);
  });
});
