import assert from "node:assert/strict";
import { test } from "node:test";
import { recallTerms } from "../../src/core/recall-rank.ts";
import { recall } from "../../src/ops/recall.ts";
import { recallShown } from "../helpers/memory-store.ts";

// A terse prompt's short word is its subject (branch recall28): "uv", "per IP", "24 hours" found
// nothing (two letters and one or two digits are never strong words), while plain BM25 found
// them. In a longer prompt they stay weak, a word everyday English says stays weak, and a number
// opens no gate on its own ("24 hour pharmacy near me").

const T0 = 1_790_000_000;


const TEXTS = [
  "Python scripts in the data repo use uv for dependencies and virtual environments instead of pip and Poetry.",
  "POST endpoints that create payments accept an Idempotency-Key header and replay the first response for 24 hours.",
  "Credential stuffing on the sign-in form stopped after we rate limited it per IP and per account.",
  "Logs are kept for 14 days and traces for 7 days.",
  "Static assets are served from CloudFront with immutable hashed file names and a one-year max-age.",
  "External uptime checks run from Better Stack every minute against the /healthz endpoints.",
  "Long-running feature branches are avoided; branches live a day or two.",
];

/** What recall shows for the query over TEXTS. */
const shown = (query: string): Promise<string[]> => recallShown(TEXTS, T0, query);

test("a terse prompt's short word finds the memory that holds it", async () => {
  assert.equal((await shown("uv"))[0], TEXTS[0]);
  assert.equal((await shown("24 hours"))[0], TEXTS[1]);
  assert.equal((await shown("per IP"))[0], TEXTS[2]);
  assert.equal((await shown("14 days"))[0], TEXTS[3]);
});

test("a number opens no gate, and a short word in a longer prompt or one everybody says stays weak", async () => {
  assert.deepEqual(await shown("24 hour pharmacy near me"), []);
  assert.deepEqual(recallTerms("oh no").strong, []);
  assert.deepEqual(recallTerms("the 24 replicas of the orders cluster").strong, ["replicas", "orders", "cluster"]);
});

test("two plain words written as a name in a terse prompt find the memory that holds them; said in lower case they do not", async () => {
  assert.equal((await shown("Better Stack"))[0], TEXTS[5]);
  assert.deepEqual(await shown("good stretches after a long run"), []);
  assert.deepEqual(recallTerms("better stack").plainPairs, undefined);
});
