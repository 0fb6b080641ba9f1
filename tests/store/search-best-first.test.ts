import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import type { MemoryFilter } from "../../src/store/index-db.ts";
import type { Store } from "../../src/store/store.ts";
import { storeWith } from "../helpers/memory-store.ts";
import { FILLER, memory, projectCorpus, T0 } from "../helpers/search-corpus.ts";

// A page of the best matches (recall's candidates: Store.searchWithTerms) is ranked from the
// full-text index's best scores first (IndexDb bestByScore), and joined to the memory rows only
// for those: the page must be the one ranking every match gives (Store.search with a count ranks
// every match), whatever the filter drops and however scores tie at the edge.


const storeOf = (memories: Memory[]): Promise<Store> => storeWith(memories, T0);

const ids = (hits: { memory: Memory; score: number }[]) => hits.map((h) => [h.memory.id, h.score]);

async function samePages(store: Store, match: string, statuses: string[], limit: number, projects: Pick<MemoryFilter, "project" | "projectOrNone"> = {}): Promise<number> {
  const all = await store.search(match, { statuses, ...projects }, limit, true);
  const page = await store.searchWithTerms(match, { statuses, ...projects }, limit);
  assert.deepEqual(ids(page), ids(all.hits), `${match} (${statuses.join(",")} ${JSON.stringify(projects)}): the page of every match ranked`);
  return page.length;
}

test("recall's page of best matches is the page that ranking every match gives", async () => {
  const memories: Memory[] = [];
  // 600 matches of varied length (varied scores), many archived, and 300 that tie exactly
  for (let i = 0; i < 600; i++) {
    const words = Array.from({ length: 3 + (i % 40) }, (_, k) => FILLER[(i + k) % FILLER.length]).join(" ");
    memories.push(memory(i, `connection timeout ${i % 3 === 0 ? "timeout " : ""}${words}`, i % 5 === 0 ? "active" : "archived"));
  }
  for (let i = 0; i < 300; i++) memories.push(memory(1000 + i, "retry queue after the retry limit", i % 2 ? "active" : "archived"));
  const store = await storeOf(memories);
  try {
    // every status: the page comes from the best scores (more than 200 match)
    assert.equal(await samePages(store, `"connection" AND "timeout"`, ["active", "archived"], 50), 50);
    // most matches filtered out: too few of the best scores pass, every match is ranked
    assert.equal(await samePages(store, `"connection" AND "timeout"`, ["active"], 50), 50);
    // none passes the filter
    assert.equal(await samePages(store, `"connection" AND "timeout"`, ["promoted"], 50), 0);
    // 300 identical scores: the page's last ties with scores left out, so every match is ranked
    // (the tie is broken by last use and id, which the best scores alone do not know)
    assert.equal(await samePages(store, `"retry" AND "queue"`, ["active", "archived"], 50), 50);
    assert.equal(await samePages(store, `"retry" AND "queue"`, ["active"], 50), 50);
    // fewer matches than the best scores taken: those are every match
    assert.equal(await samePages(store, `"connection" AND "epsilon" AND "lambda" AND "alpha"`, ["active", "archived"], 50), 50);
    assert.equal(await samePages(store, `"nothing" AND "here"`, ["active"], 50), 0);
    // prefixes and any-word, as recall asks
    assert.equal(await samePages(store, `"connect"* OR "timeout"* OR "retry"`, ["active", "archived"], 50), 50);
    assert.equal(await samePages(store, `"connect"*`, ["active"], 10), 10);
  } finally {
    store.close();
  }
});

test("a page filtered to a project (or none) is the page that ranking every match gives, whatever the project's share", async () => {
  // 900 matches: a small project (a few percent of the store), no project (a tenth), and the rest
  // in one large project; the hook asks for its project or none (a small share: every match is
  // ranked at once, not the best scores first), recall of the large project for most of the store
  const store = await storeOf(projectCorpus());
  try {
    for (const match of [`"billing"* OR "worker"*`, `"billing" AND "worker"`, `"nightly" OR "batch"*`, `"epsilon" AND "lambda" AND "alpha"`]) {
      for (const projects of [{ projectOrNone: "small" }, { projectOrNone: "large" }, { projectOrNone: "absent" }, { project: "small" }, { project: "large" }, { project: "absent" }]) {
        await samePages(store, match, ["active", "promoted"], 50, projects);
        await samePages(store, match, ["active", "promoted"], 10, projects);
      }
    }
    // the pages are not empty where they should not be
    assert.equal(await samePages(store, `"billing"* OR "worker"*`, ["active"], 50, { projectOrNone: "small" }), 50);
    assert.equal(await samePages(store, `"billing"* OR "worker"*`, ["active"], 50, { project: "small" }), 25);
    assert.equal(await samePages(store, `"nightly" OR "batch"*`, ["active"], 50, { projectOrNone: "absent" }), 50);
  } finally {
    store.close();
  }
});

test("one pass counts the first matches of every memory and those of them that pass the filter, as the two counts do", async () => {
  const memories: Memory[] = [];
  for (let i = 0; i < 400; i++) memories.push(memory(i, `billing worker ${FILLER[i % FILLER.length]}`, i % 3 === 0 ? "archived" : "active", i % 4 === 0 ? "small" : i % 4 === 1 ? undefined : "large"));
  const store = await storeOf(memories);
  try {
    for (const match of [`"billing"* OR "worker"*`, `"alpha"`, `"nothing"`]) {
      for (const filter of [{}, { statuses: ["active"] }, { statuses: ["active"], projectOrNone: "small" }, { project: "absent" }] as MemoryFilter[]) {
        for (const upTo of [0, 1, 39, 41, 399, 401]) {
          const got = await store.countMatchesPassing(match, filter, upTo);
          const all = await store.countMatches(match, {}, upTo);
          assert.equal(got.all, all, `${match} ${JSON.stringify(filter)} ${upTo}`);
          // of the first `all` matches: every one passing when they are every match
          if (all < upTo) assert.equal(got.passing, await store.countMatches(match, filter), `${match} ${JSON.stringify(filter)} ${upTo}`);
          else assert.ok(got.passing <= Math.min(all, await store.countMatches(match, filter)));
        }
      }
    }
  } finally {
    store.close();
  }
});
