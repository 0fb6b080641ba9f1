import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryTerms } from "../../src/core/memory-terms.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";

// Two entries of recall's developer synonyms (branch recall26, from its tuning batch's misses):
// "stale" is what a cache's expiry is called, "erased" what a deletion request is.

test("'stale' finds a cache entry's expiry and 'erased' a deletion, past the relevance floor", () => {
  const ttl = memoryTerms("Product page entries in the cache expire after ten minutes and are purged on every price change.", []);
  assert.equal(fitOf(recallTerms("how stale can a cached page get"), ttl).passes, true);
  const deletion = memoryTerms("When a customer asks for deletion, their rows are removed from Postgres and the warehouse within 30 days.", []);
  assert.equal(fitOf(recallTerms("a customer wants their data erased, how long do we have"), deletion).passes, true);
  // a stale bread is no cache
  assert.equal(fitOf(recallTerms("how do I revive stale bread in the oven"), ttl).passes, false);
});
