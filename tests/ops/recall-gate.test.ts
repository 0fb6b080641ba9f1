import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { memoryTerms } from "../../src/core/recall-concepts.ts";
import { belowFloorShown, fitOf, floorOf, recallTerms } from "../../src/core/recall-rank.ts";
import { recall } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// The relevance floor is the query's gate (branch recallgate): when no memory passes it, the
// prompt fits nothing in the store and recall says nothing; once one passes, memories that share
// one strong word with the query are shown too, after every memory that passes, so a relevant
// memory whose own match is weak is on the page without moving a better match.

const T0 = 1_790_000_000;

function memory(i: number, content: string): Memory {
  return { ...createMemory({ content }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

const STORE = [
  "Signing keys rotate every 90 days",
  // "keys" again and again: BM25 rates it above the match of two words, the floor does not pass it
  "Keys of sessions, keys of tokens and keys of the cache are namespaced by service",
  "Emails are signed with DKIM",
  "Card data never touches our servers",
];

test("once the query fits the store, a memory sharing one strong word is shown after every memory that passes the floor", async () => {
  const memories = STORE.map((c, i) => memory(i, c));
  const store = await storeWith(memories, T0);
  try {
    const out = await recall(store, { query: "how do we rotate the signing keys", now: T0 + 100 });
    const texts = out.items.map((i) => i.text);
    assert.equal(texts[0], STORE[0]);
    assert.deepEqual(new Set(texts.slice(1)), new Set([STORE[1], STORE[2]]));
    // a prompt about something else: nothing passes the floor, so nothing is shown, not even the one-word match
    const off = await recall(store, { query: "write a birthday card for my sister", now: T0 + 100 });
    assert.deepEqual(off.items, []);
    assert.equal(off.text, "");
  } finally {
    store.close();
  }
});

test("belowFloorShown: none when none passes; else those passing and those holding a strong word", () => {
  const t = recallTerms("how do we rotate the signing keys");
  const fits = STORE.map((c) => fitOf(t, memoryTerms(c, [])));
  const floor = floorOf(t, fits);
  assert.deepEqual(floor, [true, false, false, false]);
  assert.deepEqual(belowFloorShown(floor, fits), [true, true, true, false]);
  assert.deepEqual(belowFloorShown([false, false, false, false], fits), [false, false, false, false]);
});
