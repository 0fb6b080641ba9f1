import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { COUNTED_FIELDS, type CountedField, increment, inheritedStreams, mergeStreams, streamsOf, withStreams } from "../../src/core/counters.ts";
import { carryUsage, type JsonObject, mergeMemory } from "../../src/core/merge/record-merge.ts";
import { type Memory, MemorySchema, memoryToJson } from "../../src/core/model/memory.ts";
import { parseWith } from "../../src/core/model/validate.ts";
import { mergeMemories } from "../../src/core/consolidate.ts";
import { createMemory, touchMemory, updateMemory } from "../../src/core/records.ts";
import { splitMemory } from "../../src/core/split.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";

// Properties of the record merge over random histories (a seeded generator: every run sees the
// same cases, a failure names its seed). Each replica of a memory is a copy evolved from a common
// base by random touches, reviews and label edits on its own stream; the merge must give the
// same bytes whichever side asks, the same counts and label sets in whatever order three
// replicas meet, nothing new when a side is the base or already merged, and exactly base + every
// increment in the totals: two uses in the same second on two machines are two uses.

const ID = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
const SOURCE_A = "0192f4c8-0000-7000-8000-00000000000a";
const SOURCE_B = "0192f4c8-0000-7000-8000-00000000000b";
const TAGS = ["api", "db", "cache", "auth", "queue", "ops", "ui", "perf"];
const ENTITIES = ["Redis", "PostgreSQL", "Kafka", "nginx", "Docker", "Bun"];
const CASES = 250;

const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const some = <T>(r: Rng, xs: readonly T[]): T[] => xs.filter(() => r() < 0.3);

type Tally = Record<CountedField, number>;
const zero = (): Tally => ({ use_count: 0, review_count: 0, cross_domain_count: 0 });

const json = (m: Memory | JsonObject): JsonObject => JSON.parse(memoryToJson(m as Memory)) as JsonObject;
const bytes = (v: JsonObject): string => memoryToJson(v as unknown as Memory);

function valid(v: JsonObject, why: string): Memory {
  const r = parseWith(MemorySchema, v);
  assert.ok(r.ok, `${why}: the merge gave an invalid memory: ${r.ok ? "" : r.problem}`);
  return r.value;
}

function merge(base: JsonObject | null, a: JsonObject, b: JsonObject): JsonObject {
  return json(valid(mergeMemory(base, a, b).value, "merge"));
}

/** A base as files are found: old (a total only) or already counted on some streams. */
function baseMemory(r: Rng): Memory {
  let m = createMemory(
    { content: "Use cursor pagination", use_count: int(r, 0, 4), review_count: int(r, 0, 2), meta: { tags: some(r, TAGS) }, entities: some(r, ENTITIES) },
    ID,
    { now: 1000, machine: "base", user: null },
  );
  for (let i = int(r, 0, 3); i > 0; i--) m = touchMemory(m, 1000, false, pick(r, ["old.00000001", "old.00000002"]));
  if (r() < 0.3) m = increment(m, "review_count", "old.00000001");
  return m;
}

/** A replica: the base after a few random operations of one checkout (its stream). */
function evolve(r: Rng, base: Memory, stream: string, tally: Tally, clock: { now: number }): Memory {
  let m = base;
  for (let i = int(r, 0, 5); i > 0; i--) {
    const now = (clock.now += int(r, 0, 2)); // often the same second as another replica
    const op = r();
    if (op < 0.45) {
      m = touchMemory(m, now, r() < 0.3, stream);
      tally.use_count++;
    } else if (op < 0.55) {
      m = increment(m, "review_count", stream);
      tally.review_count++;
    } else if (op < 0.6) {
      m = increment(m, "cross_domain_count", stream);
      tally.cross_domain_count++;
    } else if (op < 0.7) {
      m = updateMemory(m, {}, now, { addTags: [pick(r, TAGS)] }).memory;
    } else if (op < 0.8) {
      m = updateMemory(m, {}, now, { removeTags: [pick(r, TAGS)] }).memory;
    } else if (op < 0.87) {
      m = updateMemory(m, {}, now, { addEntities: [pick(r, ENTITIES)] }).memory;
    } else if (op < 0.94) {
      m = updateMemory(m, {}, now, { removeEntities: [pick(r, ENTITIES)] }).memory;
    } else {
      m = updateMemory(m, { content: `Use cursor pagination (${stream} at ${now})` }, now).memory;
    }
  }
  return m;
}

