import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { CATALOGUE } from "../../src/ops/catalogue/index.ts";
import { EDGE_BIN, memsync, memsyncJson, snapshot, tempDir } from "../helpers/env.ts";
import { type Answer, call, type Connected, connect, type Era, okJson, serverEnv } from "./client.ts";

// `memsync mcp` (the memsync profile) driven over stdio by the SDK's client, in both protocol
// generations: every catalogue entry is a tool with its flags as annotations, every tool answers
// structuredContent (the client checks it against the outputSchema) and the same JSON as text,
// and bad arguments are isError results with memsync's code that change nothing.

const MAINTENANCE = new Set(CATALOGUE.filter((o) => o.maintenance).map((o) => o.name));

/** The store's files (its index and git aside): what a refused call must leave as it was. */
const storeState = (store: string) => snapshot(store, (rel) => rel === ".memsync" || rel === ".git");

function refused(a: Answer, code: string, what: string): void {
  assert.equal(a.isError, true, `${what} must fail`);
  assert.equal(JSON.parse(a.text).error.code, code, `${what}: ${a.text}`);
}

for (const era of ["legacy", "auto"] as Era[]) {
  describe(`memsync mcp over stdio (${era === "legacy" ? "2025 initialize handshake" : "2026-07-28 server/discover"})`, () => {
    let c: Connected;
    let store: string;
    before(async () => {
      store = path.join(tempDir(), "store");
      memsyncJson(["init", store]);
      c = await connect(["mcp"], era, serverEnv({ MEMSYNC_HOME: store }));
    });
    after(async () => c?.close());

    test("speaks the generation the client opened with", () => {
      const v = c.client.getNegotiatedProtocolVersion();
      if (era === "auto") assert.equal(v, "2026-07-28");
      else assert.ok(v && v < "2026-07-28", `a 2025-era revision, got ${v}`);
      assert.equal(c.client.getServerVersion()?.name, "memsync");
    });

    test("one tool per catalogue entry, with the entry's flags as annotations and object schemas", async () => {
      const { tools } = await c.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), CATALOGUE.map((o) => o.name).sort());
      for (const t of tools) {
        const info = CATALOGUE.find((o) => o.name === t.name)!;
        assert.deepEqual(t.annotations, { readOnlyHint: info.readOnly, destructiveHint: info.destructive, idempotentHint: info.idempotent, openWorldHint: false }, t.name);
        assert.equal(t.inputSchema.type, "object", t.name);
        assert.equal(t.outputSchema?.type, "object", t.name);
        assert.ok(t.description && t.description.length > 30, t.name);
      }
    });

    test("every tool answers: structuredContent and the same JSON as text, or an isError with a code", async () => {
      const saved = okJson(await call(c.client, "save", { memory: { content: "Use cursor pagination for list endpoints", type: "decision", tags: ["api"] } }), "save");
      const id = saved.memory.id as string;
      const other = okJson(await call(c.client, "save", { memory: { content: "Offset pagination timed out at 1M rows", type: "problem" } }), "save 2").memory.id as string;
      const valid: Record<string, Record<string, unknown>> = {
        save: { memories: [{ content: "Prefer Redis for sessions" }] },
        get: { ids: [id] },
        update: { id, patch: { importance: "high" } },
        touch: { ids: [id] },
        relate: { from: id, to: other, type: "related" },
        list: {},
        search: { query: "pagination" },
        recall: { query: "pagination" },
        context: { project: "memsync" },
        status: {},
        conflicts: {},
        archive: { ids: [other] },
        score: { ids: [id] },
        gc: { dry_run: true },
        promote: { ids: [id], dry_run: true },
        "split-candidates": {},
        consolidate: {},
      };
      const { tools } = await c.client.listTools();
      const answers = new Map<string, Answer>();
      for (const t of tools) {
        if (["delete", "unrelate", "sync", "resolve"].includes(t.name)) continue; // below
        const a = await call(c.client, t.name, valid[t.name] ?? {});
        answers.set(t.name, a);
        if (a.isError) assert.match(JSON.parse(a.text).error.code, /^(usage|not_found|invalid_input|conflict|unavailable|corrupt)$/, `${t.name}: ${a.text}`);
        else okJson(a, t.name);
      }
      for (const name of ["save", "get", "update", "touch", "relate", "list", "search", "recall", "status", "conflicts", "archive"]) {
        assert.equal(answers.get(name)?.isError, false, `${name}: ${answers.get(name)?.text}`);
      }
      assert.equal((answers.get("get")!.structured as any).found[0].memory.id, id);
      const search = answers.get("search")!.structured as any;
      assert.ok(search.hits.length >= 1);
      const rel = (answers.get("relate")!.structured as any).relation.id as string;
      okJson(await call(c.client, "unrelate", { ids: [rel] }), "unrelate");
      okJson(await call(c.client, "delete", { ids: [other] }), "delete");
      // no remote: sync says so (unavailable or usage), resolve finds no conflict
      const sync = await call(c.client, "sync", {});
      assert.equal(sync.isError, true);
      const resolve = await call(c.client, "resolve", { id, keep: "ours" });
      refused(resolve, "invalid_input", "resolve without a conflict");
    });

    test("bad arguments: isError with the code, and nothing changed", async () => {
      const before = storeState(store);
      refused(await call(c.client, "save", { memory: "not an object" }), "invalid_input", "save of a string");
      refused(await call(c.client, "save", { memory: { content: "   " } }), "invalid_input", "save of empty content");
      refused(await call(c.client, "get", { ids: ["../../etc/passwd"] }), "invalid_input", "get of a path");
      refused(await call(c.client, "delete", { ids: ["0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"] }), "not_found", "delete of no memory");
      refused(await call(c.client, "update", { id: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d", patch: { content: "x" } }), "not_found", "update of no memory");
      refused(await call(c.client, "list", { limit: -1 }), "invalid_input", "a negative limit");
      refused(await call(c.client, "touch", {}), "invalid_input", "touch without ids");
      assert.deepEqual(storeState(store), before);
    });

    test("answers are bounded: a page over the bound is refused with a hint, small default pages", async () => {
      const big = "x".repeat(40_000);
      // a write over the bound has happened: its answer stays, with a short text naming the ids
      const saved = await call(c.client, "save", { memories: [{ content: `${big} one` }, { content: `${big} two` }, { content: `${big} three` }] });
      assert.equal(saved.isError, false, saved.text);
      const summary = JSON.parse(saved.text);
      assert.equal(summary.ids.length, 3);
      assert.deepEqual(summary.ids, (saved.structured as any).saved.map((s: any) => s.memory.id));
      const all = await call(c.client, "list", { limit: 0 });
      refused(all, "invalid_input", "a page of every large memory");
      assert.match(JSON.parse(all.text).error.message, /over the bound/);
      const one = okJson(await call(c.client, "list", { limit: 1 }), "a page of one");
      assert.equal(one.memories.length, 1);
      const { tools } = await c.client.listTools();
      assert.equal((tools.find((t) => t.name === "list")!.inputSchema.properties as any).limit.default, 20);
    });
  });
}

describe("memsync mcp and its stdin", () => {
  test("exits 0 when stdin closes, with nothing but MCP on stdout (here: nothing)", () => {
    const r = memsync(["mcp"], { input: "", env: { MEMSYNC_HOME: path.join(tempDir(), "store") } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
  });
});

describe("memsync-edge mcp", () => {
  test("has no maintenance tools", async () => {
    const c = await connect(["mcp"], "legacy", serverEnv({ MEMSYNC_HOME: path.join(tempDir(), "store") }), [EDGE_BIN]);
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("save") && names.includes("recall"));
      for (const m of MAINTENANCE) assert.ok(!names.includes(m), `${m} must be absent from the edge build`);
    } finally {
      await c.close();
    }
  });
});
