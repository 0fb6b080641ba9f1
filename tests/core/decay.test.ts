import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DECAY_MODELS,
  DEFAULT_DECAY,
  DEFAULT_SCORING,
  type DecaySettings,
  halfLifeDays,
  powerLawT0,
  promotionCheck,
  retention,
  reviewPriority,
  scoreMemory,
  scoringSettingsFrom,
  timeUntilThreshold,
} from "../../src/core/decay.ts";

// The decay score: CortexGraph's reference figures, every model honoured, the time until a
// threshold exact for each, review priority and promotion.

const DAY = 86_400;
const NOW = 1_790_000_000;
const exponential: DecaySettings = { ...DEFAULT_DECAY, model: "exponential" };
const at = (daysAgo: number, use_count = 0, strength = 1) => ({ use_count, strength, last_used: NOW - daysAgo * DAY });
const close = (actual: number, expected: number, digits: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 0.5 * 10 ** -digits, `${what}: ${actual} is not ${expected} to ${digits} decimals`);

describe("decay score, exponential model (CortexGraph reference values)", () => {
  test("fresh and reinforced: use 0 → 1.0, use 1 → 1.5157, use 5 → 2.9302", () => {
    close(scoreMemory(at(0), NOW, exponential), 1.0, 10, "use 0");
    close(scoreMemory(at(0, 1), NOW, exponential), 1.5157, 4, "use 1");
    close(scoreMemory(at(0, 5), NOW, exponential), 2.9302, 4, "use 5");
  });

  test("aging: 3 days → 0.50015, 12 days → 0.0626, 13 days → 0.0497 (under the forget threshold)", () => {
    close(scoreMemory(at(3), NOW, exponential), 0.50015, 5, "3 days");
    close(scoreMemory(at(12), NOW, exponential), 0.0626, 4, "12 days");
    close(scoreMemory(at(13), NOW, exponential), 0.0497, 4, "13 days");
    assert.ok(scoreMemory(at(12), NOW, exponential) > DEFAULT_SCORING.forget_threshold);
    assert.ok(scoreMemory(at(13), NOW, exponential) < DEFAULT_SCORING.forget_threshold);
  });

  test("strength multiplies; a last_used in the future counts as now", () => {
    close(scoreMemory(at(3, 0, 2), NOW, exponential), 1.0003, 4, "strength 2");
    assert.equal(scoreMemory({ use_count: 0, strength: 1, last_used: NOW + 500 }, NOW, exponential), 1);
  });
});

describe("every model is the one chosen", () => {
  test("power law is the default: half-life 3 days exactly, alpha 1.1, a heavier tail than exponential", () => {
    assert.equal(DEFAULT_DECAY.model, "power_law");
    close(scoreMemory(at(3), NOW), 0.5, 12, "power law at its half-life");
    const t0 = powerLawT0(DEFAULT_DECAY);
    close(scoreMemory(at(12), NOW), (1 + (12 * DAY) / t0) ** -1.1, 12, "power law formula at 12 days");
    assert.ok(scoreMemory(at(30), NOW) > scoreMemory(at(30), NOW, exponential) * 10, "heavy tail");
  });

  test("two-component: 0.7 fast (12 h) + 0.3 slow (7 d)", () => {
    const tc: DecaySettings = { ...DEFAULT_DECAY, model: "two_component" };
    const dt = 2 * DAY;
    close(retention(dt, tc), 0.7 * Math.exp(-1.603e-5 * dt) + 0.3 * Math.exp(-1.147e-6 * dt), 12, "formula");
    close(retention(7 * DAY, tc), 0.7 * 2 ** -14 + 0.3 * 0.5, 3, "a week: the slow share at its half-life");
  });

  test("the three models give three different scores for the same memory", () => {
    const scores = DECAY_MODELS.map((model) => scoreMemory(at(2, 3), NOW, { ...DEFAULT_DECAY, model }));
    assert.equal(new Set(scores.map((s) => s.toFixed(6))).size, 3, scores.join(", "));
  });

  test("retention starts at 1 and only falls, for every model", () => {
    for (const model of DECAY_MODELS) {
      const s = { ...DEFAULT_DECAY, model };
      assert.equal(retention(0, s), 1);
      let prev = 1;
      for (let d = 0.25; d < 400; d *= 1.5) {
        const r = retention(d * DAY, s);
        assert.ok(r < prev && r > 0, `${model} at ${d} days`);
        prev = r;
      }
    }
  });
});