function world(seed: number, replicas = 3) {
  const r = makeRng(seed);
  const base = baseMemory(r);
  const tally = zero();
  const clock = { now: 2000 };
  const sides = Array.from({ length: replicas }, (_, i) => json(evolve(r, base, `m${i}.${(seed * 7919 + i).toString(16).padStart(8, "0").slice(-8)}`, tally, clock)));
  return { base: json(base), sides, tally };
}

/** What associativity is about: the counts, their streams, and the label sets. */
function essence(v: JsonObject) {
  const sorted = (xs: unknown) => [...((xs as string[]) ?? [])].map((s) => s.toLowerCase()).sort();
  return {
    counts: Object.fromEntries(COUNTED_FIELDS.map((f) => [f, v[f]])),
    streams: Object.fromEntries(COUNTED_FIELDS.map((f) => [f, streamsOf(v, f)])),
    tags: sorted((v.meta as JsonObject).tags),
    entities: sorted(v.entities),
    last_used: v.last_used,
  };
}

function expectTotals(v: JsonObject, base: JsonObject, tally: Tally, why: string): void {
  for (const f of COUNTED_FIELDS) {
    assert.equal(v[f], (base[f] as number) + tally[f], `${why}: ${f} is the base's plus every increment`);
    const s = streamsOf(v, f);
    assert.equal(Object.values(s).reduce((a, b) => a + b, 0), v[f], `${why}: ${f} is the sum of its streams`);
  }
}

describe("merge properties over random replicas (seeded)", () => {
  test("commutative: merge(b, x, y) and merge(b, y, x) are the same bytes, and valid", () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { base, sides } = world(seed, 2);
      const [x, y] = sides as [JsonObject, JsonObject];
      assert.equal(bytes(merge(base, x, y)), bytes(merge(base, y, x)), `seed ${seed}`);
      assert.equal(bytes(merge(null, x, y)), bytes(merge(null, y, x)), `seed ${seed}: add/add`);
    }
  });

  test("associative on counts and label sets: three replicas in any order", () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { base, sides, tally } = world(seed, 3);
      const [x, y, z] = sides as [JsonObject, JsonObject, JsonObject];
      const orders = [
        merge(base, merge(base, x, y), z),
        merge(base, x, merge(base, y, z)),
        merge(base, merge(base, x, z), y),
        merge(base, z, merge(base, y, x)),
      ];
      for (const o of orders.slice(1)) assert.deepEqual(essence(o), essence(orders[0]!), `seed ${seed}`);
      for (const o of orders) expectTotals(o, base, tally, `seed ${seed}`);
    }
  });

  test("the base is an identity, merging twice adds nothing, and the totals are exact", () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const { base, sides, tally } = world(seed, 2);
      const [x, y] = sides as [JsonObject, JsonObject];
      assert.equal(bytes(merge(base, base, x)), bytes(x), `seed ${seed}: merge(b, b, x) = x`);
      assert.equal(bytes(merge(base, x, base)), bytes(x), `seed ${seed}: merge(b, x, b) = x`);
      assert.equal(bytes(merge(base, x, x)), bytes(x), `seed ${seed}: merge(b, x, x) = x`);
      const xy = merge(base, x, y);
      expectTotals(xy, base, tally, `seed ${seed}`);
      // a side merged again (a second sync, a criss-cross) changes no count and no label set
      assert.deepEqual(essence(merge(base, x, xy)), essence(xy), `seed ${seed}: merge(b, x, merge(b, x, y))`);
      assert.deepEqual(essence(merge(base, xy, y)), essence(xy), `seed ${seed}: merge(b, merge(b, x, y), y)`);
      // the streams do not even need the right base: each takes its larger count
      for (const f of COUNTED_FIELDS) {
        assert.deepEqual(mergeStreams(streamsOf(x, f), streamsOf(xy, f), streamsOf(y, f)), streamsOf(xy, f), `seed ${seed}: ${f} with a later base`);
      }
    }
  });
});

