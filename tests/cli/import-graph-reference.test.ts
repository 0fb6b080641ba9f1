import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsyncJson, REPO, tempDir } from "../helpers/env.ts";
import { makeRng } from "../helpers/rng.ts";
import { type Answer, call, type Connected, connect, serverEnv } from "../mcp/client.ts";

// The graph parts of import and export (issue 14) against the real reference memory server
// (@modelcontextprotocol/server-memory): OrchestKit's graph queue applied to the `memory`
// profile's graph gives the graph the reference builds from the same calls; memory.jsonl files
// the reference writes from random calls round-trip (import gives its read_graph, export gives a
// file it loads into the same graph, with the same lines); and the older reference's memory.json
// (its JSONL under the old name) imports as the reference reads it.

const REFERENCE = path.join(REPO, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const FIX = path.join(REPO, "tests/fixtures/import");

const reference = (file: string) => connect([REFERENCE], "legacy", serverEnv({ MEMORY_FILE_PATH: file }), [process.execPath]);
const ours = (store: string) => connect(["mcp", "--tools", "memory"], "legacy", serverEnv({ MEMSYNC_HOME: store }));

async function readGraph(c: Connected): Promise<Answer> {
  try {
    return await call(c.client, "read_graph", {});
  } finally {
    await c.close();
  }
}

/** The reference server, on its file, given these calls in order (the real program writes the file). */
async function referenceWrites(file: string, calls: [string, Record<string, unknown>][]): Promise<void> {
  const ref = await reference(file);
  try {
    for (const [name, args] of calls) await call(ref.client, name, args);
  } finally {
    await ref.close();
  }
}

/** The lines of a memory.jsonl as a sorted list of parsed values (the order of lines is not the graph). */
const linesOf = (file: string) =>
  fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.stringify(JSON.parse(l))).sort();

