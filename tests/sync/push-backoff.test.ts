import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backOffWindow } from "../../src/sync/exchange.ts";

// A push that lost the race waits before it fetches again (sync/exchange.ts, Attempts.backOff): a
// random time within a window of 2^(losses-1) of its own measured pull-and-push cycles, so a burst
// of clones spreads out instead of all pulling and merging again at once. The window's bounds.
// (The effect is measured by scripts/bench-lib/sync-contention.ts: attempts and CPU per sync.)

describe("a lost push's back-off window", () => {
  test("doubles with each loss, from the sync's own cycle", () => {
    assert.equal(backOffWindow(800, 1, 120_000), 800);
    assert.equal(backOffWindow(800, 2, 120_000), 1_600);
    assert.equal(backOffWindow(800, 3, 120_000), 3_200);
  });

  test("a cycle counts as at least 100 ms, and a window is at most 30 s", () => {
    assert.equal(backOffWindow(3, 1, 120_000), 100);
    assert.equal(backOffWindow(20_000, 4, 120_000), 30_000);
  });

  test("never past what is left of the retry budget (nothing when it is spent)", () => {
    assert.equal(backOffWindow(5_000, 3, 7_000), 7_000);
    assert.equal(backOffWindow(5_000, 1, -2_000), 0);
  });
});
