import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { planCortexGraph } from "../../src/core/import/cortexgraph.ts";
import { derivedId } from "../../src/core/import/derived-id.ts";
import { MAX_LINE_BYTES, type Problem, readJsonLines } from "../../src/core/import/lines.ts";
import { planMcpMemory } from "../../src/core/import/mcp-memory.ts";
import { memoryMdDecisions, planOrchestKit } from "../../src/core/import/orchestkit.ts";
import { planBackup } from "../../src/core/import/backup.ts";
import { isId } from "../../src/core/ids.ts";
import { makeRng } from "../helpers/rng.ts";

// The pure parsers of `memsync import` on the hand-written fixtures of tests/fixtures/import
// (CortexGraph's append-only JSONL with tombstones and a resurrection, \u escapes, 1.0 and
// 1e-05, an id from before UUIDs; OrchestKit's decision log in its new and older shapes, open
// problems, the graph queue, completed flows, MEMORY.md), and a seeded fuzz of every parser.

const FIX = path.join(import.meta.dirname!, "../fixtures/import");
const enc = new TextEncoder();
const file = (name: string, text: string | Uint8Array) => ({ name, bytes: typeof text === "string" ? enc.encode(text) : text });
const read = (rel: string) => ({ name: path.basename(rel), bytes: new Uint8Array(fs.readFileSync(path.join(FIX, rel))) });

describe("readJsonLines", () => {
  test("bad lines are reported by number and skipped; the rest are read", () => {
    const bytes = new Uint8Array([...enc.encode('{"a":1}\r\n\n[1]\nnope\n'), 0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d, 0x0a, ...enc.encode('{"b":2}')]);
    const problems: Problem[] = [];
    const lines = readJsonLines("f.jsonl", bytes, problems);
    assert.deepEqual(lines.map((l) => [l.line, l.value]), [[1, { a: 1 }], [6, { b: 2 }]]);
    assert.deepEqual(problems.map((p) => p.line), [3, 4, 5, 6]);
    assert.match(problems[0]!.problem, /not a JSON object \(an array\)/);
    assert.match(problems[1]!.problem, /malformed JSON/);
    assert.match(problems[2]!.problem, /invalid UTF-8/);
    assert.match(problems[3]!.problem, /no trailing newline \(the line parses: read\)/);
  });

  test("a huge line is skipped without stopping the next; a cut-off last line is reported; a BOM is no content", () => {
    const huge = `{"x":"${"a".repeat(MAX_LINE_BYTES)}"}`;
    const problems: Problem[] = [];
    const lines = readJsonLines("f", enc.encode(`\uFEFF{"a":1}\n${huge}\n{"c":3}\n{"d":`), problems);
    assert.deepEqual(lines.map((l) => l.value), [{ a: 1 }, { c: 3 }]);
    assert.match(problems[0]!.problem, /line too long/);
    assert.equal(problems[0]!.line, 2);
    assert.match(problems[1]!.problem, /no trailing newline and not JSON/);
    assert.equal(problems[1]!.line, 4);
  });

  test("a problem never quotes the line (it may hold a secret)", () => {
    const problems: Problem[] = [];
    readJsonLines("f", enc.encode('{"token": "ghp_SECRETSECRETSECRET" oops}\n'), problems);
    assert.doesNotMatch(problems[0]!.problem, /SECRET/);
  });
});

