import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { REPO, tempDir } from "../helpers/env.ts";
import { type Answer, call, type Connected, connect, type Era, serverEnv } from "./client.ts";

// The differential test of `memsync mcp --tools memory`: the reference memory server
// (@modelcontextprotocol/server-memory, run as a process on its own JSONL file) and memsync (its
// own record files) get the same random sequences of the nine tools; every answer must be the
// same (isError, text, structuredContent), and so must tools/list and the knowledge-graph resource.

const REFERENCE = path.join(REPO, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

/** A small seeded generator (mulberry32), so a failing sequence can be run again. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const some = <T>(xs: readonly T[], max = 3): T[] => Array.from({ length: int(max + 1) }, () => pick(xs));
  return { next, int, pick, some };
}

const NAMES = ["Alice", "alice", "Bob", "Redis", "PostgreSQL", "café ☕", "x"];
const TYPES = ["person", "database", "tool", "Person"];
const OBS = ["likes tea", "Likes Tea", "works at Acme", "chose Redis over Memcached", "uses cursor pagination", "tall", "ünïcode ✓"];
const REL = ["knows", "uses", "chose_over", "works at"];

/** One random call: mostly valid, sometimes naming what does not exist, now and then malformed. */
function randomCall(r: ReturnType<typeof rng>): [string, Record<string, unknown>] {
  const rel = () => ({ from: r.pick(NAMES), to: r.pick(NAMES), relationType: r.pick(REL) });
  switch (r.int(11)) {
    case 0:
    case 1:
      return ["create_entities", { entities: r.some(NAMES, 3).map((name) => ({ name, entityType: r.pick(TYPES), observations: r.some(OBS, 2) })) }];
    case 2:
      return ["create_relations", { relations: Array.from({ length: 1 + r.int(2) }, rel) }];
    case 3:
      return ["add_observations", { observations: Array.from({ length: 1 + r.int(2) }, () => ({ entityName: r.pick(NAMES), contents: r.some(OBS, 3) })) }];
    case 4:
      return ["delete_entities", { entityNames: r.some(NAMES, 2) }];
    case 5:
      return ["delete_observations", { deletions: [{ entityName: r.pick(NAMES), observations: r.some(OBS, 2) }] }];
    case 6:
      return ["delete_relations", { relations: Array.from({ length: 1 + r.int(2) }, rel) }];
    case 7:
      return ["read_graph", {}];
    case 8:
      return ["search_nodes", { query: r.pick(["a", "ALICE", "tea", "redis", "zzz", "", "☕"]) }];
    case 9:
      return ["open_nodes", { names: r.some(NAMES, 3) }];
    default:
      return r.pick([
        ["create_entities", { entities: "not a list" }],
        ["create_relations", { relations: [{ from: "a" }] }],
        ["add_observations", {}],
        ["search_nodes", { query: 7 }],
        ["open_nodes", { names: [1, 2] }],
      ] as [string, Record<string, unknown>][]);
  }
}

function same(ref: Answer, ours: Answer, what: string): void {
  assert.equal(ours.isError, ref.isError, `${what}: isError (reference ${ref.text}, memsync ${ours.text})`);
  if (ref.isError) {
    // the SDKs word validation errors their own way; a failure of the tool itself reads the same
    if (!ref.text.includes("Input validation error")) assert.equal(ours.text, ref.text, what);
    return;
  }
  assert.equal(ours.text, ref.text, `${what}: text`);
  assert.deepEqual(ours.structured, ref.structured, `${what}: structuredContent`);
}

for (const [seed, era, steps] of [
  [1, "legacy", 45],
  [2, "auto", 45],
] as [number, Era, number][]) {
  describe(`memory profile against the reference server (seed ${seed}, ${era})`, () => {
    let ref: Connected;
    let ours: Connected;
    before(async () => {
      const dir = tempDir("memsync-mcp-diff-");
      [ref, ours] = await Promise.all([
        connect([REFERENCE], "legacy", serverEnv({ MEMORY_FILE_PATH: path.join(dir, "reference.jsonl") }), [process.execPath]),
        connect(["mcp", "--tools", "memory"], era, serverEnv({ MEMSYNC_HOME: path.join(dir, "store") })),
      ]);
    });
    after(async () => {
      await ref?.close();
      await ours?.close();
    });

    test("the same tools, schemas and annotations", async () => {
      const strip = (t: any) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations });
      const [a, b] = await Promise.all([ref.client.listTools(), ours.client.listTools()]);
      assert.deepEqual(b.tools.map(strip), a.tools.map(strip));
    });

    test(`${steps} random calls answer the same, then the graph and its resource`, async () => {
      const r = rng(seed);
      for (let i = 0; i < steps; i++) {
        const [name, args] = randomCall(r);
        const [a, b] = [await call(ref.client, name, args), await call(ours.client, name, args)];
        same(a, b, `step ${i} ${name} ${JSON.stringify(args)}`);
      }
      same(await call(ref.client, "read_graph", {}), await call(ours.client, "read_graph", {}), "final read_graph");
      const [ra, rb] = await Promise.all([ref.client.readResource({ uri: "memory://knowledge-graph" }), ours.client.readResource({ uri: "memory://knowledge-graph" })]);
      assert.deepEqual(rb.contents, ra.contents);
      const graph = (await call(ours.client, "read_graph", {})).structured as any;
      assert.ok(graph.entities.length > 0, "the sequence left a graph to compare");
    });
  });
}
