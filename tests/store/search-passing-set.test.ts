import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { INDEX_FILE } from "../../src/store/fixed-paths.ts";
import { IndexDb, type MemoryFilter } from "../../src/store/index-db.ts";
import { storeWith } from "../helpers/memory-store.ts";
import { projectCorpus, T0 } from "../helpers/search-corpus.ts";

// Recall's page of candidates filtered to a project (or none), when the filter passes few
// memories and the caller says the matches are many (IndexDb rankedInPassing): the filter is
// applied as a set of the rids that pass it, built once, instead of a lookup of each match's
// memory row. The page must be the one ranking every match gives (Store.search with a count),
// whatever the project's share and however scores tie at the page's edge; and the set must be
// used only when the caller's count says the matches are many.


/** The index of a store read through a connection that records every statement prepared on it. */
function recordingIndex(root: string): { index: IndexDb; prepared: string[]; close: () => void } {
  const db = new DatabaseSync(`${root}/${INDEX_FILE}`, { readOnly: true });
  const prepared: string[] = [];
  const proxy = new Proxy(db, {
    get(target, key) {
      const v = Reflect.get(target, key, target) as unknown;
      if (key === "prepare") return (sql: string) => (prepared.push(sql), target.prepare(sql));
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { index: IndexDb.reading(proxy), prepared, close: () => db.close() };
}

const MANY = 1_000_000;
const SET = "+rowid IN";

test("a page filtered to a project or none through the passing set is the page ranking every match gives", async () => {
  const store = await storeWith(projectCorpus(), T0);
  const { index, prepared, close } = recordingIndex(store.root);
  try {
    const page = (match: string, f: MemoryFilter, limit: number, about?: number) => index.searchWithTerms(match, f, limit, about).map((h) => [h.memory.id, h.score]);
    let shown = 0;
    for (const match of [`"billing"* OR "worker"*`, `"billing" AND "worker"`, `"nightly" OR "batch"*`, `"epsilon" AND "lambda" AND "alpha"`, `"nothing"`]) {
      for (const projects of [{ projectOrNone: "small" }, { projectOrNone: "absent" }, { project: "small" }, { project: "absent" }]) {
        for (const limit of [50, 25]) {
          const f: MemoryFilter = { statuses: ["active", "promoted"], ...projects };
          const all = (await store.search(match, f, limit, true)).hits.map((h) => [h.memory.id, h.score]);
          prepared.length = 0;
          const got = page(match, f, limit, MANY);
          assert.ok(prepared.some((s) => s.includes(SET)), `${match} ${JSON.stringify(projects)}: the passing set was used`);
          assert.deepEqual(got, all, `${match} ${JSON.stringify(projects)} ${limit}: the page of every match ranked`);
          shown += got.length;
        }
      }
    }
    assert.ok(shown > 300, `pages not empty: ${shown}`);
    // 300 exact ties, the page's edge among them: ties broken by last use and id as the full ranking does
    const ties = page(`"nightly" AND "batch"`, { statuses: ["active"], projectOrNone: "absent" }, 30, MANY);
    assert.equal(ties.length, 30);
    assert.deepEqual(ties, (await store.search(`"nightly" AND "batch"`, { statuses: ["active"], projectOrNone: "absent" }, 30, true)).hits.map((h) => [h.memory.id, h.score]));
  } finally {
    close();
    store.close();
  }
});

test("the passing set only when the matches are many against the memories that pass, and only for a filter by project", async () => {
  const store = await storeWith(projectCorpus(), T0);
  const { index, prepared, close } = recordingIndex(store.root);
  try {
    const usedSet = (f: MemoryFilter, about?: number): boolean => {
      prepared.length = 0;
      index.searchWithTerms(`"billing"* OR "worker"*`, f, 25, about);
      return prepared.some((s) => s.includes(SET));
    };
    const small: MemoryFilter = { statuses: ["active", "promoted"], projectOrNone: "small" };
    // 195 memories are of "small" or none (30 + 90 + 75): 4 x 50 reaches them, 4 x 40 does not
    assert.equal(usedSet(small, MANY), true);
    assert.equal(usedSet(small, 50), true);
    assert.equal(usedSet(small, 40), false);
    assert.equal(usedSet(small), false);
    // no filter by project, or one passing most memories: the best scores first, as before
    assert.equal(usedSet({ statuses: ["active", "promoted"] }, MANY), false);
    assert.equal(usedSet({ statuses: ["active", "promoted"], projectOrNone: "large" }, MANY), false);
  } finally {
    close();
    store.close();
  }
});
