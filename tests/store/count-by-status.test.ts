import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// A count up to N of one whole term filtered by status (recall's first count) is told from the
// full-text index alone when `N + the memories of other statuses` match (index-db.ts
// reachedBeforeStatuses). It must give what the filtered count gives, whatever the share of
// memories the statuses leave out: checked on a real index against the count without a bound.

const T0 = 1_790_000_000;
const VOCAB = "connection timeout billing worker nightly batch kestrel".split(" ");
const STATUSES = ["active", "promoted", "archived"] as const;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test("a whole term's count by status up to N is the filtered count, cut at N, on random stores and bounds", { timeout: 120_000 }, async () => {
  const r = rng(20261127);
  let reachedAtBound = 0;
  let fellShort = 0;
  for (let round = 0; round < 6; round++) {
    const root = path.join(tempDir(), "store");
    writeStoreSkeleton(nodeFs, root, T0);
    const store = await Store.open(root);
    try {
      // a share of other statuses from none to most: the bound moves with it
      const away = [0, 0.1, 0.5, 0.8, 0.3, 0.95][round]!;
      const n = 150 + Math.floor(r() * 150);
      await store.write((tx) => {
        for (let i = 0; i < n; i++) {
          const words = Array.from({ length: 2 + Math.floor(r() * 6) }, () => VOCAB[Math.floor(r() ** 2 * VOCAB.length)]!);
          const m = createMemory({ content: words.join(" ") }, newId(), { now: T0 + i, machine: "m", user: null });
          const status = r() < away ? STATUSES[2] : STATUSES[Math.floor(r() * 2)]!;
          tx.putMemory({ ...m, status });
        }
      });
      for (const word of VOCAB) {
        for (const statuses of [["active", "promoted"], ["active"], ["archived"], ["active", "promoted", "archived"]]) {
          const filter = { statuses };
          const exact = await store.countMatches(`"${word}"`, filter);
          const all = await store.countMatches(`"${word}"`, {});
          for (const upTo of [1, Math.max(1, exact - 1), exact, exact + 1, Math.floor(r() * n) + 1, all, n]) {
            const got = await store.countMatches(`"${word}"`, filter, upTo);
            assert.equal(got, Math.min(exact, upTo), `round ${round} "${word}" ${statuses.join(",")} up to ${upTo}: ${got}, the filtered count ${exact}`);
            // both sides of the bound are met: the word's matches of every status reach upTo while those that pass do not, and the other way
            if (all >= upTo && exact < upTo) fellShort++;
            if (exact >= upTo) reachedAtBound++;
          }
        }
      }
    } finally {
      store.close();
    }
  }
  assert.ok(fellShort > 50 && reachedAtBound > 50, `both ways met: ${fellShort} short of the bound with enough matches of every status, ${reachedAtBound} reached`);
});
