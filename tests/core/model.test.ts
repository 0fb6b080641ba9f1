import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { describe, test } from "node:test";
import { LIMITS } from "../../src/core/labels.ts";
import { type Memory, MemorySchema, memoryToJson } from "../../src/core/model/memory.ts";
import { RelationSchema, relationToJson } from "../../src/core/model/relation.ts";
import { StoreMetaSchema, storeMetaToJson } from "../../src/core/model/store-meta.ts";
import { parseWith } from "../../src/core/model/validate.ts";
import { createMemory, createRelation, touchMemory, updateMemory } from "../../src/core/records.ts";
import { assertInvalid } from "../helpers/assert-error.ts";

// The data model (valibot schemas) and the pure record transitions in src/core/records.ts.

const ID = "3f1c2a9e-8b4d-4e6f-9a1b-2c3d4e5f6a7b"; // a v4 id, as a store migrated from CortexGraph has
const ID2 = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
const ID3 = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7e";
const ORIGIN = { now: 1_790_000_000, machine: "laptop-1a2b3c", user: "ann" };

/** The memory file of the CortexGraph per-file spec (seed 003), with a real lowercase UUID. */
function cortexGraphFile(): Record<string, unknown> {
  return {
    id: ID,
    content: "STOPPER Protocol prevents computational impulsivity via 7-step...",
    gist: "STOPPER: 7-step EF regulation protocol preventing computational impulsivity via Slow/Think/Observe/Plan/Prepare/Execute/Read cycle. Converges with DBT STOP.",
    meta: {
      tags: ["stopper", "efit", "executive-function"],
      source: "claude-code-session",
      context: "Discussion of regulatory frameworks",
      extra: {},
    },
    created_at: 1739548800,
    last_used: 1739635200,
    use_count: 3,
    strength: 1.2,
    status: "active",
    promoted_at: null,
    promoted_to: null,
    embed: null,
    entities: ["STOPPER", "DBT", "executive function"],
    review_priority: 0.25,
    last_review_at: 1739635200,
    review_count: 2,
    cross_domain_count: 1,
  };
}

/** The key order of the spec's memory file, in the order the spec lists them. */
const CORTEXGRAPH_KEYS = Object.keys(cortexGraphFile());

function parseMemory(raw: unknown): Memory {
  const r = parseWith(MemorySchema, raw);
  if (!r.ok) throw new Error(`expected a valid memory, got: ${r.problem}`);
  return r.value;
}

function problemOf(raw: unknown): string {
  const r = parseWith(MemorySchema, raw);
  assert.equal(r.ok, false, "expected the schema to refuse this record");
  return r.ok ? "" : r.problem;
}


const minimal = (extra: Record<string, unknown> = {}) => ({ id: ID, content: "x", created_at: 1, last_used: 1, ...extra });

describe("MemorySchema: a CortexGraph memory file", () => {
  test("parses and keeps every field of the spec as it was", () => {
    const raw = cortexGraphFile();
    const m = parseMemory(raw);
    for (const [k, v] of Object.entries(raw)) assert.deepEqual((m as Record<string, unknown>)[k], v, `field ${k}`);
  });

  test("gains memsync's fields with their defaults", () => {
    const m = parseMemory(cortexGraphFile());
    assert.equal(m.type, "fact");
    assert.equal(m.decision, null);
    assert.equal(m.confidence, null);
    assert.equal(m.category, null);
    assert.equal(m.importance, "medium");
    assert.equal(m.project, null);
    assert.equal(m.scope, "team");
    assert.equal(m.captured_by, null);
    assert.equal(m.updated_at, null);
  });

  test("a minimal file (id, content, two times) gains every default", () => {
    const m = parseMemory(minimal());
    assert.deepEqual(m.meta, { tags: [], source: null, context: null, extra: {} });
    assert.equal(m.gist, null);
    assert.equal(m.use_count, 0);
    assert.equal(m.strength, 1);
    assert.equal(m.status, "active");
    assert.deepEqual(m.entities, []);
    assert.equal(m.review_priority, 0);
    assert.equal(m.review_count, 0);
    assert.equal(m.embed, null);
  });

  test("its file text lists the spec's fields first, in the spec's order", () => {
    const text = memoryToJson(parseMemory(cortexGraphFile()));
    const keys = Object.keys(JSON.parse(text));
    assert.deepEqual(keys.slice(0, CORTEXGRAPH_KEYS.length), CORTEXGRAPH_KEYS);
    assert.deepEqual(Object.keys(JSON.parse(text).meta), ["tags", "source", "context", "extra"]);
  });

  test("ids must be lowercase UUIDs", () => {
    assert.match(problemOf(minimal({ id: ID.toUpperCase() })), /^id /);
    assert.match(problemOf(minimal({ id: "a1b2c3d4-..." })), /^id /);
    assert.match(problemOf(minimal({ id: "../../etc/passwd" })), /^id /);
    assert.match(problemOf(minimal({ id: `${ID}x` })), /^id /);
    assert.match(problemOf(minimal({ id: 42 })), /^id /);
  });

  test("missing required fields and wrong enums are refused with a readable problem", () => {
    const { content: _c, ...noContent } = minimal();
    assert.match(problemOf(noContent), /content is required/);
    const { created_at: _t, ...noCreated } = minimal();
    assert.match(problemOf(noCreated), /created_at is required/);
    assert.match(problemOf(minimal({ status: "deleted" })), /status must be one of/);
    assert.match(problemOf(minimal({ strength: 2.5 })), /strength/);
    assert.match(problemOf(minimal({ review_priority: 1.5 })), /review_priority/);
    assert.match(problemOf(minimal({ use_count: 1.5 })), /use_count/);
    assert.match(problemOf(minimal({ created_at: -1 })), /created_at/);
  });
});

