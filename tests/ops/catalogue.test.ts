import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { type ErrorCode, isMemsyncError } from "../../src/core/errors.ts";
import { CATALOGUE, type OpCall } from "../../src/ops/catalogue/index.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { recordPath } from "../../src/store/layout.ts";
import { progress, withProgress } from "../../src/sync/progress.ts";
import { tempDir } from "../helpers/env.ts";

// The catalogue in-process (beside the binary tests): every entry declared with a schema that
// runs, every failure a coded MemsyncError, ids that are not ids refused before a store is touched.

function callIn(dir = tempDir("memsync-cat-")): OpCall {
  const env = opsEnvOf({ store: "store", vars: { MEMSYNC_MACHINE: "cat-test" }, cwd: dir, home: dir, hostName: "host", user: "tester" });
  return { env, cwd: dir };
}

async function rejectsWith(p: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isMemsyncError(e), `expected a MemsyncError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const ID_OPS: [string, (id: string) => Record<string, unknown>][] = [
  ["get", (id) => ({ ids: [id] })],
  ["update", (id) => ({ id, patch: { content: "x" } })],
  ["touch", (id) => ({ ids: [id] })],
  ["archive", (id) => ({ ids: [id] })],
  ["delete", (id) => ({ ids: [id] })],
  ["relate", (id) => ({ from: id, to: id })],
  ["unrelate", (id) => ({ ids: [id] })],
  ["resolve", (id) => ({ id, keep: "ours" })],
  ["promote", (id) => ({ ids: [id], dry_run: true })],
];

describe("catalogue", () => {
  test("every entry is declared once, with a summary, consistent flags, a schema and a function", async () => {
    const names = CATALOGUE.map((o) => o.name);
    assert.equal(new Set(names).size, names.length);
    for (const name of ["save", "get", "update", "touch", "archive", "delete", "relate", "unrelate", "list", "search", "recall", "context", "status", "conflicts", "resolve", "sync", "gc", "promote"]) {
      assert.ok(names.includes(name), name);
    }
    for (const op of CATALOGUE) {
      assert.ok(op.summary.length > 10 && !op.summary.includes("\n"), op.name);
      assert.ok(!(op.readOnly && op.destructive), op.name);
      assert.ok(op.output.length > 0, op.name);
      const impl = await op.load();
      assert.equal(typeof impl.run, "function", op.name);
      assert.equal(typeof impl.input.safeParse, "function", op.name);
    }
    // run from source, this is the main build: maintenance is there, flagged
    assert.deepEqual(CATALOGUE.filter((o) => o.maintenance).map((o) => o.name), ["gc", "promote"]);
  });

  test("schemas hold the defaults and limits", async () => {
    const list = await CATALOGUE.find((o) => o.name === "list")!.load();
    const parsed = list.input.safeParse({});
    assert.ok(parsed.success);
    assert.equal((parsed.data as { limit: number }).limit, 50);
    const search = await CATALOGUE.find((o) => o.name === "search")!.load();
    const s = search.input.safeParse({ query: "x" });
    assert.ok(s.success);
    assert.equal((s.data as { limit: number }).limit, 20);
    assert.equal(list.input.safeParse({ limit: -1 }).success, false);
    assert.equal(list.input.safeParse({ limit: 1.5 }).success, false);
  });

  test("the operations run in-process on a new store, each through the catalogue", async () => {
    const c = callIn();
    const saved = await runOp<any>("save", c, { memory: { content: "Use cursor pagination for list endpoints", type: "decision", tags: ["api"], project: "shop" } });
    assert.equal(saved.store_created, true);
    const id = saved.memory.id as string;
    const other = (await runOp<any>("save", c, { memories: [{ content: "Offset pagination timed out at 1M rows", project: "shop" }] })).saved[0].memory.id as string;
    assert.equal((await runOp<any>("get", c, { ids: [id.slice(-8)] })).found[0].memory.id, id);
    assert.equal((await runOp<any>("update", c, { id, patch: { importance: "high" } })).memories[0].importance, "high");
    assert.equal((await runOp<any>("touch", c, { ids: [id] })).memories[0].use_count, 1);
    const rel = await runOp<any>("relate", c, { from: other, to: id, type: "supports" });
    assert.equal(rel.relation.relation_type, "supports");
    assert.equal((await runOp<any>("list", c, {})).total, 2);
    assert.equal((await runOp<any>("list", c, { since: "1d", type: ["decision"] })).total, 1);
    assert.equal((await runOp<any>("search", c, { query: "pagination", limit: 1 })).hits.length, 1);
    assert.match((await runOp<any>("recall", c, { query: "cursor pagination" })).text, /cursor pagination/);
    assert.match((await runOp<any>("context", c, { project: "shop" })).text, /cursor pagination/);
    assert.equal((await runOp<any>("status", c, {})).health, "healthy");
    assert.equal((await runOp<any>("conflicts", c, {})).total, 0);
    assert.deepEqual((await runOp<any>("unrelate", c, { ids: [rel.relation.id] })).removed, [rel.relation.id]);
    assert.deepEqual((await runOp<any>("archive", c, { ids: [other] })).unchanged, []);
    assert.equal((await runOp<any>("gc", c, { dry_run: true })).dry_run, true);
    assert.deepEqual((await runOp<any>("delete", c, { ids: [other] })).deleted, [other]);
    assert.equal((await runOp<any>("list", c, { status: ["all"] })).total, 1);
  });

  test("failures carry codes: bad input, not found, usage, conflict, an unknown operation", async () => {
    const c = callIn();
    const id = (await runOp<any>("save", c, { memory: { content: "one" } })).memory.id as string;
    const two = (await runOp<any>("save", c, { memory: { content: "two" } })).memory.id as string;
    await rejectsWith(runOp("list", c, { limit: -1 }), "invalid_input", /limit/);
    await rejectsWith(runOp("list", c, { since: "yesterday-ish" }), "invalid_input", /invalid time/);
    await rejectsWith(runOp("save", c, { memory: { content: "x", type: "opinion" } }), "invalid_input");
    await rejectsWith(runOp("save", c, {}), "invalid_input");
    await rejectsWith(runOp("touch", c, { ids: ["0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"] }), "not_found");
    await rejectsWith(runOp("update", c, { id }), "usage", /nothing to update/);
    await rejectsWith(runOp("resolve", c, { id }), "usage");
    await rejectsWith(runOp("relate", c, { from: id, to: id }), "invalid_input", /itself/);
    await runOp("relate", c, { from: id, to: two });
    await rejectsWith(runOp("relate", c, { from: id, to: two }), "conflict");
    await rejectsWith(runOp("no-such-op", c, {}), "not_found");
  });

  test('ids that are not ids ("../x" and friends) are refused with invalid_input before a store is made', async () => {
    for (const bad of ["../x", "../../etc/passwd", "abc", "0192f4c8/../x", ""]) {
      for (const [name, input] of ID_OPS) {
        const c = callIn();
        await rejectsWith(runOp(name, c, input(bad)), "invalid_input", undefined);
        assert.equal(fs.existsSync(c.env.storeRoot), false, `${name} ${bad}`);
      }
    }
    // below the ops too: a path is never built from a bad id, and the refusal has a code
    assert.throws(() => recordPath("memory", "../x", false), (e: unknown) => isMemsyncError(e) && e.code === "invalid_input");
  });

  test("the ops environment is made of plain values", () => {
    const dir = tempDir("memsync-cat-");
    const env = opsEnvOf({ vars: { MEMSYNC_HOME: "h", MEMSYNC_MACHINE: "m", MEMSYNC_GIT_TOKEN: "t", MEMSYNC_BUSY_TIMEOUT_MS: "250" }, cwd: dir, home: "/home/x", hostName: "n", user: null });
    assert.equal(env.storeRoot, path.join(dir, "h"));
    assert.equal(env.machineOverride, "m");
    assert.equal(env.credentials?.token, "t");
    assert.equal(env.credentials?.file, "/home/x/.config/memsync/credentials");
    assert.equal(env.open?.busyTimeoutMs, 250);
    assert.equal(opsEnvOf({ store: "s", vars: { MEMSYNC_HOME: "h" }, cwd: dir, home: "/home/x", hostName: "n", user: null }).storeRoot, path.join(dir, "s"));
    assert.equal(opsEnvOf({ vars: {}, cwd: dir, home: "/home/x", hostName: "n", user: null }).storeRoot, "/home/x/.memsync");
  });

  test("progress goes to the call that asked for it, even with two calls at once", async () => {
    const seen: Record<string, string[]> = { a: [], b: [] };
    const work = async (tag: string) => {
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        progress(tag, i);
      }
    };
    await Promise.all([withProgress((p) => seen.a!.push(p), () => work("a")), withProgress((p) => seen.b!.push(p), () => work("b"))]);
    progress("nobody", 0);
    assert.deepEqual(seen, { a: ["a", "a", "a", "a", "a"], b: ["b", "b", "b", "b", "b"] });
  });
});
