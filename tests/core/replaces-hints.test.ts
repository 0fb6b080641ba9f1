import assert from "node:assert/strict";
import { test } from "node:test";
import { mayReplace, REPLACES, REPLACES_HINTS, replacedWords } from "../../src/core/recall-rank.ts";
import { testHints } from "../helpers/pattern-hints.ts";

// replacedWords searches REPLACES only in a text holding one of REPLACES_HINTS (see pattern-hints.ts):
// every match holds one, and each is needed.
// the pattern without its g flag: test() then keeps no lastIndex between sentences
const re = new RegExp(REPLACES.source, REPLACES.flags.replace("g", ""));

testHints({
  name: "REPLACES",
  re,
  hints: REPLACES_HINTS,
  mayHold: mayReplace,
  only: [
    ["from", "we moved from sidekiq"],
    ["off", "we moved off sidekiq"],
    ["replac", "this replaces sidekiq"],
    ["instead of", "use bullmq instead of sidekiq"],
    ["in place of", "bullmq runs in place of sidekiq"],
    ["rather than", "rather than sidekiq we use bullmq"],
    ["no more", "no more sidekiq"],
    ["swap", "we swapped sidekiq for bullmq"],
    ["dropp", "we dropped sidekiq"],
    ["no longer", "we no longer use sidekiq"],
  ],
  none: "the billing worker runs the nightly batch",
  corpusMatches: 20,
});

test("replacedWords on texts with and without a hint", () => {
  assert.deepEqual(replacedWords("We moved off Sidekiq"), ["sidekiq"]);
  assert.deepEqual(replacedWords("We no longer use Sidekiq"), ["sidekiq"]);
  // the long s folds to "s" under the pattern's /iu: searched though no hint is there as written
  assert.deepEqual(replacedWords("use BullMQ inſtead of Sidekiq"), ["sidekiq"]);
  assert.deepEqual(replacedWords("the billing worker runs the nightly batch"), []);
  assert.deepEqual(replacedWords("Rather than Redux we use Zustand."), ["redux"]);
  assert.deepEqual(replacedWords("No more Moment.js: we use date-fns."), ["moment"]);
  assert.deepEqual(replacedWords("Swapped ESLint and Prettier for Biome."), ["eslint"]);
  assert.deepEqual(replacedWords("Retries: no more than 5 per job."), []);
});