describe("unknown fields survive parse -> memoryToJson", () => {
  const future = { nested: [1, { b: 2, a: null }], flag: true, text: "naïve ✓" };

  function withUnknowns(): Record<string, unknown> {
    const raw = cortexGraphFile();
    return {
      ...raw,
      zeta_future: future,
      alpha_future: "x",
      meta: { ...(raw.meta as object), provenance: { url: "https://example.com/a", n: 3 } },
      decision: {
        what: "Use PostgreSQL",
        why: "JSONB and FTS",
        alternatives: ["MySQL"],
        constraints: [],
        tradeoffs: [],
        reversible: false,
        score: { b: 1, a: [2, 3] },
      },
      captured_by: { user: "ann", machine: "mac", agent: "claude", session: "s1", hook: "PostToolUse", pid: 42 },
    };
  }

  test("top level, inside meta, decision and captured_by, with their values unchanged", () => {
    const raw = withUnknowns();
    const out = JSON.parse(memoryToJson(parseMemory(raw)));
    assert.deepEqual(out.zeta_future, future);
    assert.equal(out.alpha_future, "x");
    assert.deepEqual(out.meta.provenance, { url: "https://example.com/a", n: 3 });
    assert.equal(out.decision.reversible, false);
    assert.deepEqual(out.decision.score, { b: 1, a: [2, 3] });
    assert.equal(out.captured_by.hook, "PostToolUse");
    assert.equal(out.captured_by.pid, 42);
    // and the known fields beside them are untouched
    assert.equal(out.decision.what, "Use PostgreSQL");
    assert.equal(out.captured_by.agent, "claude");
  });

  test("unknown keys come after the known ones, sorted, at every level", () => {
    const out = JSON.parse(memoryToJson(parseMemory(withUnknowns())));
    const keys = Object.keys(out);
    assert.deepEqual(keys.slice(-2), ["alpha_future", "zeta_future"]);
    assert.equal(keys.indexOf("updated_at"), keys.length - 3);
    assert.deepEqual(Object.keys(out.decision), ["what", "why", "alternatives", "constraints", "tradeoffs", "reversible", "score"]);
    assert.deepEqual(Object.keys(out.captured_by), ["user", "machine", "agent", "session", "hook", "pid"]);
    assert.deepEqual(Object.keys(out.decision.score), ["a", "b"]);
  });

  test("a second round trip gives the same bytes", () => {
    const once = memoryToJson(parseMemory(withUnknowns()));
    const twice = memoryToJson(parseMemory(JSON.parse(once)));
    assert.equal(twice, once);
  });

  test("unknown fields survive edits and touches", () => {
    const m = parseMemory(withUnknowns());
    const edited = updateMemory(m, { content: "new text" }, ORIGIN.now).memory;
    const touched = touchMemory(edited, ORIGIN.now + 5, true, "laptop.0a1b2c3d");
    const out = JSON.parse(memoryToJson(touched));
    assert.deepEqual(out.zeta_future, future);
    assert.deepEqual(out.meta.provenance, { url: "https://example.com/a", n: 3 });
    assert.equal(out.captured_by.pid, 42);
    assert.deepEqual(out.decision.score, { b: 1, a: [2, 3] });
  });

  // BUG: src/core/model/memory.ts (MemorySchema, valibot looseObject) and src/core/canonical-json.ts:30
  // (`out[k] = ...` on a plain object) drop a field named "__proto__": JSON.parse makes it an own
  // property, but parsing and canonicalizing lose it, so a rewrite silently deletes it. It should
  // survive like any other unknown field.
  test.todo("a field named __proto__ survives too (BUG: it is dropped)", () => {
    const text = `{"id":"${ID}","content":"x","created_at":1,"last_used":1,"__proto__":{"kept":true},"meta":{"__proto__":{"kept":1}}}`;
    const out = JSON.parse(memoryToJson(parseMemory(JSON.parse(text))));
    assert.ok(Object.hasOwn(out, "__proto__"));
    assert.deepEqual(out["__proto__"], { kept: true });
    assert.ok(Object.hasOwn(out.meta, "__proto__"));
  });
});