describe("time until threshold agrees with the score", () => {
  const cases = [at(0), at(0, 5), at(2, 1, 1.5), at(9, 12), at(0.1, 0, 0.3)];
  for (const model of DECAY_MODELS) {
    test(`${model}: score at now + t is the threshold`, () => {
      const s = { ...DEFAULT_DECAY, model };
      for (const m of cases) {
        for (const threshold of [0.05, 0.25, 0.65]) {
          const t = timeUntilThreshold(m, NOW, threshold, s);
          if (scoreMemory(m, NOW, s) <= threshold) {
            assert.equal(t, 0);
            continue;
          }
          assert.ok(t > 0 && Number.isFinite(t));
          const there = scoreMemory(m, NOW + t, s);
          assert.ok(Math.abs(there - threshold) < 1e-9 * threshold + 1e-12, `${model} ${JSON.stringify(m)} → ${threshold}: score ${there} after ${t} s`);
          assert.ok(scoreMemory(m, NOW + t * 0.999, s) > threshold && scoreMemory(m, NOW + t * 1.001, s) < threshold);
        }
      }
    });
  }

  test("exponential reference: a fresh unused memory crosses 0.05 between day 12 and day 13", () => {
    const days = timeUntilThreshold(at(0), NOW, 0.05, exponential) / DAY;
    assert.ok(days > 12 && days < 13, String(days));
  });

  test("already under: 0; a threshold of 0: never", () => {
    assert.equal(timeUntilThreshold(at(40), NOW, 0.05, exponential), 0);
    assert.equal(timeUntilThreshold(at(1), NOW, 0, exponential), Number.POSITIVE_INFINITY);
  });

  test("half-lives for display", () => {
    close(halfLifeDays(DEFAULT_DECAY), 3, 9, "power law");
    close(halfLifeDays(exponential), 3.0013, 4, "CortexGraph's lambda");
  });
});

describe("review priority", () => {
  test("peaks at 0.25 inside the 0.15..0.35 danger zone, 0 outside", () => {
    close(reviewPriority(0.2), 0.75, 9, "0.20");
    close(reviewPriority(0.25), 1, 9, "0.25");
    close(reviewPriority(0.3), 0.75, 9, "0.30");
    for (const s of [0, 0.1, 0.15, 0.35, 0.5, 1, 3]) assert.equal(reviewPriority(s), 0, String(s));
    close(reviewPriority(0.16), 0.19, 9, "near the edge");
    close(reviewPriority(0.45, { min: 0.4, max: 0.5 }), 1, 9, "another zone");
  });
});

describe("promotion", () => {
  const mem = (o: { daysAgo: number; uses: number; createdDaysAgo: number; status?: string }) => ({
    ...at(o.daysAgo, o.uses),
    created_at: NOW - o.createdDaysAgo * DAY,
    status: o.status ?? "active",
  });

  test("a fresh memory is not promoted for being new, however high it scores", () => {
    const v = promotionCheck(mem({ daysAgo: 0, uses: 0, createdDaysAgo: 0 }), NOW);
    assert.equal(v.score, 1);
    assert.equal(v.eligible, false);
    assert.equal(promotionCheck(mem({ daysAgo: 0, uses: 4, createdDaysAgo: 1 }), NOW).eligible, false, "4 uses are not enough");
  });

  test("reinforced: enough uses and a score still over the threshold", () => {
    const v = promotionCheck(mem({ daysAgo: 1, uses: 6, createdDaysAgo: 60 }), NOW);
    assert.deepEqual([v.eligible, v.reason], [true, "reinforced"]);
  });

  test("burst: enough uses within the window of its creation, even after a rest", () => {
    const v = promotionCheck(mem({ daysAgo: 12, uses: 5, createdDaysAgo: 13 }), NOW);
    assert.ok(v.score < 0.65);
    assert.deepEqual([v.eligible, v.reason], [true, "burst"]);
    assert.equal(promotionCheck(mem({ daysAgo: 12, uses: 5, createdDaysAgo: 20 }), NOW).eligible, false, "old and faded");
  });

  test("only active memories", () => {
    assert.equal(promotionCheck(mem({ daysAgo: 0, uses: 9, createdDaysAgo: 2, status: "promoted" }), NOW).eligible, false);
  });
});

describe("settings as .meta.json has them", () => {
  test("missing settings are the defaults; given ones are used; unusable ones fall back", () => {
    assert.deepEqual(scoringSettingsFrom(undefined), structuredClone(DEFAULT_SCORING));
    const s = scoringSettingsFrom({ decay: { model: "exponential", beta: 0.5, lambda: -1 }, forget_threshold: 0.1, promote: { min_uses: 3 }, danger_zone: "x" });
    assert.equal(s.decay.model, "exponential");
    assert.equal(s.decay.beta, 0.5);
    assert.equal(s.decay.lambda, DEFAULT_DECAY.lambda);
    assert.equal(s.forget_threshold, 0.1);
    assert.deepEqual(s.promote, { threshold: 0.65, min_uses: 3, window_days: 14 });
    assert.deepEqual(s.danger_zone, DEFAULT_SCORING.danger_zone);
    assert.equal(scoringSettingsFrom({ decay: { model: "linear" } }).decay.model, "power_law");
  });
});