describe("OrchestKit's graph queue", () => {
  test("applied to the memory profile's graph: read_graph equals the reference server's after the same queued calls", async () => {
    const dir = tempDir("memsync-queue-ref-");
    const src = path.join(dir, "memory");
    fs.cpSync(path.join(FIX, "orchestkit/.claude/memory"), src, { recursive: true });
    // the queue's calls, made on the reference as OrchestKit would have made them
    const ref = await reference(path.join(dir, "reference.jsonl"));
    const refused: number[] = [];
    const queued = fs.readFileSync(path.join(src, "graph-queue.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    try {
      for (const [i, q] of queued.entries()) {
        const op = String(q.type ?? q.tool).replace(/^mcp__memory__/, "");
        if (!["create_entities", "create_relations", "add_observations"].includes(op)) continue;
        const a = await call(ref.client, op, q.payload ?? q.args);
        if (a.isError) refused.push(i + 1);
      }
    } finally {
      await ref.close();
    }
    assert.deepEqual(refused, [4], "the reference refuses the observations of a missing entity");
    const store = path.join(dir, "store");
    const out = memsyncJson(["--store", store, "import", "orchestkit", src]);
    assert.ok(out.problems.some((p: any) => p.file === "graph-queue.jsonl" && p.line === 4), JSON.stringify(out.problems));
    const theirs = await readGraph(await reference(path.join(dir, "reference.jsonl")));
    const mine = await readGraph(await ours(store));
    assert.equal(mine.text, theirs.text);
    assert.deepEqual(mine.structured, theirs.structured);
  });
});

const NAMES = ["Alice", "alice", "Bob", "Redis", "café ☕", "x/../y", "Ünïcode"];
const TYPES = ["person", "database", "Person"];
const OBS = ["likes tea", "Likes Tea", "works at Acme", '"quoted"\tand tabbed', "ünïcode ✓", "1e-05", "line\nbreak"];
const RELS = ["knows", "uses", "works at"];

describe("mcp-memory round trip over files the reference writes", () => {
  for (const seed of [3, 14, 27]) {
    test(`seed ${seed}: import gives the reference's read_graph; export gives its lines back and a file it loads into the same graph; importing that changes nothing`, async () => {
      const r = makeRng(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
      const some = <T>(xs: readonly T[], max: number) => Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(xs));
      const dir = tempDir("memsync-mcp-rt-");
      const file = path.join(dir, "memory.jsonl");
      const ref = await reference(file);
      try {
        for (let i = 0; i < 30; i++) {
          const k = r();
          if (k < 0.35) await call(ref.client, "create_entities", { entities: some(NAMES, 3).map((name) => ({ name, entityType: pick(TYPES), observations: some(OBS, 3) })) });
          else if (k < 0.6) await call(ref.client, "create_relations", { relations: [{ from: pick(NAMES), to: pick(NAMES), relationType: pick(RELS) }] });
          else if (k < 0.8) await call(ref.client, "add_observations", { observations: [{ entityName: pick(NAMES), contents: some(OBS, 2) }] });
          else if (k < 0.9) await call(ref.client, "delete_observations", { deletions: [{ entityName: pick(NAMES), observations: some(OBS, 2) }] });
          else await call(ref.client, "delete_entities", { entityNames: [pick(NAMES)] });
        }
      } finally {
        await ref.close();
      }
      const written = fs.readFileSync(file, "utf8");
      const store = path.join(dir, "store");
      const out = memsyncJson(["--store", store, "import", "mcp-memory", file]);
      // a name twice in one create_entities call is written twice by the reference: kept, reported
      assert.ok(out.problems.every((p: any) => /^duplicate (entity|relation).*: kept/.test(p.problem)), JSON.stringify(out.problems));
      assert.equal(fs.readFileSync(file, "utf8"), written, "the source is never modified");
      const theirs = await readGraph(await reference(file));
      const mine = await readGraph(await ours(store));
      assert.equal(mine.text, theirs.text, `seed ${seed}: read_graph`);
      assert.deepEqual(mine.structured, theirs.structured);

      // export(import(file)): every line of the source comes back, and the reference loads it
      const back = path.join(dir, "exported.jsonl");
      memsyncJson(["--store", store, "export", "mcp-memory", back]);
      assert.deepEqual(linesOf(back), linesOf(file), `seed ${seed}: exported lines`);
      assert.deepEqual((await readGraph(await reference(back))).structured, theirs.structured);
      const again = memsyncJson(["--store", store, "import", "mcp-memory", back]);
      assert.equal(again.message, null, `seed ${seed}: importing the export again wrote ${again.message}`);
    });
  }
});

describe("a name twice in the reference's file", () => {
  test("one create_entities call naming an entity twice: the reference writes and shows both; the import keeps both (reported), and a second run adds nothing", async () => {
    const file = path.join(tempDir("memsync-mcp-dup-"), "memory.jsonl");
    await referenceWrites(file, [
      ["create_entities", { entities: [{ name: "Alice", entityType: "person", observations: ["likes tea"] }, { name: "Alice", entityType: "robot", observations: ["beeps", "beeps"] }] }],
      ["create_relations", { relations: [{ from: "Alice", to: "Alice", relationType: "is" }, { from: "Alice", to: "Alice", relationType: "is" }] }],
    ]);
    const theirs = await readGraph(await reference(file));
    assert.equal((theirs.structured as any).entities.length, 2, "the reference keeps both");
    const store = path.join(path.dirname(file), "store");
    const out = memsyncJson(["--store", store, "import", "mcp-memory", file]);
    assert.deepEqual(out.graph, { entities: 2, relations: 2, observations: 0 });
    assert.deepEqual(out.problems.map((p: any) => [p.line, p.problem.replace(/ \(.*\)/, "")]), [[2, 'duplicate entity "Alice": kept, as the reference server keeps it'], [4, "duplicate relation: kept, as the reference server keeps it"]]);
    assert.deepEqual((await readGraph(await ours(store))).structured, theirs.structured);
    assert.equal(memsyncJson(["--store", store, "import", "mcp-memory", file]).message, null, "a second run changes nothing");
    assert.deepEqual((await readGraph(await ours(store))).structured, theirs.structured);
  });
});

describe("the older reference's memory.json", () => {
  test("its JSONL under the old file name: a folder holding only memory.json imports as the reference reads it", async () => {
    const dir = tempDir("memsync-mcp-old-");
    const file = path.join(dir, "memory.json");
    await referenceWrites(file, [
      ["create_entities", { entities: [{ name: "Alice", entityType: "person", observations: ["likes tea"] }, { name: "Redis", entityType: "database", observations: [] }] }],
      ["create_relations", { relations: [{ from: "Alice", to: "Redis", relationType: "uses" }] }],
    ]);
    assert.ok(fs.readFileSync(file, "utf8").split("\n").length >= 3, "the reference writes lines, whatever the name");
    const store = path.join(dir, "store");
    const out = memsyncJson(["--store", store, "import", "mcp-memory", dir]);
    assert.equal(out.source, dir);
    assert.deepEqual(out.graph, { entities: 2, relations: 1, observations: 0 });
    assert.equal(out.problems_total, 0, JSON.stringify(out.problems));
    const theirs = await readGraph(await reference(file));
    assert.deepEqual((await readGraph(await ours(store))).structured, theirs.structured);
  });
});