describe("content limits", () => {
  test("empty and whitespace-only content are refused", () => {
    for (const content of ["", " ", "  \n\t  ", "\u00a0\u2003"]) {
      assert.match(problemOf(minimal({ content })), /content must not be empty/);
      assertInvalid(() => createMemory({ content }, ID, ORIGIN), /content/);
    }
  });

  test("50,000 characters are accepted, 50,001 refused", () => {
    assert.equal(LIMITS.contentMax, 50_000);
    const ok = createMemory({ content: "a".repeat(50_000) }, ID, ORIGIN);
    assert.equal(ok.content.length, 50_000);
    parseMemory(minimal({ content: "a".repeat(50_000) }));
    assertInvalid(() => createMemory({ content: "a".repeat(50_001) }, ID, ORIGIN), /at most 50000 characters/);
    assert.match(problemOf(minimal({ content: "a".repeat(50_001) })), /at most 50000/);
  });

  test("the limit counts code points, not UTF-16 units", () => {
    // each emoji is one character but two UTF-16 units
    const fine = "😀".repeat(50_000);
    assert.equal(fine.length, 100_000);
    assert.equal(createMemory({ content: fine }, ID, ORIGIN).content, fine);
    assertInvalid(() => createMemory({ content: `${fine}😀` }, ID, ORIGIN), /content/);
    assertInvalid(() => createMemory({ content: `${fine}a` }, ID, ORIGIN), /content/);
  });
});

