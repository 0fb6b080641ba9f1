import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import type { Relation } from "../../src/core/model/relation.ts";
import { createMemory, createRelation, type JsonObject } from "../../src/core/records.ts";
import { copyRelations, ideasOf, passages, SPLIT_SIGNALS, splitCandidates, splitMemory, splitRelations } from "../../src/core/split.ts";
import { assertInvalid } from "../helpers/assert-error.ts";

// Splitting a memory into atomic parts, and finding memories worth splitting (pure).

const idOf = (n: number) => `0192f4c8-6a1e-7c3a-9b1d-${n.toString(16).padStart(12, "0")}`;
const ORIGINAL = idOf(1);
const PARTS = [idOf(11), idOf(12), idOf(13)];

function mem(n: number, fields: JsonObject): Memory {
  return createMemory({ created_at: 1000, last_used: 2000, ...fields }, idOf(n), { now: 1000, machine: "m", user: "u" });
}

let seq = 500;
const nextId = () => idOf(seq++);
const rel = (from: string, to: string, type: Relation["relation_type"] = "related") => createRelation({ from, to, type }, nextId(), 1000);

const original = mem(1, {
  content: "We use Redis for sessions. Cache keys include the tenant id. The export times out after 30 s.",
  tags: ["redis", "caching", "export"],
  entities: ["Redis"],
  use_count: 7,
  strength: 1.4,
  review_count: 2,
  cross_domain_count: 4,
  type: "decision",
  decision: { what: "Redis for sessions", why: null },
  project: "web",
  gist: "old",
  embed: [1, 2],
  content_conflicts: [{ content: "earlier text", updated_at: 5, machine: "x" }],
  unknown_field: "survives",
});
const ctx = { ids: PARTS, now: 9000, gist: (c: string) => `gist: ${c.slice(0, 10)}`, removing: true };

describe("splitMemory", () => {
  test("parts inherit strength, use_count and created_at; last_used now; own gist; labels given or inherited", () => {
    const parts = splitMemory(
      original,
      [
        { content: "We use Redis for sessions." },
        { content: "Cache keys include the tenant id.", tags: ["caching", "Multi Tenant"] },
        { content: "The export times out after 30 s.", entities: ["Nightly Export"], fields: { type: "problem", importance: "high" } },
      ],
      ctx,
    );
    assert.deepEqual(parts.map((p) => p.id), PARTS);
    for (const p of parts) {
      assert.equal(p.strength, 1.4);
      assert.equal(p.use_count, 7);
      assert.equal(p.review_count, 2);
      assert.equal(p.created_at, 1000);
      assert.equal(p.last_used, 9000);
      assert.equal(p.updated_at, 9000);
      assert.equal(p.project, "web");
      assert.equal(p.status, "active");
      assert.equal(p.embed, null);
      assert.equal(p.decision, null);
      assert.equal(p.cross_domain_count, 0);
      assert.equal((p as JsonObject).unknown_field, "survives");
      assert.equal(p.gist, `gist: ${p.content.slice(0, 10)}`);
    }
    assert.deepEqual(parts[0]!.meta.tags, ["redis", "caching", "export"]);
    assert.deepEqual(parts[1]!.meta.tags, ["caching", "multi_tenant"]);
    assert.deepEqual(parts[2]!.entities, ["Nightly Export"]);
    assert.deepEqual(parts[0]!.entities, ["Redis"]);
    assert.equal(parts[2]!.type, "problem");
    assert.equal(parts[2]!.importance, "high");
    assert.equal(parts[0]!.type, "decision");
    // the text that lost a content conflict goes with the first part when the original goes
    assert.deepEqual(parts[0]!.content_conflicts?.map((c) => c.content), ["earlier text"]);
    assert.equal(parts[1]!.content_conflicts, undefined);
    const kept = splitMemory(original, [{ content: "a" }, { content: "b" }], { ...ctx, ids: PARTS.slice(0, 2), removing: false });
    assert.equal(kept[0]!.content_conflicts, undefined, "kept on the archived original instead");
  });

  test("refuses fewer than two parts, an empty part, and fields a part cannot set", () => {
    assertInvalid(() => splitMemory(original, [{ content: "one" }], { ...ctx, ids: PARTS.slice(0, 1) }), /at least two/);
    assertInvalid(() => splitMemory(original, [{ content: "one" }, { content: "  " }], { ...ctx, ids: PARTS.slice(0, 2) }), /part 2 is empty/);
    assertInvalid(() => splitMemory(original, [{ content: "one" }, { content: "two", fields: { use_count: 99 } }], { ...ctx, ids: PARTS.slice(0, 2) }), /use_count/);
    assertInvalid(() => splitMemory(original, [{ content: "one" }, { content: "two", fields: { status: "archived" } }], { ...ctx, ids: PARTS.slice(0, 2) }), /status/);
    assertInvalid(() => splitMemory(original, [{ content: "one" }, { content: "two", fields: { importance: "bogus" } }], { ...ctx, ids: PARTS.slice(0, 2) }), /part 2/);
  });
});

