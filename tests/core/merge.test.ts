import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeSet } from "../../src/core/merge/json-merge.ts";
import { carryUsage, type JsonObject, mergeMemory, mergeRelation, mergeStoreMeta } from "../../src/core/merge/record-merge.ts";

// The semantic three-way merge of one record: each rule, and symmetry (both machines converge).

const ID = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";

function mem(over: JsonObject = {}): JsonObject {
  return {
    id: ID,
    content: "Use cursor pagination",
    gist: null,
    meta: { tags: ["api", "pagination"], source: null, context: null, extra: {} },
    created_at: 1000,
    last_used: 1000,
    use_count: 3,
    strength: 1,
    status: "active",
    entities: ["PostgreSQL"],
    review_count: 0,
    cross_domain_count: 0,
    type: "decision",
    updated_at: 1000,
    captured_by: { user: null, machine: "base", agent: null, session: null },
    ...over,
  };
}

function both(base: JsonObject | null, a: JsonObject, b: JsonObject) {
  const ab = mergeMemory(base, a, b);
  const ba = mergeMemory(base, b, a);
  assert.deepEqual(ab.value, ba.value, "merging either way round gives the same record");
  return ab;
}

describe("mergeMemory", () => {
  test("both touched: increments add up, the later use wins", () => {
    const base = mem();
    const r = both(base, mem({ use_count: 5, last_used: 1500 }), mem({ use_count: 4, last_used: 1200, review_count: 2 }));
    assert.equal(r.value.use_count, 6);
    assert.equal(r.value.last_used, 1500);
    assert.equal(r.value.review_count, 2);
    assert.deepEqual(r.conflicts, []);
  });

  test("tags and entities: union minus what either side removed", () => {
    const base = mem();
    const r = both(base, mem({ meta: { ...(mem().meta as JsonObject), tags: ["pagination", "cursor"] }, entities: ["PostgreSQL", "Redis"] }), mem({ meta: { ...(mem().meta as JsonObject), tags: ["api", "pagination", "db"] }, entities: [] }));
    assert.deepEqual((r.value.meta as JsonObject).tags, ["pagination", "cursor", "db"]);
    assert.deepEqual(r.value.entities, ["Redis"]);
  });

  test("a field changed on one side takes that side; strength takes the larger", () => {
    const base = mem();
    const r = both(base, mem({ type: "pattern", strength: 1.3 }), mem({ project: "shop", strength: 1.1 }));
    assert.equal(r.value.type, "pattern");
    assert.equal(r.value.project, "shop");
    assert.equal(r.value.strength, 1.3);
  });

  test("content edited on both sides: the later edit wins and the other text is kept", () => {
    const base = mem();
    const a = mem({ content: "Use cursor pagination everywhere", updated_at: 2000, captured_by: { machine: "laptop" } });
    const b = mem({ content: "Use keyset pagination", updated_at: 2100, gist: "keyset", captured_by: { machine: "vps" } });
    const r = both(base, a, b);
    assert.equal(r.value.content, "Use keyset pagination");
    assert.equal(r.value.gist, "keyset");
    assert.deepEqual(r.value.content_conflicts, [{ content: "Use cursor pagination everywhere", updated_at: 2000, machine: "laptop" }]);
    assert.deepEqual(r.conflicts.map((c) => c.field).sort(), ["captured_by.machine", "content"]);
    // a later merge with a third text keeps both losers
    const c = mem({ content: "Use offset pagination", updated_at: 1900 });
    const r2 = both(base, r.value, c);
    assert.equal(r2.value.content, "Use keyset pagination");
    assert.deepEqual((r2.value.content_conflicts as JsonObject[]).map((x) => x.content).sort(), ["Use cursor pagination everywhere", "Use offset pagination"]);
  });

  test("a content clash: the decision and fingerprint read from the text go with the text that wins", () => {
    const base = mem({ decision: { what: "cursor pagination", why: null, alternatives: [], constraints: [], tradeoffs: [] }, fingerprint: "decision:cursor pagination" });
    const a = mem({ content: "Use offset pagination", updated_at: 2000, decision: { what: "offset pagination", why: "simple", alternatives: [], constraints: [], tradeoffs: [] }, fingerprint: "decision:offset pagination" });
    const b = mem({ content: "Use keyset pagination", updated_at: 2100, decision: { what: "keyset pagination", why: null, alternatives: ["offset"], constraints: [], tradeoffs: [] }, fingerprint: "decision:keyset pagination" });
    const r = both(base, a, b).value;
    assert.equal(r.content, "Use keyset pagination");
    assert.deepEqual(r.decision, b.decision, "not the winner's what with the loser's why");
    assert.equal(r.fingerprint, "decision:keyset pagination");
  });

  test("a text settled on one side (resolve) stays settled though the other side touched the memory meanwhile", () => {
    const conflicted = mem({ content: "Use keyset pagination", updated_at: 2100, content_conflicts: [{ content: "Use offset pagination", updated_at: 2000, machine: "laptop" }] });
    const resolved = mem({ content: "Use offset pagination", updated_at: 3000 });
    const touched = mem({ ...conflicted, use_count: 4, last_used: 2500 });
    const r = both(conflicted, resolved, touched).value;
    assert.equal(r.content, "Use offset pagination");
    assert.equal(r.content_conflicts, undefined);
    assert.equal(r.use_count, 4);
    // a new clash after the resolution is kept again
    const edited = mem({ ...conflicted, content: "Use seek pagination", updated_at: 2900 });
    const r2 = both(conflicted, resolved, edited).value;
    assert.equal(r2.content, "Use offset pagination");
    assert.deepEqual((r2.content_conflicts as JsonObject[]).map((c) => c.content), ["Use seek pagination"]);
  });

  test("the gist follows the content: a gist made meanwhile for the old text gives way to the new text's", () => {
    const base = mem({ content: "Old text about pagination", gist: null });
    const edited = mem({ content: "New text: use keyset pagination everywhere", gist: "keyset pagination everywhere", updated_at: 2000 });
    const backfilled = mem({ content: "Old text about pagination", gist: "old pagination text" });
    for (const [o, t] of [[edited, backfilled], [backfilled, edited]] as const) {
      const r = mergeMemory(base, o, t).value;
      assert.equal(r.content, "New text: use keyset pagination everywhere");
      assert.equal(r.gist, "keyset pagination everywhere");
    }
    // content changed, gist cleared on that side: no stale gist survives
    const cleared = mem({ content: "Short new text", gist: null, updated_at: 2000 });
    assert.equal(mergeMemory(base, cleared, backfilled).value.gist, null);
    // only a gist changed: it is kept
    assert.equal(mergeMemory(base, base, backfilled).value.gist, "old pagination text");
  });

  test("fields memsync does not know survive, merged key by key", () => {
    const base = mem({ x_future: { a: 1, b: 1 } });
    const r = both(base, mem({ x_future: { a: 2, b: 1 }, ours_only: true }), mem({ x_future: { a: 1, b: 3 }, theirs_only: [1] }));
    assert.deepEqual(r.value.x_future, { a: 2, b: 3 });
    assert.equal(r.value.ours_only, true);
    assert.deepEqual(r.value.theirs_only, [1]);
  });

  test("add/add of one id merges with an empty base", () => {
    const r = both(null, mem({ use_count: 2, meta: { tags: ["x"] } }), mem({ use_count: 1, meta: { tags: ["y"] } }));
    assert.equal(r.value.use_count, 3);
    assert.deepEqual((r.value.meta as JsonObject).tags, ["x", "y"]);
  });

  test("a status both sides changed differently goes to the later record, reported as a conflict", () => {
    const base = mem();
    const r = both(base, mem({ status: "archived", updated_at: 1200 }), mem({ status: "promoted", updated_at: 1300 }));
    assert.equal(r.value.status, "promoted");
    assert.deepEqual(r.conflicts.map((c) => c.field), ["status"]);
  });

  test("converges whatever the order of edits (symmetry over many cases)", () => {
    const variants: JsonObject[] = [
      mem(),
      mem({ use_count: 9, last_used: 3000 }),
      mem({ content: "A", updated_at: 1500 }),
      mem({ content: "B", updated_at: 1500 }),
      mem({ meta: { tags: ["z"] }, strength: 2 }),
      mem({ status: "archived", updated_at: 1400, x: 1 }),
      mem({ entities: ["redis", "Redis"], x: 2 }),
    ];
    for (const a of variants) for (const b of variants) both(mem(), a, b);
  });
});

