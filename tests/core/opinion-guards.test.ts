import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractWithOpinion } from "../../src/core/capture/extract.ts";
import { BUCKETS, type OpinionModel, type SentenceSeen, SHIPPED_OPINION, secondOpinion, TYPES } from "../../src/core/capture/second-opinion.ts";

// The rules' guards on a sentence the model might add (extract.ts guarded) are a dozen pattern
// scans: read only of a sentence the model would add. A short reply with no signal ("yes, go on")
// ran all of them, and compiled their patterns, for nothing (~4 ms of a cold hook, issue 16).

/** A model whose store probability is `bias`'s sigmoid for a sentence with feature 0, and ~0 for one without. */
function model(): OpinionModel {
  const store = new Int8Array(BUCKETS);
  store[0] = 100;
  return { storeBias: -20, store, storeScale: 0.5, typeBias: TYPES.map(() => 0), type: new Int8Array(TYPES.length * BUCKETS), typeScale: 1, addAt: 0.9, dropBelow: 0, retypeAt: 2 };
}

/** A skipped sentence whose guard counts its reads. */
function seen(likely: boolean, guardedAs: boolean, reads: number[], i: number): SentenceSeen {
  return {
    features: likely ? [0] : [1],
    capture: -1,
    rulesType: "",
    joined: false,
    get guarded() {
      reads[i] = (reads[i] ?? 0) + 1;
      return guardedAs;
    },
  };
}

describe("the model's second opinion reads a guard only of a sentence it would add", () => {
  test("no sentence likely enough: no guard read", () => {
    const reads: number[] = [];
    const v = secondOpinion(model(), [seen(false, false, reads, 0), seen(false, true, reads, 1)], 0);
    assert.equal(v.add, null);
    assert.deepEqual(reads, []);
  });

  test("a likely sentence that is guarded is not added; the next likely one is, each guard read once", () => {
    const reads: number[] = [];
    const v = secondOpinion(model(), [seen(true, true, reads, 0), seen(false, false, reads, 1), seen(true, false, reads, 2)], 0);
    assert.equal(v.add?.sentence, 2);
    assert.deepEqual([reads[0], reads[1], reads[2]], [1, undefined, 1]);
  });

  test("a guard read late says what it says read at once (a hook's extraction against the training script's)", () => {
    for (const text of ["yes, go on", "Maybe we should move the queue to Redis? Not sure yet.", "ok. the tests pass now. ship it", "we could try pgbouncer for the pool"]) {
      const late = extractWithOpinion(text, SHIPPED_OPINION, false);
      const now = extractWithOpinion(text, SHIPPED_OPINION, true);
      assert.deepEqual(late.extraction, now.extraction, text);
      assert.deepEqual(late.seen.map((s) => s.guarded), now.seen.map((s) => s.guarded), text);
    }
  });
});
