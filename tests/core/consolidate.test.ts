import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergedContent, mergedStrength, mergeMemories, primaryFirst, provenanceRelations, rewireRelations } from "../../src/core/consolidate.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import type { Relation } from "../../src/core/model/relation.ts";
import { createMemory, createRelation, type JsonObject } from "../../src/core/records.ts";
import { assertInvalid } from "../helpers/assert-error.ts";

// The merge rules of consolidation and the moving of relations (pure).

const idOf = (n: number) => `0192f4c8-6a1e-7c3a-9b1d-${n.toString(16).padStart(12, "0")}`;
const NEW = idOf(999);

function mem(n: number, fields: JsonObject): Memory {
  return createMemory({ created_at: 1000, last_used: 1000, ...fields }, idOf(n), { now: 1000, machine: "m", user: "u" });
}

let relSeq = 500;
const nextId = () => idOf(relSeq++);
const rel = (from: number | string, to: number | string, type: Relation["relation_type"] = "related", created = 1000, strength = 1) =>
  createRelation({ from: typeof from === "number" ? idOf(from) : from, to: typeof to === "number" ? idOf(to) : to, type, strength }, nextId(), created);

const ctx = { id: NEW, now: 5000, cohesion: 0.9, gist: (c: string) => `gist of ${c.length} chars` };

describe("merged content", () => {
  test("every text contained in the longest: the longest alone", () => {
    const out = mergedContent([
      mem(1, { content: "Use cursor pagination" }),
      mem(2, { content: "For list endpoints, use   CURSOR pagination keyed on created_at." }),
      mem(3, { content: "keyed on created_at" }),
    ]);
    assert.equal(out, "For list endpoints, use   CURSOR pagination keyed on created_at.");
  });

  test("otherwise the distinct texts, longest first, one paragraph each; a text inside a kept one adds nothing", () => {
    const out = mergedContent([
      mem(1, { content: "Short note on pagination." }),
      mem(2, { content: "A much longer note about cursor pagination for list endpoints." }),
      mem(3, { content: "A medium note on cursor pagination." }),
      mem(4, { content: "cursor pagination" }),
    ]);
    assert.equal(out, "A much longer note about cursor pagination for list endpoints.\n\nA medium note on cursor pagination.\n\nShort note on pagination.");
  });

  test("ties in length: the earlier memory first", () => {
    const members = [mem(2, { content: "bbbb", created_at: 900 }), mem(1, { content: "aaaa", created_at: 950 })];
    assert.deepEqual(primaryFirst(members).map((m) => m.content), ["bbbb", "aaaa"]);
  });
});

describe("merged strength", () => {
  test("max plus min(cohesion · n · 0.1, 0.5), at most 2.0", () => {
    assert.equal(mergedStrength([1.0, 1.5, 0.8], 0.9), 1.77);
    assert.equal(mergedStrength([1, 1], 1), 1.2);
    assert.equal(mergedStrength(Array(8).fill(1), 0.9), 1.5, "the bonus stops at 0.5");
    assert.equal(mergedStrength([1.9, 1], 0.9), 2, "never above 2.0");
  });
});

