import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// recall leaves out of its search the words and phrases no memory holds (ops/recall.ts
// candidates): a concept brings dozens of phrases, most absent from a store, and BM25 costs a
// step per term for every row ranked. That is only sound if the search without them finds the
// same memories with bit-identical scores, in the same order: checked here on a real index.

const T0 = 1_790_000_000;
const WORDS = "postgres redis kafka billing worker nightly batch timeout connection pool replica index migration cache queue".split(" ");
const ABSENT = ["rdbms", "cockroachdb", "sql server", "neo4j", "optimistic locking", "firestore", "planetscale"];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test("a search without the words and phrases no memory holds finds the same memories with the same scores, in the same order", async () => {
  const r = rng(7);
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const store = await Store.open(root);
  try {
    await store.write((tx) => {
      for (let i = 0; i < 400; i++) {
        const words = Array.from({ length: 4 + Math.floor(r() * 30) }, () => WORDS[Math.floor(r() * WORDS.length)]!);
        const m = createMemory({ content: words.join(" ") }, newId(), { now: T0 + i, machine: "m", user: null });
        tx.putMemory({ ...m, last_used: T0 + (i % 5), status: i % 4 === 0 ? "archived" : "active" });
      }
    });
    const filter = { statuses: ["active", "promoted"] };
    let pruned = 0;
    for (let round = 0; round < 40; round++) {
      const present = WORDS.filter(() => r() < 0.3).map((w) => (r() < 0.5 ? `"${w}"*` : `"${w}"`));
      if (present.length === 0) present.push(`"billing"`);
      // the absent terms anywhere in the expression: first, between, last
      const all = [...present];
      for (const a of ABSENT) if (r() < 0.6) all.splice(Math.floor(r() * (all.length + 1)), 0, `"${a}"`);
      if (all.length === present.length) continue;
      pruned++;
      for (const a of all) if (!present.includes(a)) assert.equal(await store.countMatches(a, {}, 1), 0, `${a} is absent`);
      for (const limit of [10, 50]) {
        const full = await store.searchWithTerms(all.join(" OR "), filter, limit);
        const kept = await store.searchWithTerms(present.join(" OR "), filter, limit);
        assert.ok(full.length > 0);
        assert.deepEqual(kept.map((h) => [h.memory.id, h.score]), full.map((h) => [h.memory.id, h.score]), `${all.join(" OR ")} (limit ${limit})`);
      }
    }
    assert.ok(pruned > 20, `${pruned} expressions had absent terms`);
  } finally {
    store.close();
  }
});