describe("cortexgraph", () => {
  const plan = planCortexGraph(read("cortexgraph/memories.jsonl"), read("cortexgraph/relations.jsonl"));
  const byId = new Map(plan.memories.map((m) => [m.fields.id as string, m]));

  test("append-only: the last line of an id wins, a tombstone removes, a later line brings it back", () => {
    assert.equal(byId.has("2d0f2e4a-5e3c-4f90-9b32-3c4d5e6f7081"), false, "tombstoned");
    const back = byId.get("1c9e1d3f-4d2b-4e8f-8a21-2b3c4d5e6f70")!;
    assert.equal(back.fields.content, "Back again: Redis for sessions, resurrected");
    assert.equal(back.fields.status, "promoted");
    assert.equal(back.where.line, 6);
    assert.equal(plan.stats.memory_tombstones, 2);
    assert.equal(plan.stats.memory_superseded, 2);
    assert.equal(plan.stats.relation_tombstones, 1);
  });

  test("every field kept: \\u escapes decoded, floats as numbers, unknown fields carried", () => {
    const m = byId.get("0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f")!.fields as any;
    assert.equal(m.content, 'Use PostgreSQL for analytics — JSONB 🚀 "quoted"');
    assert.equal(m.strength, 1);
    assert.equal(m.review_priority, 0.00001);
    assert.equal(m.last_used, 1700000100.5);
    assert.deepEqual(m.future_field, { x: [1, 2.5] });
    assert.deepEqual(m.meta.extra, { ticket: "DATA-12" });
  });

  test("an id that is not a UUID gets a derived one, the original kept; relations follow it", () => {
    const legacy = plan.memories.find((m) => (m.fields.meta as any)?.extra?.cortexgraph_id === "mem-legacy-7")!;
    assert.ok(isId(legacy.fields.id));
    assert.equal(legacy.fields.id, planCortexGraph(read("cortexgraph/memories.jsonl"), null).memories.find((m) => m.fields.content === legacy.fields.content)!.fields.id, "the same id on every run");
    const rel = plan.relations.find((r) => r.fields.id === "6b4d6c8e-9c7a-4d34-9f76-708192a3b4c5")!;
    assert.equal(rel.fields.from_memory_id, legacy.fields.id);
    assert.equal(rel.fields.relation_type, "related");
    assert.equal((rel.fields.metadata as any).cortexgraph_relation_type, "has_decision");
  });

  test("bad lines are reported with their numbers: not JSON, invalid UTF-8, not an object, no id, no trailing newline", () => {
    const lines = plan.problems.map((p) => `${p.file}:${p.line}`);
    assert.deepEqual(lines, ["memories.jsonl:7", "memories.jsonl:10", "memories.jsonl:11", "memories.jsonl:12", "relations.jsonl:5"]);
    assert.deepEqual(plan.relations.map((r) => r.where.line), [1, 2, 3]);
  });
});

