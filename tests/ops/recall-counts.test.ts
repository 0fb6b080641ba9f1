import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { COMMON_SHARE, discriminating, matchAll, matchAny } from "../../src/core/recall-rank.ts";
import { createMemory } from "../../src/core/records.ts";
import { rarestWithin } from "../../src/ops/recall.ts";
import { type Counted, type CountUpTo, everyWordHeldWhole, narrowingTerms, presentTerms, reachedByOneWord, stopsBelow } from "../../src/ops/recall-counts.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// recall counts no further than its choices need (ops/recall-counts.ts): a query's count stops
// when one word alone reaches it, and a phrase is counted to the full bound only when the choice
// of the rarest terms could reach it. Each must give the answer the full count gives: checked on
// a real index, against counting everything.

const T0 = 1_790_000_000;
/** Words drawn with falling weights, so counts spread from a few to most of the store. */
const VOCAB = "connection connections timeout retried retry billing worker nightly batch postgres redis kafka replica migration cache queue kestrel codename".split(" ");
const ABSENT = ["cockroachdb", "neo4j", "optimistic locking", "planetscale"];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

async function storeOf(r: () => number, n: number): Promise<Store> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const store = await Store.open(root);
  await store.write((tx) => {
    for (let i = 0; i < n; i++) {
      const words = Array.from({ length: 3 + Math.floor(r() * 12) }, () => VOCAB[Math.floor(r() ** 2 * VOCAB.length)]!);
      const m = createMemory({ content: words.join(" ") }, newId(), { now: T0 + i, machine: "m", user: null });
      tx.putMemory({ ...m, status: i % 5 === 0 ? "archived" : "active" });
    }
  });
  return store;
}

const filter = { statuses: ["active", "promoted"] };

/** recall's count on the store, with how many calls it was asked since the last reset. */
function countingCalls(store: Store): { count: CountUpTo; calls: () => number; asked: () => { match: string; upTo: number }[]; reset: () => void } {
  let asked: { match: string; upTo: number }[] = [];
  const count: CountUpTo = (match, upTo, filtered) => {
    asked.push({ match, upTo });
    return store.countMatches(match, filtered ? filter : {}, upTo);
  };
  return { count, calls: () => asked.length, asked: () => asked, reset: () => (asked = []) };
}

/** A round's bounds: the walk's atMost, the full count's cap, and a probe below or past it. */
function boundsOf(r: () => number): { atMost: number; cap: number; probe: number } {
  const atMost = 20 + Math.floor(r() * 500);
  const cap = atMost + 1;
  return { atMost, cap, probe: 1 + Math.floor(r() * cap * 1.2) };
}

/** Each phrase any memory holds, counted to the cap: as recall counted them before it probed. */
async function phrasesToCap(store: Store, phrases: readonly string[], cap: number): Promise<Counted[]> {
  const out: Counted[] = [];
  for (const p of phrases) {
    const df = await store.countMatches(`"${p}"`, {}, cap);
    if (df > 0) out.push({ match: `"${p}"`, df });
  }
  return out;
}

/**
 * `rounds` random rounds on a store of 600 memories, each with random bounds; each round says
 * whether it decided early (at the probe) or counted on: both ways must be taken.
 */
async function bothWays(seed: number, rounds: number, one: (o: { store: Store; r: () => number; round: number; atMost: number; cap: number; probe: number } & ReturnType<typeof countingCalls>) => Promise<boolean>): Promise<void> {
  const r = rng(seed);
  const store = await storeOf(r, 600);
  try {
    const counting = countingCalls(store);
    let early = 0;
    for (let round = 0; round < rounds; round++) {
      const bounds = boundsOf(r);
      if (await one({ store, r, round, ...bounds, ...counting })) early++;
    }
    assert.ok(early > 10 && rounds - early > 10, `${early} decided early, ${rounds - early} counted on`);
  } finally {
    store.close();
  }
}

