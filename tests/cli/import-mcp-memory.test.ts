import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsyncJson, REPO, tempDir } from "../helpers/env.ts";
import { call, connect, type Connected, serverEnv } from "../mcp/client.ts";

// `memsync import mcp-memory` on a memory.jsonl written by the real reference server
// (@modelcontextprotocol/server-memory, driven through its tools): afterwards read_graph of
// `memsync mcp --tools memory` answers exactly what the reference answers on the same file. And
// back: `memsync export mcp-memory` writes a file the reference loads into the same graph.

const REFERENCE = path.join(REPO, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

const reference = (file: string) => connect([REFERENCE], "legacy", serverEnv({ MEMORY_FILE_PATH: file }), [process.execPath]);

async function readGraph(c: Connected) {
  try {
    return await call(c.client, "read_graph", {});
  } finally {
    await c.close();
  }
}

describe("import mcp-memory", () => {
  test("a file the reference server wrote: the same read_graph, an export it loads again, a second import changes nothing", async () => {
    const dir = tempDir("memsync-mcp-import-");
    const file = path.join(dir, "memory.jsonl");
    const ref = await reference(file);
    try {
      await call(ref.client, "create_entities", {
        entities: [
          { name: "Alice", entityType: "person", observations: ["likes tea", "works at Acme"] },
          { name: "Redis", entityType: "database", observations: ["chosen for sessions"] },
          { name: "café ☕", entityType: "place", observations: ["\"quoted\"\tand tabbed", "ünïcode ✓"] },
          { name: "Empty", entityType: "thing", observations: [] },
        ],
      });
      await call(ref.client, "create_relations", { relations: [{ from: "Alice", to: "Redis", relationType: "uses" }, { from: "Alice", to: "Nobody", relationType: "knows" }, { from: "café ☕", to: "Alice", relationType: "serves" }] });
      await call(ref.client, "add_observations", { observations: [{ entityName: "Redis", contents: ["runs on port 6379"] }] });
      await call(ref.client, "delete_observations", { deletions: [{ entityName: "Alice", observations: ["works at Acme"] }] });
    } finally {
      await ref.close();
    }
    const written = fs.readFileSync(file, "utf8");
    assert.match(written, /"type":"entity"/);

    const store = path.join(dir, "store");
    const out = memsyncJson(["--store", store, "import", "mcp-memory", file]);
    assert.deepEqual(out.graph, { entities: 4, relations: 3, observations: 0 });
    assert.equal(out.problems_total, 0, JSON.stringify(out.problems));
    assert.match(out.message, /^import: mcp-memory 0 memories, 0 relations, graph 4 entities, 3 relations/);
    assert.equal(fs.readFileSync(file, "utf8"), written, "the source is never modified");

    const theirs = await readGraph(await reference(file));
    const ours = await readGraph(await connect(["mcp", "--tools", "memory"], "legacy", serverEnv({ MEMSYNC_HOME: store })));
    assert.equal(ours.text, theirs.text);
    assert.deepEqual(ours.structured, theirs.structured);

    const again = memsyncJson(["--store", store, "import", "mcp-memory", dir]);
    assert.equal(again.message, null);

    const back = path.join(dir, "exported.jsonl");
    assert.equal(memsyncJson(["--store", store, "export", "mcp-memory", back]).memories, 4);
    const reloaded = await readGraph(await reference(back));
    assert.deepEqual(reloaded.structured, theirs.structured);
  });
});