describe("labels: tags and entities", () => {
  const tags = (n: number, prefix = "t") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const entities = (n: number) => Array.from({ length: n }, (_, i) => `Entity ${i}`);

  test("tags are sanitized: 'Machine Learning' -> machine_learning, duplicates merged", () => {
    const m = createMemory({ content: "c", tags: ["Machine Learning", "machine_learning", "MACHINE   LEARNING", "  machine learning  ", "C++", "Node.js", "ＡＰＩ"] }, ID, ORIGIN);
    assert.deepEqual(m.meta.tags, ["machine_learning", "c++", "node.js", "api"]);
  });

  test("meta.tags and the top-level tags shorthand are sanitized alike", () => {
    const viaMeta = createMemory({ content: "c", meta: { tags: ["Machine Learning"], source: "s" } }, ID, ORIGIN);
    const viaTop = createMemory({ content: "c", tags: ["Machine Learning"] }, ID, ORIGIN);
    assert.deepEqual(viaMeta.meta.tags, ["machine_learning"]);
    assert.equal(viaMeta.meta.source, "s");
    assert.deepEqual(viaTop.meta.tags, ["machine_learning"]);
    assert.equal(Object.hasOwn(viaTop, "tags"), false, "the shorthand does not stay as a field of its own");
  });

  test("a tag with nothing usable in it is refused", () => {
    for (const bad of ["!!!", "   ", "___", "---", "💥"]) {
      assertInvalid(() => createMemory({ content: "c", tags: ["ok", bad] }, ID, ORIGIN), /invalid tag/);
    }
    assertInvalid(() => createMemory({ content: "c", tags: "ml" }, ID, ORIGIN), /tags/);
    assertInvalid(() => createMemory({ content: "c", tags: [1, 2] }, ID, ORIGIN), /tags/);
  });

  test("a hand-written file's tags are sanitized on read", () => {
    const m = parseMemory(minimal({ meta: { tags: ["Machine Learning", "machine_learning", "DB"] } }));
    assert.deepEqual(m.meta.tags, ["machine_learning", "db"]);
  });

  test("at most 50 tags, counted after duplicates are merged", () => {
    assert.equal(createMemory({ content: "c", tags: tags(50) }, ID, ORIGIN).meta.tags.length, 50);
    assertInvalid(() => createMemory({ content: "c", tags: tags(51) }, ID, ORIGIN), /too many tags/);
    const withDuplicate = [...tags(50), "T0"];
    assert.equal(createMemory({ content: "c", tags: withDuplicate }, ID, ORIGIN).meta.tags.length, 50);
    assert.match(problemOf(minimal({ meta: { tags: tags(51) } })), /meta\.tags/);
  });

  test("at most 100 characters per tag", () => {
    const t100 = "a".repeat(100);
    assert.deepEqual(createMemory({ content: "c", tags: [t100] }, ID, ORIGIN).meta.tags, [t100]);
    assertInvalid(() => createMemory({ content: "c", tags: ["a".repeat(101)] }, ID, ORIGIN), /longer than 100/);
  });

  test("at most 100 entities; duplicates merged case-insensitively, first spelling kept", () => {
    assert.equal(createMemory({ content: "c", entities: entities(100) }, ID, ORIGIN).entities.length, 100);
    assertInvalid(() => createMemory({ content: "c", entities: entities(101) }, ID, ORIGIN), /too many entities/);
    assert.match(problemOf(minimal({ entities: entities(101) })), /entities/);
    const m = createMemory({ content: "c", entities: ["PostgreSQL", "postgresql", "  POSTGRESQL ", "Redis"] }, ID, ORIGIN);
    assert.deepEqual(m.entities, ["PostgreSQL", "Redis"]);
    assertInvalid(() => createMemory({ content: "c", entities: ["  "] }, ID, ORIGIN), /entity/);
  });
});

describe("createMemory", () => {
  test("stamps times, origin and the given id; defaults the rest", () => {
    const m = createMemory({ id: ID2, content: "Use cursor pagination", type: "decision" }, ID, ORIGIN);
    assert.equal(m.id, ID, "the id argument wins over a field");
    assert.equal(m.created_at, ORIGIN.now);
    assert.equal(m.last_used, ORIGIN.now);
    assert.equal(m.updated_at, ORIGIN.now);
    assert.deepEqual(m.captured_by, { user: "ann", machine: "laptop-1a2b3c", agent: null, session: null });
    assert.equal(m.type, "decision");
    assert.equal(m.use_count, 0);
    assert.equal(m.strength, 1);
  });

  test("does not change the fields it was given", () => {
    const fields = { content: "c", tags: ["Machine Learning"], meta: { source: "s" } };
    const copy = structuredClone(fields);
    createMemory(fields, ID, ORIGIN);
    assert.deepEqual(fields, copy);
  });

  test("refuses fields the schema refuses", () => {
    assertInvalid(() => createMemory({ content: "c", type: "opinion" }, ID, ORIGIN), /type/);
    assertInvalid(() => createMemory({ content: "c", strength: 3 }, ID, ORIGIN), /strength/);
    assertInvalid(() => createMemory({ content: "c", confidence: 1.5 }, ID, ORIGIN), /confidence/);
    assertInvalid(() => createMemory({ content: "c", decision: { why: "no what" } }, ID, ORIGIN), /decision/);
    assertInvalid(() => createMemory({ content: "c" }, "not-an-id", ORIGIN), /: id must be a lowercase UUID/);
  });

  test("a partial captured_by keeps the origin's user and machine", () => {
    const m = createMemory({ content: "c", captured_by: { agent: "claude-code", session: "s-1" } }, ID, ORIGIN);
    assert.deepEqual(m.captured_by, { user: "ann", machine: "laptop-1a2b3c", agent: "claude-code", session: "s-1" });
  });
});