test("the present terms choose what counting every phrase to the bound chooses, counting less when they can", async () => {
  await bothWays(5, 120, async ({ store, r, round, atMost, cap, probe, count, calls, reset }) => {
    const words: Counted[] = [];
    for (const w of VOCAB) if (r() < 0.15) words.push({ match: matchAny([w]), df: await store.countMatches(matchAny([w]), {}, 10_000) });
    const phrases = [...VOCAB, ...ABSENT, "billing worker", "nightly batch"].filter(() => r() < 0.4);
    // counting every phrase to the bound, as recall did
    const full: Counted[] = [...words, ...(await phrasesToCap(store, phrases, cap))];
    reset();
    const present = await presentTerms(words, phrases, atMost, cap, probe, count);
    assert.deepEqual(rarestWithin(present, atMost), rarestWithin(full, atMost), `round ${round}: atMost ${atMost}, probe ${probe}`);
    assert.deepEqual(present.map((t) => t.match), full.map((t) => t.match), "the same terms, in the same order");
    // left at the probe, not counted on
    return calls() === phrases.length && present.some((t, i) => t.df !== full[i]!.df);
  });
});

test("the narrowed search's terms choose what counting every word to the share's bound chooses, leaving out words they cannot reach", async () => {
  await bothWays(11, 150, async ({ store, r, round, atMost, cap, probe, count, asked, reset }) => {
    // the store's size as recall passes it: only the share's bound (size * COMMON_SHARE) depends on it
    const size = 300 + Math.floor(r() * 3000);
    const words = [...VOCAB, "cockroachdb"].filter(() => r() < 0.25);
    const phrases = [...VOCAB, ...ABSENT, "billing worker", "nightly batch"].filter(() => r() < 0.3);
    // as recall did: every word counted to the share's bound, every phrase to the cap
    const common = Math.floor(size * COMMON_SHARE) + 1;
    const df = new Map<string, number>();
    for (const w of words) df.set(w, await store.countMatches(matchAny([w]), {}, common));
    const full: Counted[] = [...discriminating(df, size).flatMap((w) => (df.get(w)! > 0 ? [{ match: matchAny([w]), df: df.get(w)! }] : [])), ...(await phrasesToCap(store, phrases, cap))];
    reset();
    const present = await narrowingTerms(words, phrases, size, atMost, cap, probe, count);
    assert.deepEqual(rarestWithin(present, atMost), rarestWithin(full, atMost), `round ${round}: atMost ${atMost}, probe ${probe}, size ${size}`);
    // a word left out: decided at the probe, without counting it on
    return present.length < full.length && asked().every((a) => a.upTo <= probe);
  });
});

test("a word whose whole form reaches the bound is not counted as a prefix; one short of it is", async () => {
  const r = rng(23);
  const store = await storeOf(r, 600);
  try {
    const { count, asked, reset } = countingCalls(store);
    const size = 600;
    const common = Math.floor(size * COMMON_SHARE) + 1;
    // "connection" whole reaches the share's bound; "kestrel" (drawn least) does not
    const whole = await store.countMatches(`"connection"`, {}, common);
    const rare = await store.countMatches(`"kestrel"`, {}, common);
    assert.ok(whole >= common && rare < common && rare > 0, `connection ${whole}, kestrel ${rare}, bound ${common}`);
    for (const probe of [common + 1_000, 30]) {
      reset();
      const present = await narrowingTerms(["connection", "kestrel"], [], size, 100_000, 100_001, probe, count);
      const df = new Map([
        ["connection", await store.countMatches(`"connection"*`, {}, common)],
        ["kestrel", await store.countMatches(`"kestrel"*`, {}, common)],
      ]);
      const full = discriminating(df, size).map((w) => ({ match: matchAny([w]), df: df.get(w)! }));
      assert.deepEqual(present, full, `probe ${probe}`);
      const matches = asked().map((a) => a.match);
      assert.ok(!matches.includes(`"connection"*`), `the prefix counted though the whole word reached the bound: ${matches.join(", ")}`);
      if (probe > common) assert.ok(matches.includes(`"kestrel"*`), "a word short of the bound is counted as its prefix");
    }
  } finally {
    store.close();
  }
});