describe("split relations", () => {
  test("split_from from each part to the original, with split_index and total_splits", () => {
    const rels = splitRelations(PARTS, ORIGINAL, nextId, 9000);
    assert.deepEqual(
      rels.map((r) => [r.from_memory_id, r.to_memory_id, r.relation_type, r.metadata]),
      PARTS.map((p, i) => [p, ORIGINAL, "split_from", { split_index: i, total_splits: 3 }]),
    );
  });

  test("the original's relations are copied to every part and go; provenance naming it stays", () => {
    const out = rel(ORIGINAL, idOf(7), "causes");
    const inc = rel(idOf(8), ORIGINAL);
    const lineage = rel(ORIGINAL, idOf(6), "consolidated_from"); // the original was itself a merge
    const replaced = rel(idOf(9), ORIGINAL, "consolidated_from"); // something already replaced it
    const plan = copyRelations([out, inc, lineage, replaced, inc], ORIGINAL, PARTS, nextId);
    assert.deepEqual(plan.removed.sort(), [out.id, inc.id, lineage.id].sort());
    assert.deepEqual(plan.kept, [replaced.id]);
    const triples = plan.copies.map((r) => `${r.from_memory_id} ${r.to_memory_id} ${r.relation_type}`).sort();
    const expected = PARTS.flatMap((p) => [`${p} ${idOf(7)} causes`, `${idOf(8)} ${p} related`, `${p} ${idOf(6)} consolidated_from`]).sort();
    assert.deepEqual(triples, expected);
    assert.equal(new Set(plan.copies.map((r) => r.id)).size, plan.copies.length, "each copy is a new relation");
  });
});

describe("split candidates", () => {
  const long = [
    "We moved session storage to Redis because the connection count stays bounded under load and it runs three replicas.",
    "It also gave us a place for rate limiting counters.",
    "Cache keys for the public API include the tenant id and the API version, so a deploy never serves another tenant's cached page.",
    "The nightly export job times out after exactly thirty seconds when the warehouse is cold; the runbook has the restart steps.",
    "Frontend bundles are served with an immutable cache header and a content hash in the file name.",
  ].join(" ");

  test("passages are paragraphs or list items when there are several, else sentences", () => {
    assert.deepEqual(passages("One idea.\n\nAnother idea."), ["One idea.", "Another idea."]);
    assert.deepEqual(passages("Steps:\n- build the image\n- push it"), ["Steps:", "- build the image", "- push it"]);
    assert.deepEqual(passages("Use v1.2.3 of the client. Then restart it."), ["Use v1.2.3 of the client.", "Then restart it."]);
  });

  test("ideas: a sentence that refers back or shares words stays with the one before", () => {
    const ideas = ideasOf(long);
    assert.equal(ideas.length, 4);
    assert.match(ideas[0]!, /^We moved session storage.*rate limiting counters\.$/);
  });

  test("a long note of several ideas is a candidate, with its reasons and suggested parts; atomic notes are not", () => {
    const notes = [
      mem(1, { content: long }),
      mem(2, { content: "Use cursor pagination for list endpoints." }),
      mem(3, { content: "Tabs in Go files. Spaces in YAML.", tags: ["a", "b", "c", "d", "e", "f", "g"] }),
      mem(4, { content: "One long idea. ".repeat(60) }),
      mem(5, { content: "Redis for sessions. Postgres for billing.", cross_domain_count: 5 }),
    ];
    const found = splitCandidates(notes);
    assert.deepEqual(found.map((c) => c.id).sort(), [idOf(1), idOf(3), idOf(5)].sort());
    const first = found.find((c) => c.id === idOf(1))!;
    assert.deepEqual(first.reasons, ["4 distinct ideas", `long: ${[...long].length} characters`]);
    assert.equal(first.parts.length, 4);
    assert.equal(found[0]!.id, idOf(1), "more ideas and signals rank first");
    assert.deepEqual(found.find((c) => c.id === idOf(3))!.reasons, ["2 distinct ideas", "7 tags"]);
    assert.deepEqual(found.find((c) => c.id === idOf(5))!.reasons, ["2 distinct ideas", "used across 5 contexts (cross_domain_count)"]);
    assert.ok(SPLIT_SIGNALS.longChars <= [...long].length);
  });
});
