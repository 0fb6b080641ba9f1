import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memoryTerms } from "../../src/core/memory-terms.ts";
import { fitOf, floorOf, recallTerms } from "../../src/core/recall-rank.ts";
import { memsyncJson, newStore, saveMany } from "../helpers/env.ts";

// The relevance floor as a store grows (branch floor33, issue 15): floorOf lets a memory sharing
// one strong word through when the store holds every strong word of the prompt ("in the store's
// language"). An everyday word one memory holds is as likely said there in passing, and the more
// memories, the more of everyday English some one of them says: two such words are a prompt
// about something else. Memories and prompts written for this test, not taken from the corpus.

const STORE = [
  "Static assets are served from the CDN with hashed file names.",
  "Firmware builds are flashed by a Raspberry Pi on the test bench.",
  "Commit messages follow Conventional Commits.",
  "Pre-commit hooks run the formatter on staged files.",
  "Search allows one typo per word of five letters or more.",
];

const floor = (query: string, everyMatch: boolean) => {
  const t = recallTerms(query);
  return floorOf(t, STORE.map((m) => fitOf(t, memoryTerms(m, []))), everyMatch);
};

describe("the floor's words said in passing", () => {
  test("two strong words each an everyday word of one memory: no memory passes", () => {
    assert.deepEqual(floor("set a static IP on a Raspberry Pi", true), [false, false, false, false, false]);
  });

  test("one such word is tolerated: a paraphrase says a word of its own", () => {
    // "word" is said by one memory only, "commit" by two: those two pass on "commit"
    assert.deepEqual(floor("how should I word my commit", true), [false, false, true, true, true]);
  });

  test("candidates cut from more matches: a word's one holder among them says nothing, the floor is as before", () => {
    assert.deepEqual(floor("set a static IP on a Raspberry Pi", false), [true, true, false, false, false]);
  });
});

describe("recall through the binary", () => {
  test("an everyday prompt that shares one word with each of two memories gets nothing; a paraphrase still finds its memory", () => {
    const store = newStore();
    saveMany(store, STORE);
    const recall = (q: string) => memsyncJson<{ items: { text: string }[] }>(["--store", store, "recall", q]).items.map((i) => i.text);
    assert.deepEqual(recall("set a static IP on a Raspberry Pi"), []);
    assert.ok(recall("how should I word my commit").includes(STORE[2]!));
  });
});