describe("usage moved to a successor", () => {
  test("what one side added since the base is added to the successor", () => {
    const base = mem({ use_count: 3, last_used: 1000 });
    const touched = mem({ use_count: 5, last_used: 1800 });
    const succ = carryUsage(mem({ use_count: 10, last_used: 1200 }), "0192f4c8-0000-7000-8000-000000000001", base, touched);
    assert.equal(succ.use_count, 12);
    assert.equal(succ.last_used, 1800);
  });
});

describe("mergeRelation and mergeStoreMeta", () => {
  test("relation: strength takes the larger, metadata merges by key", () => {
    const base = { id: ID, from_memory_id: ID, to_memory_id: ID, relation_type: "related", strength: 0.5, created_at: 10, metadata: { a: 1 } };
    const r = mergeRelation(base, { ...base, strength: 0.9, metadata: { a: 1, b: 2 } }, { ...base, strength: 0.7, metadata: { a: 3 } });
    assert.equal(r.value.strength, 0.9);
    assert.deepEqual(r.value.metadata, { a: 3, b: 2 });
  });

  test(".meta.json: the later gc and consolidation times win", () => {
    const base = { storage_version: 2, created_at: 5, machine_id: "a", last_gc_at: null, last_consolidation_at: 100, migrated_from: null };
    const r = mergeStoreMeta(base, { ...base, last_gc_at: 200 }, { ...base, last_gc_at: 300, last_consolidation_at: 50 });
    assert.equal(r.value.last_gc_at, 300);
    assert.equal(r.value.last_consolidation_at, 100);
  });
});

describe("mergeSet", () => {
  test("keeps the base order, then additions sorted, de-duplicated by key", () => {
    assert.deepEqual(mergeSet(["b", "a"], ["b", "a", "y"], ["b", "a", "x", "y"]), ["b", "a", "x", "y"]);
    assert.deepEqual(mergeSet(["b", "a"], ["a"], ["b"]), []);
    assert.deepEqual(mergeSet([], ["Redis"], ["redis"], (s) => s.toLowerCase()), ["Redis"]);
  });
});

describe("limits", () => {
  test("a union of more than 50 tags keeps a valid record and reports what it left out", () => {
    const base = mem({ meta: { tags: [] } });
    const a = mem({ meta: { tags: Array.from({ length: 30 }, (_, i) => `a${String(i).padStart(2, "0")}`) } });
    const b = mem({ meta: { tags: Array.from({ length: 30 }, (_, i) => `b${String(i).padStart(2, "0")}`) } });
    const r = both(base, a, b);
    assert.equal(((r.value.meta as JsonObject).tags as string[]).length, 50);
    const note = r.conflicts.find((c) => c.field === "meta.tags");
    assert.equal((note?.lost as string[]).length, 10);
  });
});