describe("touches in the same second on two checkouts", () => {
  const m = createMemory({ content: "a memory", use_count: 2 }, ID, { now: 1000, machine: "m", user: null });

  test("write different files, and the merge keeps both uses", () => {
    const a = json(touchMemory(m, 5000, false, "laptop.1a2b3c4d"));
    const b = json(touchMemory(m, 5000, false, "laptop.9f8e7d6c"));
    assert.notEqual(bytes(a), bytes(b), "git sees two different files, so the merge runs");
    const merged = merge(json(m), a, b);
    assert.equal(merged.use_count, 4);
    assert.deepEqual(merged.counters, { use_count: { "~": 2, "laptop.1a2b3c4d": 1, "laptop.9f8e7d6c": 1 } });
    assert.equal(merged.last_used, 5000);
  });

  test("the file keeps use_count for its readers and lists the streams in key order", () => {
    let t = touchMemory(m, 5000, false, "b.00000002");
    t = touchMemory(t, 5001, false, "a.00000001");
    const text = memoryToJson(t);
    assert.match(text, /"use_count": 4,/);
    assert.ok(text.indexOf('"a.00000001"') < text.indexOf('"b.00000002"'));
    assert.ok(text.indexOf('"b.00000002"') < text.indexOf('"~"'));
  });
});

describe("old files (a total and no counters)", () => {
  const old = (over: JsonObject = {}): JsonObject => ({ id: ID, content: "x", created_at: 1000, last_used: 1000, updated_at: 1000, use_count: 3, ...over });

  test("load as a legacy part and merge with new files to the right totals", () => {
    const base = old();
    const touchedNew = json(touchMemory(valid(base, "old"), 2000, false, "vps.00c0ffee"));
    assert.deepEqual(touchedNew.counters, { use_count: { "~": 3, "vps.00c0ffee": 1 } });
    // an old memsync: bumps the total, knows no counters
    const touchedOld = old({ use_count: 5, last_used: 2100 });
    for (const [a, b] of [[touchedNew, touchedOld], [touchedOld, touchedNew]] as const) {
      const v = merge(base, a, b);
      assert.equal(v.use_count, 6, "3 + 1 new use + 2 old uses");
      assert.deepEqual(v.counters, { use_count: { "~": 5, "vps.00c0ffee": 1 } });
    }
    // two old writers with different counts add up, as before
    assert.equal(merge(base, old({ use_count: 5 }), old({ use_count: 4 })).use_count, 6);
    assert.equal(merge(null, old({ use_count: 1 }), old({ use_count: 2 })).use_count, 3, "add/add");
    // an old file merged with an old file gets no counters
    assert.equal(merge(base, old({ use_count: 5 }), old({ use_count: 4 })).counters, undefined);
  });

  test("an old memsync that kept the counters but bumped the total: the difference is legacy use", () => {
    const base = json(touchMemory(valid(old(), "old"), 2000, false, "a.00000001"));
    const bumped = { ...base, use_count: (base.use_count as number) + 2 };
    const touched = json(touchMemory(valid(base, "new"), 2000, false, "b.00000002"));
    const v = merge(base, bumped, touched);
    assert.equal(v.use_count, 4 + 2 + 1);
    assert.deepEqual(v.counters, { use_count: { "~": 5, "a.00000001": 1, "b.00000002": 1 } });
    // read alone, the bumped file says the same total with the difference made explicit
    assert.deepEqual(streamsOf(bumped, "use_count"), { "~": 5, "a.00000001": 1 });
  });

  test("three-way with old and new writers in any order: every increment counted", () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const r = makeRng(seed);
      const base = json(baseMemory(r));
      const tally = zero();
      const clock = { now: 2000 };
      const k1 = int(r, 1, 3);
      const k2 = k1 + int(r, 1, 2); // two old writers with the same count were always one (the old bug)
      const oldA = { ...base, use_count: (base.use_count as number) + k1 };
      const oldB = { ...base, use_count: (base.use_count as number) + k2 };
      const fresh = json(evolve(r, valid(base, "base"), `new.${seed.toString(16).padStart(8, "0")}`, tally, clock));
      const want = (base.use_count as number) + k1 + k2 + tally.use_count;
      for (const [x, y, z] of [[oldA, oldB, fresh], [fresh, oldA, oldB], [oldB, fresh, oldA]] as const) {
        assert.equal(merge(base, merge(base, x, y), z).use_count, want, `seed ${seed}`);
      }
    }
  });
});

