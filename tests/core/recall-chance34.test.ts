import assert from "node:assert/strict";
import { test } from "node:test";
import { commonFrom, COMMON_HOLDERS_LEAST, loneWords } from "../../src/core/recall-chance.ts";
import { memoryTerms } from "../../src/core/memory-terms.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";
import { memsyncJson, newStore, saveMany } from "../helpers/env.ts";

// branch floor34 (issue 15): a prompt whose every passing memory passes on one word common in this
// store (held by 5% of its memories and by COMMON_HOLDERS_LEAST or more), in a prompt of three or
// more strong words, gets nothing: any big enough store meets that word by chance.

test("a word is common in a store by its share of it, and never below COMMON_HOLDERS_LEAST holders", () => {
  assert.equal(commonFrom(20), COMMON_HOLDERS_LEAST);
  assert.equal(commonFrom(280), 14);
  assert.equal(commonFrom(10_000), 500);
});

test("the word judged is a memory's lone word of a prompt of three or more strong words", () => {
  const judged = (query: string, memory: string) => {
    const terms = recallTerms(query);
    const fit = fitOf(terms, memoryTerms(memory, []));
    return loneWords(terms, [fit], [true])[0];
  };
  // a concept of the prompt is all it shares with the memory
  assert.equal(judged("how do I reverse a string in python", "The billing worker is written in Python 3.12."), "python");
  // the prompt is mostly that word: not judged
  assert.equal(judged("which python version", "The billing worker is written in Python 3.12."), null);
  // two of the prompt's words held: not judged
  assert.equal(judged("which python version does billing run", "The billing worker is written in Python 3.12."), null);
  // a memory not passing is not judged
  const terms = recallTerms("how do I reverse a string in python");
  assert.equal(loneWords(terms, [fitOf(terms, memoryTerms("The billing worker is written in Python 3.12.", []))], [false])[0], null);
});

const OTHER = [
  "Invoices are generated nightly as PDF files and mailed to the finance team.",
  "The mobile app ships every two weeks through the App Store review.",
  "Postgres backups run at 02:00 UTC and are kept for thirty days.",
  "Feature flags live in LaunchDarkly; stale flags are removed each quarter.",
  "Support tickets older than a week are escalated to the on-call lead.",
];
const SERVICES = ["billing", "search", "export", "import", "report", "email", "image", "audit", "sync", "pricing", "tax", "ledger"];
// 60 memories each: more than recall's 50 candidates, so they are cut (floorOf's counts over the
// candidates, which catch such a prompt in a small store, then say nothing)
const sixty = (say: (service: string, i: number) => string) => Array.from({ length: 60 }, (_, i) => say(SERVICES[i % SERVICES.length]!, i));
const python = (service: string, i: number) => `The ${service} worker ${i} is written in Python 3.12 and deployed with uv.`;

test("end to end: a prompt meeting only a word common in the store gets nothing; one the store holds rarely still finds it", async () => {
  const common = newStore();
  saveMany(common, [...sixty(python), ...OTHER]);
  const off = memsyncJson(["--store", common, "recall", "--json", "how do I reverse a string in python"]);
  assert.deepEqual(off.items, [], "python is held by 60 of 65 memories: meeting it says nothing");
  // a prompt that is mostly the common word still finds its memories
  const on = memsyncJson(["--store", common, "recall", "--json", "which python version"]);
  assert.ok(on.items.length > 0);

  // the same prompt in a store of as many memories where three hold the word: it still carries the match
  const rare = newStore();
  saveMany(rare, [...sixty((service, i) => `The ${service} service ${i} sits behind a reverse proxy.`), ...sixty(python).slice(0, 3), ...OTHER]);
  const kept = memsyncJson(["--store", rare, "recall", "--json", "how do I reverse a string in python"]);
  assert.ok(kept.items.length > 0, "python held by 3 memories is specific to them");
});