describe("updateMemory", () => {
  const base = () =>
    createMemory({ content: "old text", gist: "old gist", tags: ["Machine Learning", "db"], entities: ["PostgreSQL"] }, ID, { ...ORIGIN, now: 1000 });

  test("changing content without a new gist clears the gist", () => {
    const r = updateMemory(base(), { content: "new text" }, 2000);
    assert.equal(r.changed, true);
    assert.equal(r.memory.content, "new text");
    assert.equal(r.memory.gist, null);
  });

  test("changing content with a new gist keeps that gist; same content keeps the old gist", () => {
    assert.equal(updateMemory(base(), { content: "new text", gist: "new gist" }, 2000).memory.gist, "new gist");
    const same = updateMemory(base(), { content: "old text", importance: "high" }, 2000);
    assert.equal(same.memory.gist, "old gist");
    assert.equal(same.memory.importance, "high");
  });

  test("updated_at moves on an edit; created_at, last_used and use_count do not", () => {
    const m = base();
    const r = updateMemory(m, { type: "decision" }, 2000);
    assert.equal(r.memory.updated_at, 2000);
    assert.equal(r.memory.created_at, m.created_at);
    assert.equal(r.memory.last_used, m.last_used);
    assert.equal(r.memory.use_count, m.use_count);
  });

  test("a change to usage fields only is a change but not an edit", () => {
    const r = updateMemory(base(), { use_count: 7, review_priority: 0.5 }, 2000);
    assert.equal(r.changed, true);
    assert.equal(r.memory.use_count, 7);
    assert.equal(r.memory.updated_at, 1000);
  });

  test("a patch that changes nothing reports unchanged and keeps updated_at", () => {
    const m = base();
    const r = updateMemory(m, { content: "old text", type: "fact" }, 2000);
    assert.equal(r.changed, false);
    assert.equal(r.memory, m);
    assert.equal(r.memory.updated_at, 1000);
  });

  test("the id cannot change; giving the same id is fine", () => {
    assertInvalid(() => updateMemory(base(), { id: ID2 }, 2000), /id cannot be changed/);
    assertInvalid(() => updateMemory(base(), { id: ID.toUpperCase() }, 2000), /id cannot be changed/);
    const r = updateMemory(base(), { id: ID, content: "x" }, 2000);
    assert.equal(r.memory.id, ID);
  });

  test("nested objects merge: a patch of meta.source keeps the tags", () => {
    const r = updateMemory(base(), { meta: { source: "review" } }, 2000);
    assert.deepEqual(r.memory.meta.tags, ["machine_learning", "db"]);
    assert.equal(r.memory.meta.source, "review");
    assert.equal(r.memory.updated_at, 2000);
  });

  test("a patch with invalid values is refused and the input is left alone", () => {
    const m = base();
    const before = JSON.stringify(m);
    assertInvalid(() => updateMemory(m, { content: "   " }, 2000), /content/);
    assertInvalid(() => updateMemory(m, { status: "gone" }, 2000), /status/);
    assertInvalid(() => updateMemory(m, { meta: { tags: ["!!!"] } }, 2000), /tag/);
    assert.equal(JSON.stringify(m), before);
  });

  test("label edits: add and remove tags and entities, sanitized and case-insensitive", () => {
    const r = updateMemory(base(), {}, 2000, {
      addTags: ["New Tag", "DB"],
      removeTags: ["Machine Learning"],
      addEntities: ["Redis", "postgresql"],
      removeEntities: ["POSTGRESQL"],
    });
    assert.equal(r.changed, true);
    assert.deepEqual(r.memory.meta.tags, ["db", "new_tag"]);
    assert.deepEqual(r.memory.entities, ["Redis"]);
    assert.equal(r.memory.updated_at, 2000);
  });

  test("label edits apply on top of a patch that replaces the tags", () => {
    const r = updateMemory(base(), { meta: { tags: ["Alpha", "Beta"] } }, 2000, { addTags: ["gamma"], removeTags: ["alpha"] });
    assert.deepEqual(r.memory.meta.tags, ["beta", "gamma"]);
  });

  test("removing a tag the memory does not have changes nothing", () => {
    const m = base();
    const r = updateMemory(m, {}, 2000, { removeTags: ["absent"] });
    assert.equal(r.changed, false);
    assert.equal(r.memory.updated_at, 1000);
  });

  test("add + remove on a memory with 50 tags stays within the limit", () => {
    const full = createMemory({ content: "c", tags: Array.from({ length: 50 }, (_, i) => `t${i}`) }, ID, ORIGIN);
    const r = updateMemory(full, {}, ORIGIN.now + 1, { addTags: ["fresh"], removeTags: ["t0"] });
    assert.equal(r.memory.meta.tags.length, 50);
    assert.ok(r.memory.meta.tags.includes("fresh"));
  });
});