describe("successors: consolidation, split and usage carried over", () => {
  const src = (id: string, over: JsonObject) => ({ id, content: `memory ${id.slice(-1)}`, created_at: 1000, last_used: 1000, updated_at: 1000, use_count: 0, ...over });

  test("a successor keeps each source's streams under the source id; qualified keys never nest", () => {
    const a = src(SOURCE_A, { use_count: 3, counters: { use_count: { "~": 1, "l.00000001": 2 } } });
    const b = src(SOURCE_B, { use_count: 4, counters: { use_count: { "x/l.00000001": 4 } } });
    assert.deepEqual(inheritedStreams([a, b], "use_count"), { [`${SOURCE_A}/~`]: 1, [`${SOURCE_A}/l.00000001`]: 2, "x/l.00000001": 4 });
    // two parts of one split consolidated again: their shared inherited stream is o's two uses,
    // held by both parts, counted once (it used to add up to 4)
    const p1 = src(SOURCE_A, { use_count: 2, counters: { use_count: { "o/s.00000001": 2 } } });
    const p2 = src(SOURCE_B, { use_count: 3, counters: { use_count: { "o/s.00000001": 3 } } });
    assert.deepEqual(inheritedStreams([p1, p2], "use_count"), { "o/s.00000001": 3 });
    // a memory restored beside its successor (its own streams, the successor's "<it>/<stream>")
    const restored = src(SOURCE_A, { use_count: 5, counters: { use_count: { "l.00000001": 5 } } });
    const successor = src(SOURCE_B, { use_count: 6, counters: { use_count: { [`${SOURCE_A}/l.00000001`]: 4, "m.00000002": 2 } } });
    assert.deepEqual(inheritedStreams([restored, successor], "use_count"), { [`${SOURCE_A}/l.00000001`]: 5, [`${SOURCE_B}/m.00000002`]: 2 });
  });

  test("consolidation and split write the qualified streams, totals as before", () => {
    const origin = { now: 1000, machine: null, user: null };
    let a = createMemory({ content: "Redis caches sessions", use_count: 1, review_count: 1 }, SOURCE_A, origin);
    a = touchMemory(a, 1100, false, "l.00000001");
    const b = touchMemory(createMemory({ content: "Redis caches sessions for the web app", use_count: 2 }, SOURCE_B, origin), 1200, false, "v.00000002");
    const merged = mergeMemories([a, b], { id: ID, now: 1300, cohesion: 0.9, gist: () => null });
    assert.equal(merged.use_count, a.use_count + b.use_count);
    assert.equal(merged.review_count, 1);
    assert.deepEqual(merged.counters, {
      use_count: { [`${SOURCE_A}/l.00000001`]: 1, [`${SOURCE_A}/~`]: 1, [`${SOURCE_B}/v.00000002`]: 1, [`${SOURCE_B}/~`]: 2 },
      review_count: { [`${SOURCE_A}/~`]: 1 },
    });
    const parts = splitMemory(merged, [{ content: "part one" }, { content: "part two" }], { ids: [SOURCE_A, SOURCE_B], now: 1400, gist: () => null, removing: true });
    for (const p of parts) {
      assert.equal(p.use_count, merged.use_count);
      assert.deepEqual(p.counters, merged.counters, "already qualified keys are kept as they are");
    }
  });

  test("a source touched on two machines while merged away elsewhere: each carry is idempotent, both add up", () => {
    const base = src(SOURCE_A, { use_count: 3, counters: { use_count: { "~": 1, "l.00000001": 2 } } });
    let successor: JsonObject = { ...src(ID, {}), last_used: 1500 };
    successor = withStreams(successor, "use_count", inheritedStreams([base, src(SOURCE_B, { use_count: 5 })], "use_count"));
    assert.equal(successor.use_count, 8);
    const onM1 = json(touchMemory(valid(base, "m1"), 2000, false, "m1.00000001"));
    const onM2 = json(touchMemory(touchMemory(valid(base, "m2"), 2000, false, "m2.00000002"), 2001, false, "m2.00000002"));
    const c1 = carryUsage(successor, SOURCE_A, base, onM1);
    const c2 = carryUsage(successor, SOURCE_A, base, onM2);
    assert.equal(c1.use_count, 9);
    assert.equal(c2.use_count, 10);
    assert.equal(c1.last_used, 2000);
    assert.deepEqual(carryUsage(c1, SOURCE_A, base, onM1), c1, "carried twice: nothing more");
    // the two machines' carried successors meet: every use counted once
    const both = merge(successor, c1, c2);
    assert.equal(both.use_count, 11);
    assert.equal(bytes(both), bytes(merge(successor, c2, c1)));
    // and a later carry of the first touch changes nothing
    assert.equal(carryUsage(both, SOURCE_A, base, onM1).use_count, 11);
  });

  test("a source with no uses when it was merged away: its later uses carried from different bases all count", () => {
    // the successor (made with counters) names none of the source's streams: it holds none of its
    // uses, so the source's own count is carried as it is (found by chaos seed 11: three touches of
    // a serve clone, carried by two merges from different bases, counted as one)
    const base = src(SOURCE_A, {});
    const other = src(SOURCE_B, { use_count: 2, counters: { use_count: { "l.00000001": 2 } } });
    const successor = withStreams({ ...src(ID, {}), last_used: 1500 } as JsonObject, "use_count", inheritedStreams([base, other], "use_count"));
    assert.equal(successor.use_count, 2);
    const t1 = json(touchMemory(valid(base, "m1"), 2000, false, "m1.00000001"));
    const t3 = json(touchMemory(touchMemory(valid(t1, "m1"), 2001, false, "m1.00000001"), 2002, false, "m1.00000001"));
    const once = carryUsage(successor, SOURCE_A, base, t1);
    assert.equal(once.use_count, 3);
    const twice = carryUsage(once, SOURCE_A, t1, t3);
    assert.equal(twice.use_count, 5, `all three uses of A, once each: ${JSON.stringify(twice.counters)}`);
    assert.equal(carryUsage(twice, SOURCE_A, base, t3).use_count, 5, "again: nothing more");
    assert.equal(bytes(merge(successor, once, twice)), bytes(merge(successor, twice, once)));
    assert.equal(merge(successor, once, twice).use_count, 5);
  });

  test("a successor made without counters gets the increments since the base, idempotently", () => {
    const base = src(SOURCE_A, { use_count: 3 });
    const successor = src(ID, { use_count: 10, last_used: 1200 });
    const t1 = json(touchMemory(valid(base, "m1"), 2000, false, "m1.00000001"));
    const old = { ...base, use_count: 5, last_used: 1800 };
    const c = carryUsage(carryUsage(successor, SOURCE_A, base, t1), SOURCE_A, base, old);
    assert.equal(c.use_count, 10 + 1 + 2);
    assert.equal(carryUsage(carryUsage(c, SOURCE_A, base, t1), SOURCE_A, base, old).use_count, 13, "again: nothing more");
    assert.equal(c.last_used, 2000);
  });
});