describe("orchestkit", () => {
  const src = {
    decisions: [read("orchestkit/.claude/memory/decisions.jsonl"), { ...read("orchestkit/.claude/logs/decisions.jsonl"), name: "logs/decisions.jsonl" }],
    problems: read("orchestkit/.claude/memory/open-problems.jsonl"),
    queue: read("orchestkit/.claude/memory/graph-queue.jsonl"),
    flows: read("orchestkit/.claude/memory/completed-flows.jsonl"),
    memoryMd: read("orchestkit/.claude/memory/MEMORY.md"),
  };
  const plan = planOrchestKit(src, "fallback-project");
  const of = (what: string) => plan.memories.find((m) => String(m.fields.content).startsWith(what))?.fields as any;

  test("a decision: what, why, alternatives, entities, confidence, project, provenance, time; the line kept whole", () => {
    const d = of("Use cursor-based pagination");
    assert.equal(d.type, "decision");
    assert.deepEqual(d.decision.alternatives, ["offset-based pagination"]);
    assert.equal(d.decision.why, "Better performance for large datasets, stable under inserts/deletes");
    assert.equal(d.confidence, 0.85);
    assert.equal(d.project, "orchestkit");
    assert.equal(d.importance, "high");
    assert.equal(d.created_at, Date.parse("2026-02-06T10:30:00.000Z") / 1000);
    assert.deepEqual(d.captured_by, { user: "user@example.com", machine: "machine-xyz", agent: "orchestkit", session: "sess-123" });
    assert.equal(d.meta.extra.orchestkit.identity.anonymous_id, "anon-abc123");
    assert.equal(of("Prefer TypeScript").type, "preference");
  });

  test("an exact repeat is skipped, a colliding id with other content gets its own id; older shapes read", () => {
    const ids = plan.memories.map((m) => m.fields.id as string);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every(isId));
    assert.ok(of("JWT tokens for auth"));
    const dec = plan.problems.filter((p) => p.file === "decisions.jsonl").map((p) => [p.line, p.problem.slice(0, 30)]);
    assert.deepEqual(dec.map((d) => d[0]).sort(), [3, 4, 5]);
    assert.match(plan.problems.find((p) => p.line === 3)!.problem, /duplicate of line 1/);
    const old = of("Use Redis for session storage");
    assert.equal(old.decision.why, "fast and shared across pods");
    assert.equal(old.created_at, 1738000000);
    assert.equal(of("Keep the monorepo").project, "fallback-project");
  });

  test("open problems keep open/resolved; flows; MEMORY.md decisions not already logged", () => {
    assert.ok(of("Flaky test").meta.tags.includes("problem-open"));
    assert.ok(of("Build fails").meta.tags.includes("problem-resolved"));
    assert.equal(of("Build fails").meta.extra.orchestkit.status, "resolved");
    assert.match(of("Completed flow: implement-feature").content, /cursor pagination/);
    assert.equal(plan.memories.filter((m) => String(m.fields.content).startsWith("Use cursor-based pagination")).length, 1, "MEMORY.md's copy of a logged decision is not imported twice");
    assert.equal(of("Deploy on Fridays").decision.why, "incidents happened");
    assert.equal(of("Always run the linter").type, "preference");
    assert.equal(of("not a decision"), undefined);
    assert.deepEqual(memoryMdDecisions("## Decisions\n- A\n## Notes\n- B\n").map((d) => d.what), ["A"]);
  });

  test("the graph queue becomes graph calls in order; unknown calls are reported", () => {
    assert.deepEqual(plan.graph.map((c) => c.op), ["create_entities", "create_relations", "add_observations", "add_observations", "create_entities"]);
    assert.match(plan.problems.find((p) => p.file === "graph-queue.jsonl")!.problem, /unknown queued call "delete_everything"/);
  });
});

describe("mcp-memory", () => {
  test("entities and relations in file order; duplicates kept and reported, unknown shapes reported and skipped", () => {
    const text = [
      '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}',
      '{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}',
      '{"type":"entity","name":"Alice","entityType":"person","observations":[]}',
      '{"type":"entity","name":"Bob","entityType":"person","observations":"not a list"}',
      '{"type":"note","text":"?"}',
      '{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}',
    ].join("\n");
    const plan = planMcpMemory(file("memory.jsonl", text));
    // a name or a relation twice is kept, as the reference keeps it, and reported
    assert.deepEqual(plan.graph.map((c) => [c.op, c.where.line]), [["create_entities", 1], ["create_relations", 2], ["create_entities", 3], ["create_relations", 6]]);
    assert.deepEqual(plan.problems.map((p) => p.line), [3, 4, 5, 6]);
    assert.match(plan.problems[0]!.problem, /duplicate entity "Alice" \(first on line 1\): kept/);
    assert.match(plan.problems[3]!.problem, /duplicate relation: kept/);
  });

  test("an older memory.json holding one object", () => {
    const plan = planMcpMemory(file("memory.json", JSON.stringify({ entities: [{ name: "A", entityType: "t", observations: ["o"] }], relations: [{ from: "A", to: "A", relationType: "self" }] })));
    assert.deepEqual(plan.graph.map((c) => c.op), ["create_entities", "create_relations"]);
    assert.deepEqual(plan.problems, []);
  });
});