describe("touchMemory", () => {
  const m = (extra: Record<string, unknown> = {}) =>
    parseMemory({ ...minimal(), created_at: 1000, last_used: 5000, updated_at: 1000, use_count: 4, strength: 1, ...extra });

  test("one more use, last used now", () => {
    const t = touchMemory(m(), 6000, false, "laptop.0a1b2c3d");
    assert.equal(t.use_count, 5);
    assert.equal(t.last_used, 6000);
    assert.equal(t.strength, 1);
    assert.equal(t.updated_at, 1000, "a touch is not an edit");
  });

  test("last_used never moves back (a clock behind the record's)", () => {
    const t = touchMemory(m(), 4000, false, "laptop.0a1b2c3d");
    assert.equal(t.use_count, 5);
    assert.equal(t.last_used, 5000);
  });

  test("boost adds 0.1 without float noise and stops at 2.0", () => {
    assert.equal(touchMemory(m({ strength: 1.1 }), 6000, true, "laptop.0a1b2c3d").strength, 1.2); // 1.1 + 0.1 is 1.2000000000000002 in floats
    let cur = m();
    const seen: number[] = [];
    for (let i = 0; i < 14; i++) {
      cur = touchMemory(cur, 6000 + i, true, "laptop.0a1b2c3d");
      seen.push(cur.strength);
    }
    assert.deepEqual(seen, [1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 2, 2, 2, 2]);
    assert.equal(cur.use_count, 4 + 14);
    assert.equal(touchMemory(m({ strength: 1.95 }), 6000, true, "laptop.0a1b2c3d").strength, 2);
    assert.equal(touchMemory(m({ strength: 0.7 }), 6000, true, "laptop.0a1b2c3d").strength, 0.8);
    // the touched record is still valid and serializes without noise
    assert.match(memoryToJson(touchMemory(m({ strength: 1.1 }), 6000, true, "laptop.0a1b2c3d")), /"strength": 1\.2,/);
  });

  test("does not change the memory it was given", () => {
    const before = m();
    const copy = structuredClone(before);
    touchMemory(before, 9000, true, "laptop.0a1b2c3d");
    assert.deepEqual(before, copy);
  });
});

describe("createRelation", () => {
  test("a typed relation between two memories, with defaults", () => {
    const r = createRelation({ from: ID, to: ID2, type: "supports" }, ID3, 1234);
    assert.deepEqual(r, { id: ID3, from_memory_id: ID, to_memory_id: ID2, relation_type: "supports", strength: 1, created_at: 1234, metadata: {} });
  });

  test("refuses a memory related to itself", () => {
    assertInvalid(() => createRelation({ from: ID, to: ID, type: "related" }, ID3, 1), /itself/);
  });

  test("refuses a type outside the vocabulary, a bad strength or a bad id", () => {
    assertInvalid(() => createRelation({ from: ID, to: ID2, type: "likes" as never }, ID3, 1), /relation_type/);
    assertInvalid(() => createRelation({ from: ID, to: ID2, type: "related", strength: 1.5 }, ID3, 1), /strength/);
    assertInvalid(() => createRelation({ from: ID, to: "nope", type: "related" }, ID3, 1), /to_memory_id/);
    assertInvalid(() => createRelation({ from: ID, to: ID2, type: "related" }, ID2.toUpperCase(), 1), /: id must be a lowercase UUID/);
  });

  test("the spec's relation file parses, keeps its metadata and serializes in order", () => {
    const raw = {
      id: ID3,
      from_memory_id: ID,
      to_memory_id: ID2,
      relation_type: "consolidated_from",
      strength: 1.0,
      created_at: 1739635200,
      metadata: { cluster_id: "clust-xxx", cluster_cohesion: 0.91 },
    };
    const shuffled = Object.fromEntries(Object.entries(raw).reverse()); // key order must not matter
    const r = parseWith(RelationSchema, shuffled);
    assert.ok(r.ok);
    const text = relationToJson(r.value);
    assert.deepEqual(Object.keys(JSON.parse(text)), Object.keys(raw));
    assert.deepEqual(JSON.parse(text), raw);
  });
});