describe("mergeMemories", () => {
  test("labels unioned, earliest created, latest use, summed counts, fresh gist, the rest from the primary", () => {
    const a = mem(1, {
      content: "Use cursor pagination for list endpoints in the public API",
      tags: ["api", "pagination"],
      entities: ["PostgreSQL"],
      created_at: 2000,
      last_used: 3000,
      use_count: 2,
      strength: 1,
      review_count: 1,
      type: "decision",
      importance: "low",
      gist: "old gist",
      embed: [0.1, 0.2],
      project: "billing",
      future_field: { kept: true },
    });
    const b = mem(2, {
      content: "We decided to use cursor-based pagination for all list endpoints of the public API",
      tags: ["api", "performance"],
      entities: ["postgresql", "Redis"],
      created_at: 1500,
      last_used: 2500,
      use_count: 3,
      strength: 1.5,
      type: "decision",
      importance: "high",
      confidence: 0.7,
      project: "billing",
      meta: { tags: ["api", "performance"], source: null, context: "review", extra: { ticket: 12 } },
    });
    const c = mem(3, { content: "Cursor pagination for list endpoints (public API)", created_at: 1800, last_used: 4000, use_count: 1, strength: 0.8, type: "fact", project: "billing" });
    const m = mergeMemories([a, b, c], ctx);
    assert.equal(m.id, NEW);
    assert.equal(m.content, `${b.content}\n\n${a.content}\n\n${c.content}`);
    assert.deepEqual(m.meta.tags, ["api", "performance", "pagination"]);
    assert.deepEqual(m.entities, ["postgresql", "Redis"]);
    assert.equal(m.created_at, 1500);
    assert.equal(m.last_used, 4000);
    assert.equal(m.use_count, 6);
    assert.equal(m.review_count, 1);
    assert.equal(m.strength, 1.77);
    assert.equal(m.gist, `gist of ${m.content.length} chars`);
    assert.equal(m.embed, null);
    assert.equal(m.status, "active");
    assert.equal(m.type, "decision", "the type most members have");
    assert.equal(m.importance, "high", "the highest importance");
    assert.equal(m.confidence, 0.7);
    assert.equal(m.meta.context, "review");
    assert.deepEqual(m.meta.extra, { ticket: 12 });
    assert.equal(m.updated_at, 5000);
    assert.equal(m.project, "billing");
    assert.deepEqual((m as JsonObject).future_field, { kept: true }, "fields memsync does not know survive");
  });

  test("texts that lost a content conflict are kept; promoted or archived state is not carried over", () => {
    const a = mem(1, { content: "one note", content_conflicts: [{ content: "older text", updated_at: 10, machine: "x" }] });
    const b = mem(2, { content: "one note too", status: "promoted", promoted_at: 20, promoted_to: "ltm/x.md" });
    const m = mergeMemories([a, b], ctx);
    assert.deepEqual(m.content_conflicts?.map((c) => c.content), ["older text"]);
    assert.equal(m.status, "active");
    assert.equal(m.promoted_to, null);
  });

  test("refuses what no valid memory could hold", () => {
    const big = "x".repeat(30_000);
    assertInvalid(() => mergeMemories([mem(1, { content: `a ${big}` }), mem(2, { content: `b ${big}` })], ctx), /over the limit of 50000/);
    assertInvalid(() => mergeMemories([mem(1, { content: "alone" })], ctx), /at least two/);
  });
});

describe("relations", () => {
  test("consolidated_from from the new memory to each source, with the cluster in the metadata", () => {
    const rels = provenanceRelations(NEW, [idOf(2), idOf(1)], { clusterId: "abcdef012345", cohesion: 0.91 }, nextId, 5000);
    assert.deepEqual(
      rels.map((r) => [r.from_memory_id, r.to_memory_id, r.relation_type, r.metadata]),
      [
        [NEW, idOf(1), "consolidated_from", { cluster_id: "abcdef012345", cluster_cohesion: 0.91 }],
        [NEW, idOf(2), "consolidated_from", { cluster_id: "abcdef012345", cluster_cohesion: 0.91 }],
      ],
    );
  });

  test("rewiring: relations move to the new memory; none to itself; no (from, to, type) twice; provenance stays", () => {
    const sources = new Set([idOf(1), idOf(2)]);
    const outside = rel(7, 1, "related", 1000, 0.4); // 7 -> source 1
    const twin = rel(7, 2, "related", 1100, 0.9); // 7 -> source 2: the same once moved
    const own = rel(1, 8, "causes"); // source 1 -> 8
    const between = rel(1, 2, "supports"); // source -> source: would be new -> new
    const provenance = rel(9, 2, "split_from"); // 9 replaced source 2 earlier: stays as it is
    const taken = rel(2, 6, "USES"); // new -> 6 USES exists already elsewhere
    const plan = rewireRelations([outside, twin, own, between, provenance, taken, outside], sources, NEW, (f, t, ty) => f === NEW && t === idOf(6) && ty === "USES");
    const moved = new Map(plan.moved.map((r) => [r.id, r]));
    assert.deepEqual([...moved.keys()].sort(), [outside.id, own.id].sort());
    assert.equal(moved.get(outside.id)!.to_memory_id, NEW);
    assert.equal(moved.get(outside.id)!.strength, 0.9, "the kept one takes the largest strength");
    assert.equal(moved.get(own.id)!.from_memory_id, NEW);
    assert.deepEqual(
      plan.dropped.sort((a, b) => (a.id < b.id ? -1 : 1)),
      [
        { id: twin.id, reason: "duplicate" },
        { id: between.id, reason: "self" },
        { id: taken.id, reason: "duplicate" },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    assert.deepEqual(plan.kept, [provenance.id]);
  });
});
