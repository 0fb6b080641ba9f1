import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import { createMemory } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// A bulk write (a rebuild, an import) leaves the full-text index in several segments, and every
// term a search names is looked up in each: the store merges it then (Store.settleAfterBulk,
// IndexDb.mergeFullTextPast), once it has more than a few. The same answers, scores included.

const T0 = 1_790_000_000;
const WORDS = "billing worker connections nightly batch timeout retry cache deploy queue postgres kestrel".split(" ");

const memory = (i: number): Memory =>
  createMemory({ content: `note ${i}: the ${WORDS[i % 12]} and the ${WORDS[(i * 7) % 12]} after the ${WORDS[(i * 5) % 12]} (${i})` }, newId(), { now: T0 + i, machine: "m", user: null });

async function newStore(): Promise<Store> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  return Store.open(root);
}

/** Writes of `each` memories: one new segment or more per write. */
async function written(store: Store, n: number, each: number): Promise<void> {
  for (let i = 0; i < n; i += each) {
    const batch = Array.from({ length: Math.min(each, n - i) }, (_, k) => memory(i + k));
    await store.write((tx) => {
      for (const m of batch) tx.putMemory(m);
    });
  }
}

const answers = async (store: Store) =>
  Promise.all(["billing", "worker OR timeout", "nightly AND batch", "queue*", "kestrel postgres"].map(async (q) => (await store.search(q, {}, null)).hits.map((h) => [h.memory.id, h.score.toFixed(9)])));

test("a rebuild merges the full-text index into one segment; every search answers the same", async () => {
  const store = await newStore();
  try {
    await written(store, 600, 20);
    const segments = store.index.fullTextSegments();
    assert.ok(segments > 4, `the writes left many segments (${segments})`);
    const before = await answers(store);
    await store.rebuildIndex();
    assert.equal(store.index.fullTextSegments(), 1);
    assert.deepEqual(await answers(store), before);
  } finally {
    store.close();
  }
});

test("a bulk write merges once segments add up past the bound, not on every bulk write", async () => {
  const store = await newStore();
  try {
    await written(store, 300, 20);
    assert.ok(store.index.fullTextSegments() > 4);
    const before = await answers(store);
    const bulk = (from: number, n: number) =>
      store.write(
        (tx) => {
          for (let i = from; i < from + n; i++) tx.putMemory(memory(i));
        },
        undefined,
        { bulk: true },
      );
    await bulk(10_000, 200);
    assert.equal(store.index.fullTextSegments(), 1, "merged after the bulk write");
    const merged = await answers(store);
    // a small bulk write adds a few segments: left as they are while at most 4
    await bulk(20_000, 2);
    const after = store.index.fullTextSegments();
    assert.ok(after > 1 && after <= 4, `not merged again (${after} segments)`);
    // the answers of the first 300 as before the merges (the later memories add matches after them)
    const again = await answers(store);
    for (const [q, hits] of before.entries()) {
      const ids = new Set(hits.map((h) => h[0]));
      assert.ok(merged[q]!.length >= hits.length && again[q]!.length >= hits.length);
      assert.deepEqual(
        again[q]!.filter((h) => ids.has(h[0]!)).map((h) => h[0]),
        hits.map((h) => h[0]),
        `query ${q}: the same order among the first memories`,
      );
    }
  } finally {
    store.close();
  }
});

test("the merge never waits for another process's write: busy fails at once and changes nothing", async () => {
  const store = await newStore();
  const other = new DatabaseSync(path.join(store.root, ".memsync/index.db"));
  try {
    await written(store, 200, 20);
    const segments = store.index.fullTextSegments();
    other.exec("BEGIN IMMEDIATE");
    const t0 = performance.now();
    assert.throws(() => store.index.mergeFullTextPast(0, 15_000), /locked|busy/i);
    assert.ok(performance.now() - t0 < 1_000, "no wait for the busy timeout");
    other.exec("ROLLBACK");
    assert.equal(store.index.fullTextSegments(), segments);
    assert.equal(store.index.mergeFullTextPast(segments, 15_000), false, "at the bound: not merged");
    assert.equal(store.index.mergeFullTextPast(0, 15_000), true);
    assert.equal(store.index.fullTextSegments(), 1);
  } finally {
    other.close();
    store.close();
  }
});