describe("updates to counts", () => {
  const m = createMemory({ content: "a memory", use_count: 2 }, ID, { now: 1000, machine: "m", user: null });

  test("a total may go up (the legacy part grows), never down; the counters map cannot be rewritten", () => {
    const t = touchMemory(m, 2000, false, "a.00000001");
    const up = updateMemory(t, { use_count: 7 }, 3000).memory;
    assert.equal(up.use_count, 7);
    assert.deepEqual(up.counters, { use_count: { "~": 6, "a.00000001": 1 } });
    assert.equal(up.updated_at, t.updated_at, "a count is not an edit");
    assert.throws(() => updateMemory(t, { use_count: 1 }, 3000), /use_count cannot go down/);
    assert.throws(() => updateMemory(t, { counters: { use_count: { "a.00000001": 9 } } }, 3000), /counters are kept by memsync/);
    assert.equal(updateMemory(t, { counters: t.counters, content: "edited" }, 3000).memory.use_count, 3, "the map as it is: fine");
  });

  test("a saved memory with counts given keeps them, its totals the sums", () => {
    const given = createMemory({ content: "x", use_count: 1, counters: { use_count: { "a.00000001": 3 } } }, ID, { now: 1, machine: null, user: null });
    assert.equal(given.use_count, 3, "the map is never below its total");
    const more = createMemory({ content: "x", use_count: 5, counters: { use_count: { "a.00000001": 3 } } }, ID, { now: 1, machine: null, user: null });
    assert.deepEqual(more.counters, { use_count: { "~": 2, "a.00000001": 3 } });
    assert.throws(() => createMemory({ content: "x", counters: { use_count: { "no spaces": 1 } } }, ID, { now: 1, machine: null, user: null }), /counters.use_count.no spaces is invalid/);
  });
});
