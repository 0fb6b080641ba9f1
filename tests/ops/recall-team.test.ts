import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recallTerms, speaksAsTeam } from "../../src/core/recall-rank.ts";
import { recall } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// A prompt that passes no memory's floor but speaks as the team ("can we", "our") and holds a trade
// word a few memories hold is answered whatever its length (core/recall-gate.ts teamWordMatches,
// branch recall13); the same prompt in another voice, or the team's errand in everyday words, is not.

const T0 = 1_790_000_000;

function memory(i: number, content: string): Memory {
  return { ...createMemory({ content }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

const STORE = [
  "Redis is our cache for product pages and rate limit counters; it is not a source of truth.",
  "Support tickets come in through Zendesk and are triaged within four hours.",
  "Orders are stored in PostgreSQL 16.",
  "Every new index on a large table is created concurrently in its own migration.",
];

test("speaksAsTeam: we, our, us in lower case; not the country or a region's name", () => {
  for (const q of ["can we trust it", "Our cache", "what do we've got", "is that how we're doing it", "tell us why", "WE agreed", "ours or theirs"]) assert.equal(speaksAsTeam(q), true, q);
  for (const q of ["deploy to us-east-1", "US customers pay in USD", "weekly owners", "how do I boil an egg", "the user's cache"]) assert.equal(speaksAsTeam(q), false, q);
  assert.equal(recallTerms("what goes into redis and can we trust it as the record").team, true);
  assert.equal(recallTerms("what goes into redis and can one trust it as the record").team, undefined);
});

test("through recall: a long prompt in the team's voice with a trade word is answered; in another voice, or with an everyday word, it is not", async () => {
  const store = await storeWith(STORE.map((c, i) => memory(i, c)), T0);
  try {
    const team = await recall(store, { query: "what goes into redis and can we trust it as the record", now: T0 + 100 });
    assert.deepEqual(team.items.map((i) => i.text), [STORE[0]]);
    // the same question asked by no one in particular: four strong words, one shared, no memory passes
    assert.deepEqual((await recall(store, { query: "what goes into redis and can one trust it as the record", now: T0 + 100 })).items, []);
    // the team's errand: "tickets" is held by one memory but everyday English says it
    assert.deepEqual((await recall(store, { query: "can we get a refund on our flight tickets", now: T0 + 100 })).items, []);
  } finally {
    store.close();
  }
});

test("a version's name is a strong word: it carries a match as any other", async () => {
  assert.deepEqual(recallTerms("how long is v1 kept alive after v2").strong, ["v1", "kept", "alive", "v2"]);
  const versions = "The public API is versioned in the URL path (/v1, /v2); a version is supported for 12 months after the next one ships.";
  const store = await storeWith([...STORE, versions].map((c, i) => memory(i, c)), T0);
  try {
    assert.deepEqual((await recall(store, { query: "how long is v1 kept alive after v2", now: T0 + 100 })).items.map((i) => i.text), [versions]);
  } finally {
    store.close();
  }
});

test("a camel-case identifier's parts are words of the prompt too", async () => {
  assert.deepEqual(recallTerms("add a toMatchSnapshot of the settings page?").words, ["add", "tomatchsnapshot", "match", "snapshot", "settings", "page"]);
  const snapshots = "Large snapshot tests of whole pages broke on every copy change and caught no real bug; we deleted them.";
  const store = await storeWith([...STORE, snapshots].map((c, i) => memory(i, c)), T0);
  try {
    const out = await recall(store, { query: "I want to add a toMatchSnapshot of the whole settings page, bad idea?", now: T0 + 100 });
    assert.deepEqual(out.items.map((i) => i.text), [snapshots]);
  } finally {
    store.close();
  }
});