describe("canonical JSON", () => {
  const fields = {
    content: "café ✓ 日本 😀",
    type: "decision",
    tags: ["db"],
    entities: ["PostgreSQL"],
    decision: { what: "Use PostgreSQL", why: "JSONB", alternatives: ["MySQL"] },
  };

  test("2-space indent, one trailing newline, nothing else", () => {
    const text = memoryToJson(createMemory(fields, ID, ORIGIN));
    assert.ok(text.endsWith("}\n"));
    assert.ok(!text.endsWith("\n\n"));
    assert.equal(text, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    assert.match(text, /^\{\n {2}"id": /);
    assert.match(text, /\n {4}"tags": \[\n {6}"db"\n {4}\],\n/);
  });

  test("non-ASCII text is written as real UTF-8, not escaped", () => {
    const text = memoryToJson(createMemory(fields, ID, ORIGIN));
    const bytes = Buffer.from(text, "utf8");
    assert.ok(bytes.includes(Buffer.from("café ✓ 日本 😀", "utf8")));
    assert.ok(!text.includes("\\u"), "no \\u escapes");
    assert.ok(bytes.includes(Buffer.from([0x63, 0x61, 0x66, 0xc3, 0xa9])), "é is the two bytes C3 A9");
  });

  test("the same memory gives the same bytes whatever order its fields arrived in", () => {
    const a = parseMemory({ ...cortexGraphFile(), zz: 1, aa: { y: 1, x: 2 } });
    const shuffled: Record<string, unknown> = Object.fromEntries(Object.entries({ ...cortexGraphFile(), zz: 1, aa: { x: 2, y: 1 } }).reverse());
    shuffled.meta = Object.fromEntries(Object.entries(shuffled.meta as object).reverse());
    const b = parseMemory(shuffled);
    assert.equal(memoryToJson(b), memoryToJson(a));
  });

  test("known keys follow the schema's order, unknown keys are sorted after them", () => {
    const m = createMemory({ ...fields, zebra: 1, apple: 2, Mango: 3 }, ID, ORIGIN);
    const keys = Object.keys(JSON.parse(memoryToJson(m)));
    // optional fields (content_conflicts) are absent until they have a value
    const known = Object.keys(MemorySchema.entries).filter((k) => k in m);
    assert.deepEqual(keys.slice(0, known.length), known);
    assert.deepEqual(keys.slice(known.length), ["Mango", "apple", "zebra"]);
  });

  test("serializing is a fixed point: parse(text) serializes to text again", () => {
    const text = memoryToJson(createMemory({ ...fields, extra_field: { b: [1, "two"], a: null } }, ID, ORIGIN));
    assert.equal(memoryToJson(parseMemory(JSON.parse(text))), text);
  });

  test(".meta.json is canonical too, settings defaulted", () => {
    const r = parseWith(StoreMetaSchema, { migrated_from: "jsonl-v1", created_at: 1739548800, storage_version: 2, machine_id: "macbook-sc", custom: true });
    assert.ok(r.ok);
    const text = storeMetaToJson(r.value);
    const keys = Object.keys(JSON.parse(text));
    assert.deepEqual(keys, ["storage_version", "created_at", "machine_id", "last_gc_at", "last_consolidation_at", "migrated_from", "settings", "custom"]);
    const settings = JSON.parse(text).settings;
    assert.deepEqual(Object.keys(settings), ["layout", "shard_threshold", "maintainer", "decay", "forget_threshold", "promote", "danger_zone"]);
    assert.deepEqual([settings.layout, settings.shard_threshold, settings.maintainer], ["auto", 1000, null]);
    assert.deepEqual(settings.decay, { model: "power_law", beta: 0.6, half_life_days: 3, alpha: 1.1, lambda: 2.673e-6, fast_lambda: 1.603e-5, slow_lambda: 1.147e-6, fast_weight: 0.7 });
    assert.deepEqual([settings.forget_threshold, settings.promote, settings.danger_zone], [0.05, { threshold: 0.65, min_uses: 5, window_days: 14 }, { min: 0.15, max: 0.35 }]);
    assert.equal(parseWith(StoreMetaSchema, { storage_version: 1, created_at: 1 }).ok, false);
  });
});

describe("tags in a hand-written file", () => {
  test("are sanitized on read, and one that cannot be made usable makes the file invalid instead of vanishing", async () => {
    const { parseRecordText } = await import("../../src/store/codec.ts");
    const id = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    const base = { id, content: "x", created_at: 1, last_used: 1 };
    const ok = parseRecordText("memory", JSON.stringify({ ...base, meta: { tags: ["Machine Learning", "machine_learning"] } }), id);
    assert.ok(ok.ok);
    assert.deepEqual(ok.ok && ok.record.meta.tags, ["machine_learning"]);
    const long = parseRecordText("memory", JSON.stringify({ ...base, meta: { tags: ["a".repeat(150)] } }), id);
    assert.equal(long.ok, false);
    assert.match(!long.ok ? long.problem : "", /meta\.tags\[0\]/);
    const empty = parseRecordText("memory", JSON.stringify({ ...base, meta: { tags: ["!!!"] } }), id);
    assert.equal(empty.ok, false);
  });
});

// The one-line problems every face answers (CLI, API, MCP): the same words for each kind of
// problem as before the move from zod to valibot (describeIssue in validate.ts).
describe("problems in one line", () => {
  const base = { id: ID, content: "x", created_at: 1, last_used: 1 };
  const CASES: [Record<string, unknown>, string][] = [
    [{ meta: [] }, "meta must be an object"],
    [{ meta: { extra: ["a"] } }, "meta.extra must be an object"],
    [{ strength: JSON.parse("1e999") }, "strength must be a number"],
    [{ use_count: 1.5 }, "use_count must be an integer"],
    [{ use_count: 2 ** 60 }, "use_count must be at most 9007199254740991"],
    [{ use_count: "x" }, "use_count must be a number"],
    [{ strength: 3 }, "strength must be at most 2"],
    [{ status: "nope" }, "status must be one of active, promoted, archived"],
    [{ meta: { tags: ["  "] } }, "meta.tags[0] must have a letter or digit and at most 100 characters"],
    [{ content: " " }, "content must not be empty"],
    [{ id: "X" }, "id must be a lowercase UUID"],
    [{ entities: [""] }, "entities[0] must be at least 1 character"],
    [{ decision: { why: null } }, "decision.what is required"],
    [{ counters: { use_count: { "a b": 1 } } }, "counters.use_count.a b is invalid"],
    [{ id: undefined, created_at: "x", gist: 5, status: 1 }, "id is required; gist must be a string; created_at must be a number; and 1 more"],
  ];
  test("each kind of problem, in memsync's words", () => {
    for (const [extra, problem] of CASES) {
      const r = parseWith(MemorySchema, { ...base, ...extra });
      assert.deepEqual(r, { ok: false, problem }, JSON.stringify(extra));
    }
    assert.deepEqual(parseWith(MemorySchema, []), { ok: false, problem: "(record) must be an object" });
    assert.deepEqual(parseWith(StoreMetaSchema, { storage_version: 3, created_at: 1 }), { ok: false, problem: "storage_version must be one of 2" });
    assert.deepEqual(parseWith(StoreMetaSchema, { storage_version: 2, created_at: 1, settings: { decay: { half_life_days: 0 } } }), {
      ok: false,
      problem: "settings.decay.half_life_days must be greater than 0",
    });
  });
});

test('fields named "constructor" and "prototype" survive like any other (loose objects and records)', () => {
  const text = `{"id":"${ID}","content":"x","created_at":1,"last_used":1,"constructor":1,"prototype":2,"meta":{"extra":{"constructor":"c","prototype":"p","z":0}},"counters":{"use_count":{"constructor":2}}}`;
  const r = parseWith(MemorySchema, JSON.parse(text));
  assert.ok(r.ok);
  const out = JSON.parse(memoryToJson(r.value));
  assert.deepEqual([out.constructor, out.prototype], [1, 2]);
  assert.deepEqual(Object.entries(out.meta.extra), [["constructor", "c"], ["prototype", "p"], ["z", 0]]);
  assert.deepEqual(out.counters.use_count, { constructor: 2 });
  const bad = parseWith(MemorySchema, JSON.parse(text.replace('"use_count":{"constructor":2}', '"use_count":{"constructor":"x"}')));
  assert.deepEqual(bad, { ok: false, problem: "counters.use_count.constructor must be a number" });
});
