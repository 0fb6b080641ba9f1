import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { memoryTerms } from "../../src/core/recall-concepts.ts";
import { everyday, GATE_HOLDERS, tradeWordMatches } from "../../src/core/recall-gate.ts";
import { fitOf, floorOf, recallTerms, shownTiers } from "../../src/core/recall-rank.ts";
import { recall } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// Recall decides in two steps (branch recallgate): whether the prompt fits the store at all (a
// memory passes the relevance floor, or a short prompt's trade word: core/recall-gate.ts), else
// it says nothing; then, memories that share one strong word with the query are shown too, after
// those, so a relevant memory whose own match is weak is on the page without moving a better match.

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

test("shownTiers: none when neither the floor nor the gate passes one; else those first, then those holding a strong word", () => {
  const t = recallTerms("how do we rotate the signing keys");
  const fits = STORE.map((c) => fitOf(t, memoryTerms(c, [])));
  const floor = floorOf(t, fits);
  assert.deepEqual(floor, [true, false, false, false]);
  const never = () => assert.fail("the gate is asked only when no memory passes the floor");
  assert.deepEqual(shownTiers(floor, fits, never), [0, 1, 1, null]);
  const none = fits.map(() => false);
  assert.deepEqual(shownTiers(none, fits, () => none), [null, null, null, null]);
  assert.deepEqual(shownTiers(none, fits, () => [false, false, true, false]), [1, 1, 0, null]);
});

// The gate for a prompt that passes no memory's floor: a short prompt whose one shared word is a
// trade word (few memories hold it, everyday English does not say it) fits the store.
const TRADE = ["Support tickets come in through Zendesk and are triaged within four business hours", "The office is closed on Mondays for the city holiday"];
const gate = (query: string, store: readonly string[] = TRADE, everyMatch = true) => {
  const t = recallTerms(query);
  const fits = store.map((c) => fitOf(t, memoryTerms(c, [])));
  assert.deepEqual(floorOf(t, fits, everyMatch), fits.map(() => false), `${query}: no memory passes the floor`);
  return tradeWordMatches(t, fits, everyMatch);
};

test("the gate: a short prompt's trade word opens it; an everyday word, a longer prompt, more unknown words or cut candidates do not", () => {
  assert.equal(everyday("holiday"), true);
  assert.equal(everyday("mondays"), true);
  assert.equal(everyday("zendesk"), false);
  assert.deepEqual(gate("zendesk sla"), [true, false]);
  // one word shared by chance, one anybody says
  assert.deepEqual(gate("cheap holiday"), [false, false]);
  // three strong words: a prompt that fits shares more than one
  assert.deepEqual(gate("zendesk sla breach"), [false, false]);
  // candidates cut from more matches: holders among them say nothing of how rare a word is
  assert.deepEqual(gate("zendesk sla", TRADE, false), [false, false]);
  // a word more than GATE_HOLDERS memories hold names no one thing
  const many = [...TRADE, ...Array.from({ length: GATE_HOLDERS }, (_, i) => `Zendesk macro ${i} closes the ticket`)];
  assert.deepEqual(gate("zendesk sla", many).some(Boolean), false);
});

test("through recall: a trade-word prompt is answered, an everyday-word prompt stays quiet", async () => {
  const store = await storeWith(TRADE.map((c, i) => memory(i, c)), T0);
  try {
    assert.deepEqual((await recall(store, { query: "zendesk sla", now: T0 + 100 })).items.map((i) => i.text), [TRADE[0]]);
    assert.deepEqual((await recall(store, { query: "cheap holiday", now: T0 + 100 })).items, []);
  } finally {
    store.close();
  }
});
