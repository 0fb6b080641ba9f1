import assert from "node:assert/strict";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall, type RecallIndex, recallIn } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// Past 1,000 matches recall searches every word when enough memories hold them all (ops/recall.ts
// candidates). The whole words' AND is counted first: when it reaches enough, no word can be
// absent, so the probes for an absent short word are not asked. Checked on a real index, with
// the counts recall asks recorded, against the Store's own recall.

const T0 = 1_790_000_000;

test("a prompt whose words every memory holds: no probe for an absent short word, the same outcome", async () => {
  const fill = ["queue", "cache", "replica", "kafka", "postgres", "kestrel"];
  const memories = Array.from({ length: 1_200 }, (_, i) =>
    createMemory({ content: `the nightly batch run of the billing worker ${fill[i % fill.length]} ${fill[(i * 7) % fill.length]} note ${i}` }, newId(), { now: T0 + i, machine: "m", user: null }),
  );
  const store = await storeWith(memories, T0);
  try {
    const query = "why does the nightly billing worker run its batch";
    const asked: string[] = [];
    const reads: RecallIndex = {
      searchWithTerms: (match, filter, limit) => store.searchWithTerms(match, filter, limit),
      boundedSearchReady: () => store.boundedSearchReady(),
      countMatches: (match, filter, upTo) => {
        asked.push(match ?? "(all)");
        return store.countMatches(match, filter, upTo);
      },
      countMatchesPassing: (match, filter, upTo) => store.countMatchesPassing(match, filter, upTo),
      relationsOfTypeTo: (type, ids) => store.relationsOfTypeTo(type, ids),
      projects: () => store.projects(),
      nowSeconds: () => T0 + 2_000,
      rawSettings: store.rawSettings,
    };
    const got = await recallIn(reads, { query, countUpTo: 101, now: T0 + 2_000 }, async () => undefined);
    // the short whole word "run" is probed alone only when the AND of whole words falls short
    assert.ok(asked.some((m) => m.includes(" AND ")), `the every-word count was asked: ${asked.join(" | ")}`);
    assert.deepEqual(asked.filter((m) => m === `"run"`), [], `asked: ${asked.join(" | ")}`);
    const want = await recall(store, { query, countUpTo: 101, now: T0 + 2_000 });
    assert.deepEqual(got, want);
    assert.ok(got.items.length > 0);
  } finally {
    await store.close();
  }
});
