import * as v from "valibot";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { type ErrorCode, isMemsyncError } from "../../src/core/errors.ts";
import { CATALOGUE, type OpCall, opNamed } from "../../src/ops/catalogue/index.ts";
import { inputJsonSchema, outputJsonSchema } from "../../src/ops/catalogue/json-schema.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { withStore } from "../../src/ops/context.ts";
import { setRemoteOp } from "../../src/ops/sync.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { recordPath } from "../../src/store/layout.ts";
import { progress, withProgress } from "../../src/sync/progress.ts";
import { git, tempDir } from "../helpers/env.ts";

// The catalogue in-process (beside the binary tests): every entry declared with a schema that
// runs, every failure a coded MemsyncError, ids that are not ids refused before a store is touched.

function callIn(dir = tempDir("memsync-cat-"), machine = "cat-test"): OpCall {
  const env = opsEnvOf({ store: "store", vars: { MEMSYNC_MACHINE: machine }, cwd: dir, home: dir, hostName: "host", user: "tester" });
  return { env, cwd: dir };
}

/** A flag of the command line in a message ("--content"): an operation's errors name input fields instead. */
const CLI_FLAG = /(^|[\s("'])--[a-z]/;

async function rejectsWith(p: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isMemsyncError(e), `expected a MemsyncError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    assert.doesNotMatch(e.message, CLI_FLAG, "an operation's error names input fields, not flags");
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
    const everyday = ["save", "remember", "capture", "get", "update", "touch", "archive", "delete", "relate", "unrelate", "list", "search", "recall", "context", "score"];
    const store = ["status", "conflicts", "resolve", "sync", "commit", "settings", "backfill-gists", "init", "reindex", "doctor", "repack"];
    for (const name of [...everyday, ...store, "gc", "promote", "consolidate", "split", "split-candidates", "maintainer"]) {
      assert.ok(names.includes(name), name);
    }
    for (const op of CATALOGUE) {
      assert.ok(op.summary.length > 10 && !op.summary.includes("\n"), op.name);
      assert.ok(!(op.readOnly && op.destructive), op.name);
      assert.ok(op.output.length > 0, op.name);
      const impl = await op.load();
      assert.equal(typeof impl.run, "function", op.name);
      assert.equal(impl.input.kind, "schema", op.name);
      assert.equal((await impl.output()).kind, "schema", op.name);
    }
    // run from source, this is the main build: maintenance is there, flagged
    assert.deepEqual(CATALOGUE.filter((o) => o.maintenance).map((o) => o.name), ["gc", "promote", "consolidate", "split", "split-candidates", "maintainer"]);
  });

  test("schemas hold the defaults and limits", async () => {
    const list = await CATALOGUE.find((o) => o.name === "list")!.load();
    const parsed = v.safeParse(list.input, {});
    assert.ok(parsed.success);
    assert.equal((parsed.output as { limit: number }).limit, 50);
    const search = await CATALOGUE.find((o) => o.name === "search")!.load();
    const s = v.safeParse(search.input, { query: "x" });
    assert.ok(s.success);
    assert.equal((s.output as { limit: number }).limit, 20);
    assert.equal(v.safeParse(list.input, { limit: -1 }).success, false);
    assert.equal(v.safeParse(list.input, { limit: 1.5 }).success, false);
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
    // the rules an operation checks itself, stated in its input's terms
    await rejectsWith(runOp("resolve", c, { id, keep: "ours", content: "x" }), "usage", /keep .*content/);
    await rejectsWith(runOp("resolve", c, { id, keep: "ours", pick: 2 }), "usage", /pick .*keep theirs/);
    await rejectsWith(runOp("context", { env: c.env }, {}), "usage", /give project/);
    await rejectsWith(runOp("remember", c, { text: "x", global: true, project: "p" }), "usage", /global and project/);
    await rejectsWith(runOp("remember", c, { text: "x", global: true, scope: "team" }), "usage", /global and scope/);
    await rejectsWith(runOp("promote", c, {}), "usage", /give ids, or auto/);
    await rejectsWith(runOp("promote", c, { ids: [id] }), "usage", /give vault/);
    await rejectsWith(runOp("split", c, { id, parts: ["one"] }), "usage", /at least two parts/);
    await rejectsWith(runOp("split", c, { id, parts: ["one", " "] }), "invalid_input", /part 2 is empty/);
    await rejectsWith(runOp("consolidate", c, { clusters: ["c000000000000"] }), "not_found", /another threshold/);
    await rejectsWith(runOp("consolidate", c, { clusters: ["x"] }), "invalid_input", /invalid cluster id/);
    await rejectsWith(runOp("settings", c, { value: "1" }), "usage", /key/);
    await runOp("maintainer", c, { claim: true });
    const other = { ...c, env: callIn(c.cwd, "other-machine").env };
    await rejectsWith(runOp("gc", other, {}), "conflict", /with claim_maintainer$/);
  });

  test("every entry's output parses against its declared output schema, field for field", async () => {
    const seen = new Set<string>();
    const dir = tempDir("memsync-cat-");
    const c = callIn(dir);
    const checked = async (name: string, input: Record<string, unknown> = {}, call: OpCall = c): Promise<any> => {
      const out = await runOp(name, call, input);
      const sent = JSON.parse(JSON.stringify(out));
      const parsed = v.safeParse((await (await opNamed(name)!.load()).output()), sent);
      assert.ok(parsed.success, `${name}: ${JSON.stringify(parsed.issues?.slice(0, 3))}`);
      // nothing the operation returns is left out of its schema (v.object drops what it does not name)
      assert.deepEqual(parsed.output, sent, `${name}: the output schema leaves out or changes fields`);
      seen.add(name);
      return out;
    };
    const init = await checked("init", {});
    assert.equal(init.already_initialized, false);
    await checked("init", {});
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const a = (await checked("save", { memory: { content: `Use cursor pagination for list endpoints. ${long}. Offsets timed out at a million rows.`, type: "decision", tags: ["api"] } })).memory.id;
    const b = (await checked("save", { memories: [{ content: "Use cursor pagination for list endpoints" }, { content: "Use cursor pagination for list endpoints!" }] })).saved[0].memory.id;
    await checked("remember", { text: "Offset pagination caused timeouts at 1M rows", outcome: "failed" });
    await checked("remember", { text: "Offset pagination caused timeouts", dry_run: true });
    await checked("capture", { text: "Let's use PostgreSQL for analytics because we need JSONB" });
    await checked("capture", { text: "Let's use Redis for sessions", dry_run: true });
    await checked("capture", { text: '{"hook_event_name": "Stop", "session_id": "s1"}' });
    await checked("get", { ids: [a, "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"] });
    await checked("update", { id: a, patch: { importance: "high" }, edits: { add_tags: ["db"] } });
    await checked("touch", { ids: [a], boost: true });
    const rel = await checked("relate", { from: b, to: a, type: "supports", metadata: { why: "test" } });
    await checked("list", { scores: true });
    await checked("search", { query: "cursor pagination", scores: true });
    await checked("recall", { query: "cursor pagination" });
    await checked("context", { project: "none-here" });
    await checked("score", { ids: [a, b] });
    const graph = await checked("graph", { status: ["all"], limit: 2 });
    assert.equal(graph.memories.length, 2);
    assert.ok(graph.total_memories >= 3 && graph.total_relations === 1);
    await checked("status");
    // a content conflict, as a merge leaves it
    await withStore(c.env, (store) =>
      store.write((tx) => {
        const m = tx.memory(b);
        tx.putMemory({ ...m, content_conflicts: [{ content: "the other text", updated_at: 1, machine: "laptop" }] });
      }, ["memory"]),
    );
    assert.equal((await checked("conflicts")).total, 1);
    await checked("resolve", { id: b, keep: "both" });
    await checked("commit");
    await checked("settings");
    await checked("settings", { key: "decay.model", value: "exponential" });
    await checked("backfill-gists", { dry_run: true });
    await checked("backfill-gists", {});
    await checked("reindex");
    await checked("doctor", { repair: true });
    await checked("score", { ids: [a] });
    assert.equal((await checked("history", { id: a })).id, a);
    await checked("maintainer");
    await checked("gc", { dry_run: true });
    await checked("promote", { ids: [a], dry_run: true });
    await checked("promote", { ids: [a], vault: path.join(dir, "vault") });
    assert.ok((await checked("consolidate")).clusters[0].members.length >= 2, "a cluster of near-duplicates");
    assert.ok((await checked("consolidate", { mode: "link" })).applied.length >= 1);
    await checked("unrelate", { ids: [rel.relation.id] });
    await checked("split-candidates", { limit: 0 });
    await checked("export", { format: "jsonl", path: path.join(dir, "backup.jsonl") });
    assert.ok((await checked("import", { format: "jsonl", path: path.join(dir, "backup.jsonl"), dry_run: true })).memories.existing >= 2);
    assert.equal((await checked("capture", { text: "Let's use PostgreSQL for analytics because we need JSONB" })).stored[0].action, "reinforced");
    await checked("split", { id: a, parts: ["Use cursor pagination for list endpoints.", { content: "Offsets timed out at a million rows.", tags: ["db"], importance: "high" }] });
    await checked("archive", { ids: [b] });
    await checked("gc", { archive: true });
    await checked("delete", { ids: [b] });
    // sync, against a bare repository on a local path
    const bare = path.join(dir, "remote.git");
    git(dir, "init", "-q", "--bare", bare);
    await withStore(c.env, (store) => setRemoteOp(store, bare, dir));
    assert.equal((await checked("sync", {})).push.pushed, true);
    await checked("sync", { direction: "pull" });
    const repacked = await checked("repack", { all: true });
    assert.ok(repacked.objects > 0 && repacked.pack, "the store's objects in one pack");
    assert.equal((await checked("repack", {})).pack, null, "then nothing to do");
    assert.deepEqual(CATALOGUE.map((o) => o.name).filter((n) => !seen.has(n)), []);
  });

  test("the schemas as JSON Schema: inputs as callers send them, outputs as operations return them", async () => {
    for (const op of CATALOGUE) {
      const input = await inputJsonSchema(op.name);
      const output = await outputJsonSchema(op.name);
      assert.equal(input.$schema, "https://json-schema.org/draft/2020-12/schema", op.name);
      assert.equal(input.type, "object", op.name);
      assert.equal(input.description, op.summary, op.name);
      assert.equal(output.title, op.output, op.name);
      assert.equal(output.type, "object", `${op.name}: an object at the top (MCP's outputSchema)`);
    }
    // defaults make a field optional in an input and are stated
    const list = (await inputJsonSchema("list")) as any;
    assert.equal(list.properties.limit.default, 50);
    assert.equal(list.required, undefined);
    assert.deepEqual((await inputJsonSchema("get")).required, ["ids"]);
    // outputs say every field they always have, and nothing more
    const get = (await outputJsonSchema("get")) as any;
    assert.deepEqual(get.required, ["found", "not_found", "unreadable"]);
    assert.equal(get.additionalProperties, false);
    const memory = get.properties.found.items.properties.memory;
    for (const f of ["id", "content", "meta", "created_at", "status", "type"]) assert.ok(memory.required.includes(f), f);
    const save = (await outputJsonSchema("save")) as any;
    assert.equal(save.anyOf.length, 2, "one memory, or a list");
    assert.ok(save.anyOf.every((s: any) => s.type === "object" && s.required.includes("store_created")));
    await rejectsWith(inputJsonSchema("no-such-op"), "not_found");
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
