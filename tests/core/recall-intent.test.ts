import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { recallIntent } from "../../src/core/recall-intent.ts";

// The recall request a message makes (analyze_for_recall): the phrase found as words, never
// inside another word, and the words left to search for.

describe("recallIntent", () => {
  test("an explicit request: the phrase taken out, the rest is the query", () => {
    assert.deepEqual(recallIntent("What did we decide about pagination?"), { recall_request: true, matched_phrases: ["what did we decide"], query: "about pagination" });
    assert.equal(recallIntent("Do you remember the Redis TTL we picked?").query, "the redis ttl we picked");
  });
  test("no request: the message itself, trimmed", () => {
    assert.deepEqual(recallIntent("  Use cursor pagination. "), { recall_request: false, matched_phrases: [], query: "use cursor pagination" });
  });
  test("a phrase inside another word is not one", () => {
    assert.equal(recallIntent("the recalled units were shipped").recall_request, false);
  });
});
