import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memoryTerms, stem } from "../../src/core/recall-concepts.ts";
import { collapseNearDuplicates, leadAndNumber, NEAR_DUPLICATE, nearDuplicates, replacedWords, similarity, supersededAmong, type Statement } from "../../src/core/recall-rank.ts";
import { isNumber } from "../../src/core/recall-answer.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";

// Recall's shortcuts decide exactly as the plain comparisons they stand in for: the early way
// out of comparing two word sets that are no near-duplicates, the limit on near-duplicate groups, and the
// grouping of statements by what they say before a number.

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

describe("near-duplicate checks", () => {
  test("nearDuplicates is similarity > threshold, over sets at and around the threshold", () => {
    const rng = makeRng(20261127);
    const vocab = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x${(i * 7919) % 1000}`);
    let near = 0;
    let pairs = 0;
    for (let n = 1; n <= 48; n++) {
      for (let k = 0; k < 60; k++) {
        const a = new Set<string>();
        while (a.size < n) a.add(pick(rng, vocab));
        // b: a with a few words swapped, dropped or added (Jaccard near 0.85 for most sizes)
        const b = new Set(a);
        const swaps = Math.floor(rng() * 7);
        for (let s = 0; s < swaps; s++) {
          const r = rng();
          if (r < 0.4 && b.size > 1) b.delete([...b][Math.floor(rng() * b.size)]!);
          if (r > 0.3) b.add(pick(rng, vocab));
        }
        const want = similarity(a, b) > NEAR_DUPLICATE;
        assert.equal(nearDuplicates(a, b), want, `${[...a]} / ${[...b]}`);
        assert.equal(nearDuplicates(b, a), want);
        pairs++;
        if (want) near++;
      }
    }
    // both answers are well represented: the test would catch a bound that rules out too much
    assert.ok(near > pairs / 5 && near < (pairs * 4) / 5, `${near} of ${pairs}`);
  });
});

describe("near-duplicate groups with a limit", () => {
  test("the first `limit` groups, with the same ids folded in, as without a limit", () => {
    const rng = makeRng(7);
    const words = ["cache", "redis", "ttl", "keys", "evict", "hot", "cold", "tier", "lru", "shard"];
    for (let round = 0; round < 200; round++) {
      const items = Array.from({ length: 3 + Math.floor(rng() * 40) }, (_, i) => ({ id: `m${i}`, words: new Set(Array.from({ length: 6 + Math.floor(rng() * 3) }, () => pick(rng, words))) }));
      const limit = 1 + Math.floor(rng() * 8);
      const all = collapseNearDuplicates(items, (x) => x.words, (x) => x.id);
      const some = collapseNearDuplicates(items, (x) => x.words, (x) => x.id, limit);
      assert.deepEqual(some.map((g) => [g.item.id, g.collapsed]), all.slice(0, limit).map((g) => [g.item.id, g.collapsed]));
    }
  });
});

/** supersededAmong as it was, comparing every pair: what the grouped version must equal. */
function supersededPairwise(items: readonly Statement[]): Map<string, string> {
  const STATEMENTS = new Set(["decision", "fact", "preference", "pattern"]);
  const out = new Map<string, string>();
  const olderThan = (o: Statement, n: Statement) => o.created_at < n.created_at || (o.created_at === n.created_at && o.id < n.id);
  for (const n of items) {
    if (!STATEMENTS.has(n.type)) continue;
    const lead = leadAndNumber(n.content);
    if (lead) {
      for (const o of items) {
        if (o === n || !olderThan(o, n) || !STATEMENTS.has(o.type) || out.has(o.id)) continue;
        const other = leadAndNumber(o.content);
        if (other && other[0] === lead[0] && other[1] !== lead[1]) out.set(o.id, n.id);
      }
    }
    for (const phrase of replacedWords(n.content)) {
      const named = phrase.split(" ").map(stem);
      const need = Math.min(named.length, 2);
      for (const o of items) {
        if (o === n || !olderThan(o, n) || !STATEMENTS.has(o.type) || out.has(o.id)) continue;
        if (named.filter((w) => o.terms.stems.has(w)).length < need) continue;
        if (replacedWords(o.content).includes(phrase)) continue;
        out.set(o.id, n.id);
      }
    }
  }
  return out;
}

describe("superseded statements, grouped", () => {
  test("the same replacements as comparing every pair", () => {
    const rng = makeRng(42);
    const subjects = ["the free trial is", "the api timeout is", "the build cache keeps", "our sla promises"];
    const tools = ["sidekiq", "bullmq", "postgres", "mysql", "redis", "memcached"];
    const says = [
      () => `${pick(rng, subjects)} ${1 + Math.floor(rng() * 4) * 7} days`,
      () => `We moved from ${pick(rng, tools)} to ${pick(rng, tools)} for jobs.`,
      () => `Background jobs run on ${pick(rng, tools)} with ${pick(rng, tools)}.`,
      () => `Replacing ${pick(rng, tools)} with ${pick(rng, tools)} in the ${pick(rng, ["worker", "api"])}.`,
      () => `${pick(rng, subjects)} unknown for now`,
    ];
    let found = 0;
    for (let round = 0; round < 300; round++) {
      const items: Statement[] = Array.from({ length: 2 + Math.floor(rng() * 12) }, (_, i) => {
        const content = pick(rng, says)();
        return { id: `s${i}`, type: pick(rng, ["decision", "fact", "problem", "preference"]), created_at: Math.floor(rng() * 5), content, terms: memoryTerms(content, []) };
      });
      const want = supersededPairwise(items);
      assert.deepEqual([...supersededAmong(items)], [...want]);
      found += want.size;
    }
    assert.ok(found > 100, `${found}`);
  });
});

describe("numbers", () => {
  test("isNumber: ASCII digits only, or a number word (the regex asked only of a word that starts with a digit)", () => {
    for (const w of ["0", "7", "30", "2026", "one", "twelve", "dozen", "half"]) assert.equal(isNumber(w), true, w);
    for (const w of ["", "1a", "a1", "v2", "3.5", "-1", "١٢", "０", "ones", "twelfth", "zero"]) assert.equal(isNumber(w), false, w);
  });
});