describe("backup", () => {
  test("needs its header; a newer version is refused whole", () => {
    assert.match(planBackup(file("b.jsonl", '{"memory":{}}\n')).problems[0]!.problem, /not a memsync backup/);
    assert.match(planBackup(file("b.jsonl", '{"format":"memsync-jsonl","version":99}\n')).problems[0]!.problem, /newer/);
    const p = planBackup(file("b.jsonl", '{"format":"memsync-jsonl","version":1}\n{"memory":{"id":"x"}}\n{"relation":{"id":"y"}}\n{"other":1}\n'));
    assert.equal(p.memories.length, 1);
    assert.equal(p.relations.length, 1);
    assert.deepEqual(p.problems.map((x) => x.line), [4]);
  });
});

test("derivedId: a UUID (version 8), the same for the same text, different for another", () => {
  assert.ok(isId(derivedId("a")));
  assert.equal(derivedId("a"), derivedId("a"));
  assert.notEqual(derivedId("a"), derivedId("b"));
  assert.equal(derivedId("x")[14], "8");
});

// Random and mutated inputs: every parser ends with a plan, never throws, every id it plans is
// a UUID, and every problem names a line of its file.
describe("fuzz", () => {
  const seeds = [
    fs.readFileSync(path.join(FIX, "cortexgraph/memories.jsonl")),
    fs.readFileSync(path.join(FIX, "orchestkit/.claude/memory/decisions.jsonl")),
    fs.readFileSync(path.join(FIX, "orchestkit/.claude/memory/graph-queue.jsonl")),
    enc.encode('{"type":"entity","name":"A","entityType":"t","observations":["o"]}\n{"type":"relation","from":"A","to":"B","relationType":"r"}\n'),
  ];
  const ALPHABET = enc.encode('{}[]":,\\\n\r 0123456789abcdefu-_.eE+truefalsnul\u00e9');
  function mutate(r: () => number, base: Uint8Array): Uint8Array {
    const out = [...base];
    const n = 1 + Math.floor(r() * 12);
    for (let i = 0; i < n; i++) {
      const at = Math.floor(r() * (out.length + 1));
      const k = r();
      if (k < 0.3) out.splice(at, 1);
      else if (k < 0.6) out.splice(at, 0, ALPHABET[Math.floor(r() * ALPHABET.length)]!);
      else if (k < 0.75) out.splice(at, 0, Math.floor(r() * 256));
      else if (k < 0.9) out.splice(at, Math.floor(r() * 40), ...out.slice(Math.floor(r() * out.length), Math.floor(r() * out.length)));
      else out.splice(at, 0, ...enc.encode(`\n{"id":"${r() < 0.5 ? "../../etc/passwd" : "0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f"}","_deleted":${r() < 0.5},"content":"x","type":"${r() < 0.5 ? "entity" : "relation"}","name":"n","from":"a","to":"b","relationType":"r","entityType":"t","observations":[]}\n`));
    }
    return new Uint8Array(out);
  }
  test("600 mutated files through every parser", () => {
    const r = makeRng(20261124);
    for (let i = 0; i < 600; i++) {
      const bytes = mutate(r, seeds[i % seeds.length]!);
      const f = file("f.jsonl", bytes);
      const lineCount = bytes.reduce((n, b) => n + (b === 0x0a ? 1 : 0), 1);
      const plans = [
        planCortexGraph(f, f),
        planOrchestKit({ decisions: [f], problems: f, queue: f, flows: f, memoryMd: f }, null),
        planMcpMemory(f),
        planMcpMemory(file("memory.json", bytes)),
        planBackup(f),
      ];
      for (const plan of plans) {
        for (const m of plan.memories) assert.ok(isId(m.fields.id), `case ${i}: planned id ${String(m.fields.id)}`);
        for (const rel of plan.relations) assert.ok(isId(rel.fields.id) || plan === plans[4], `case ${i}: relation id`);
        for (const p of plan.problems) assert.ok(p.line >= 0 && p.line <= lineCount, `case ${i}: ${p.file}:${p.line}`);
      }
    }
  });
});