test("stopsBelow: the walk ends before a term counted probe or more can fit, and not otherwise", () => {
  const t = (df: number) => ({ match: String(df), df });
  // 300 + 500 fit within 1000; 400 more would not (stops among the counted ones)
  assert.equal(stopsBelow([t(500), t(300), t(400), t(5000)], 1000, 600), true);
  // 300 + 500 = 800 taken; a term counted 600 or more (the probe) may fit within 2000: not decided
  assert.equal(stopsBelow([t(500), t(300), t(5000)], 2000, 600), false);
  // one counted 1201 or more no longer fits
  assert.equal(stopsBelow([t(500), t(300), t(5000)], 2000, 1201), true);
  // nothing below the probe: the rarest is always taken, whatever its count: not decided
  assert.equal(stopsBelow([t(5000), t(9000)], 1000, 2000), false);
  assert.equal(stopsBelow([], 1000, 2000), false);
});

/**
 * On a real index, random word sets and bounds: whenever `reaches` says the query (`queryOf` the
 * words) has `upTo` filtered matches, counting it up to `upTo` gives `upTo`; both answers taken.
 */
async function checkReached(
  store: Store,
  r: () => number,
  o: { rounds: number; share: number; most: number; queryOf: (words: string[]) => string; reaches: (words: string[], upTo: number, count: CountUpTo) => Promise<boolean> },
): Promise<void> {
  const count: CountUpTo = (match, upTo, filtered) => store.countMatches(match, filtered ? filter : {}, upTo);
  let reached = 0;
  let not = 0;
  for (let round = 0; round < o.rounds; round++) {
    const words = VOCAB.filter(() => r() < o.share);
    if (words.length === 0) continue;
    const upTo = 1 + Math.floor(r() * o.most);
    const query = o.queryOf(words);
    const full = await store.countMatches(query, filter, upTo);
    if (await o.reaches(words, upTo, count)) {
      reached++;
      assert.equal(full, upTo, `${query} up to ${upTo}`);
    } else not++;
  }
  assert.ok(reached > 5 && not > 5, `${reached} reached, ${not} not`);
}

test("one word reaching the bound means the query's count reaches it: whole words match within their prefix", async () => {
  const r = rng(9);
  const store = await storeOf(r, 500);
  try {
    await checkReached(store, r, { rounds: 60, share: 0.25, most: 400, queryOf: matchAny, reaches: reachedByOneWord });
    // the porter stem of a whole word and of its prefix form: every match of the first is one of the second
    for (const w of ["connection", "connections", "retried", "timeout"]) {
      const whole = await store.countMatches(`"${w}"`, {}, 100_000);
      const both = await store.countMatches(`"${w}" AND "${w}"*`, {}, 100_000);
      assert.ok(whole > 0);
      assert.equal(both, whole, w);
    }
  } finally {
    store.close();
  }
});

test("a word with fewer matches than the bound in every memory is not counted through the filter", async () => {
  const r = rng(29);
  const store = await storeOf(r, 500);
  try {
    const { count, asked, reset } = countingCalls(store);
    for (const w of ["kestrel", "connection"]) {
      const all = await store.countMatches(`"${w}"`, {}, 100_000);
      const passing = await store.countMatches(`"${w}"`, filter, 100_000);
      for (const upTo of [all + 1, passing, Math.max(1, passing - 1)]) {
        reset();
        const reached = await reachedByOneWord([w], upTo, count);
        assert.equal(reached, passing >= upTo, `${w} to ${upTo}: ${passing} pass of ${all}`);
        // the filtered count (which reads each match's memory row) only when every memory's count reaches the bound
        assert.equal(asked().length, all >= upTo ? 2 : 1, `${w} to ${upTo}: ${JSON.stringify(asked())}`);
      }
    }
  } finally {
    store.close();
  }
});

test("every word whole reaching the bound means the every-word query's count reaches it", async () => {
  const r = rng(11);
  const store = await storeOf(r, 500);
  try {
    await checkReached(store, r, { rounds: 80, share: 0.12, most: 60, queryOf: matchAll, reaches: async (words, upTo, count) => (await everyWordHeldWhole(words, upTo, count)) >= upTo });
  } finally {
    store.close();
  }
});
