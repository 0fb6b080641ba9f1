import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { createMemory, touchMemory } from "../../src/core/records.ts";
import { keepIndexMerged } from "../../src/ops/index-upkeep.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// The full-text index merged in small steps (IndexDb.mergeStep, ops/index-upkeep.ts): the same
// answers before and after, steps that end, and a step that never waits for another process.

const T0 = 1_790_000_000;
const WORDS = "billing worker connections nightly batch timeout retry cache deploy queue postgres".split(" ");

async function writtenOneByOne(): Promise<{ store: Store; root: string }> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const store = await Store.open(root);
  const ids: string[] = [];
  // one write per memory, then rewrites (touches): many small segments and deleted rows
  for (let i = 0; i < 30; i++) {
    const m = createMemory({ content: `note ${i}: the ${WORDS[i % 11]} and the ${WORDS[(i * 7) % 11]} after the ${WORDS[(i * 3) % 11]}` }, newId(), { now: T0 + i, machine: "m", user: null });
    ids.push(m.id);
    await store.write((tx) => tx.putMemory(m));
  }
  for (let i = 0; i < 30; i += 2) await store.write((tx) => tx.putMemory(touchMemory(tx.memory(ids[i]!), T0 + 100 + i, false, "m.00000000")));
  return { store, root };
}

const answers = async (store: Store) =>
  Promise.all(["billing", "worker OR timeout", "nightly AND batch", "queue*"].map(async (q) => (await store.search(q, {}, null)).hits.map((h) => [h.memory.id, h.score.toFixed(9)])));

test("merging the index step by step ends, and every search answers the same, scores included", async () => {
  const { store } = await writtenOneByOne();
  try {
    const before = await answers(store);
    let steps = 0;
    while (await store.mergeIndexStep(2)) assert.ok(++steps < 10_000, "the merge ends");
    assert.ok(steps >= 1, "the one-by-one writes left something to merge");
    assert.equal(await store.mergeIndexStep(2), false, "a merged index has nothing left to merge");
    assert.deepEqual(await answers(store), before);
  } finally {
    store.close();
  }
});

test("a step never waits for another process's write (busy fails at once); the upkeep merges, then stops", async () => {
  const { store, root } = await writtenOneByOne();
  const other = new DatabaseSync(path.join(root, ".memsync/index.db"));
  try {
    other.exec("BEGIN IMMEDIATE");
    const t0 = performance.now();
    await assert.rejects(store.mergeIndexStep(8), /locked|busy/i);
    assert.ok(performance.now() - t0 < 1_000, "no wait for the busy timeout (15 s)");
    other.exec("ROLLBACK");

    const before = await answers(store);
    const upkeep = keepIndexMerged({ use: (fn) => Promise.resolve(fn(store)) }, () => true, { quietMs: 100 });
    try {
      // the first look a quarter of a second after the start, a step once the index was left
      // alone for 100 ms, then one every 25 ms until done
      await new Promise((r) => setTimeout(r, 1_200));
      assert.equal(await store.mergeIndexStep(1), false, "merged by the upkeep");
    } finally {
      upkeep.stop();
    }
    assert.deepEqual(await answers(store), before);
  } finally {
    other.close();
    store.close();
  }
});
