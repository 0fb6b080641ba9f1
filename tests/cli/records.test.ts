import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// The record commands, end to end through the compiled binary.

async function save(store: string, args: string[], input?: string) {
  return memsyncJson<{ memory: Record<string, any>; path: string }>(["--store", store, "save", ...args], { input });
}

describe("save", () => {
  test("stores a memory file with sanitized tags, entities and type", async () => {
    const store = newStore();
    const out = await save(store, ["Use", "PostgreSQL", "for", "analytics", "-t", "Machine Learning", "--tag", "db,DB", "-e", "PostgreSQL", "--type", "decision"]);
    const m = out.memory;
    assert.equal(m.content, "Use PostgreSQL for analytics");
    assert.deepEqual(m.meta.tags, ["machine_learning", "db"]);
    assert.deepEqual(m.entities, ["PostgreSQL"]);
    assert.equal(m.type, "decision");
    assert.equal(m.captured_by.machine, "test-machine");
    assert.match(m.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, "a UUIDv7");
    const file = fs.readFileSync(path.join(store, out.path), "utf8");
    assert.equal(out.path, `memories/${m.id}.json`);
    assert.deepEqual(JSON.parse(file), m);
    assert.ok(file.endsWith("}\n") && file.includes('\n  "content": '), "2-space canonical JSON with a trailing newline");
  });

  test("text can come from standard input", async () => {
    const store = newStore();
    const out = await save(store, ["-", "--type", "fact"], "line one\nline two — with “real” UTF-8 ✓\n");
    assert.equal(out.memory.content, "line one\nline two — with “real” UTF-8 ✓\n");
    const raw = fs.readFileSync(path.join(store, out.path), "utf8");
    assert.ok(raw.includes("“real” UTF-8 ✓"), "non-ASCII is written as UTF-8, not escaped");
  });

  test("--input takes record fields and keeps fields memsync does not know", async () => {
    const store = newStore();
    const input = JSON.stringify({
      content: "Cursor pagination for list endpoints",
      type: "decision",
      decision: { what: "cursor pagination", why: "stable under inserts", alternatives: ["offset"], future_field: 1 },
      meta: { tags: ["API"], extra: { ticket: "ENG-1" }, shiny: true },
      x_newer_version: { nested: [1, 2] },
    });
    const out = await save(store, ["--input", "-"], input);
    const file = JSON.parse(fs.readFileSync(path.join(store, out.path), "utf8"));
    assert.deepEqual(file.x_newer_version, { nested: [1, 2] });
    assert.equal(file.meta.shiny, true);
    assert.equal(file.decision.future_field, 1);
    assert.deepEqual(file.meta.tags, ["api"]);
    // an update rewrites the file and the unknown fields survive it
    await memsyncJson(["--store", store, "update", out.memory.id, "--add-tag", "pagination"]);
    const after = JSON.parse(fs.readFileSync(path.join(store, out.path), "utf8"));
    assert.deepEqual(after.x_newer_version, { nested: [1, 2] });
    assert.equal(after.decision.future_field, 1);
    assert.deepEqual(after.meta.tags, ["api", "pagination"]);
  });

  test("the first save on a machine creates the default store ($MEMSYNC_HOME, else ~/.memsync)", async () => {
    const home = tempDir();
    const r = await memsync(["save", "first memory"], { env: { HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /created a new store/);
    assert.ok(fs.existsSync(path.join(home, ".memsync/.meta.json")));
    const other = path.join(tempDir(), "elsewhere");
    const r2 = await memsync(["save", "second memory"], { env: { HOME: home, MEMSYNC_HOME: other } });
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(fs.readdirSync(path.join(other, "memories")).length, 1);
    const explicit = newStore();
    const r3 = await memsync(["--store", explicit, "save", "third"], { env: { HOME: home, MEMSYNC_HOME: other } });
    assert.equal(r3.code, 0);
    assert.equal(fs.readdirSync(path.join(explicit, "memories")).length, 1, "--store wins over MEMSYNC_HOME");
    assert.equal(fs.readdirSync(path.join(other, "memories")).length, 1);
  });

  test("a folder that is not a store is never taken over", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "notes.txt"), "mine");
    const r = await memsync(["--store", dir, "save", "x"]);
    assert.equal(r.code, 6);
    assert.deepEqual(fs.readdirSync(dir), ["notes.txt"]);
  });
});

describe("get / open", () => {
  test("returns memories with outgoing and incoming relations and a not-found list", async () => {
    const store = newStore();
    const a = (await save(store, ["alpha"])).memory.id;
    const b = (await save(store, ["beta"])).memory.id;
    const c = (await save(store, ["gamma"])).memory.id;
    const rel = (await memsyncJson(["--store", store, "relate", a, b, "--type", "supports", "--strength", "0.5", "--meta", "why=test"])).relation;
    await memsyncJson(["--store", store, "relate", c, a, "--type", "CHOSE_OVER"]);
    const got = await memsyncJson(["--store", store, "open", a, b]);
    assert.deepEqual(got.not_found, []);
    const ga = got.found.find((f: any) => f.memory.id === a);
    assert.deepEqual(ga.outgoing.map((r: any) => [r.to_memory_id, r.relation_type, r.strength, r.metadata.why]), [[b, "supports", 0.5, "test"]]);
    assert.deepEqual(ga.incoming.map((r: any) => [r.from_memory_id, r.relation_type]), [[c, "CHOSE_OVER"]]);
    assert.equal(rel.from_memory_id, a);
    const missing = "0190f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    const r = await memsync(["--store", store, "get", a, missing, "--json"]);
    assert.equal(r.code, 3, "a missing id gives the not-found exit code");
    const body = JSON.parse(r.stdout);
    assert.deepEqual(body.not_found, [missing]);
    assert.equal(body.found.length, 1);
    assert.match(r.stderr, new RegExp(`not found: ${missing}`));
  });

  test("human output shows the content and relations", async () => {
    const store = newStore();
    const a = (await save(store, ["alpha content here"])).memory.id;
    const b = (await save(store, ["beta"])).memory.id;
    await memsyncJson(["--store", store, "relate", a, b]);
    const r = await memsync(["--store", store, "get", a]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /alpha content here/);
    assert.match(r.stdout, new RegExp(`-> related ${b}`));
  });
});

describe("update, touch, archive, delete", () => {
  test("update changes content and labels, clears a stale gist and moves updated_at", async () => {
    const store = newStore();
    const id = (await save(store, ["old text", "--gist", "old gist", "-t", "a", "-t", "b", "-e", "Redis"])).memory.id;
    const out = await memsyncJson(["--store", store, "update", id, "--content", "new text", "--remove-tag", "a", "--add-tag", "C", "--add-entity", "Memcached", "--project", "shop"]);
    const m = out.memories[0];
    assert.equal(m.content, "new text");
    assert.equal(m.gist, null);
    assert.deepEqual(m.meta.tags, ["b", "c"]);
    assert.deepEqual(m.entities, ["Redis", "Memcached"]);
    assert.equal(m.project, "shop");
    const same = await memsyncJson(["--store", store, "update", id, "--project", "shop"]);
    assert.deepEqual(same.unchanged, [id]);
  });

  test("touch counts uses and boosts strength up to 2.0", async () => {
    const store = newStore();
    const id = (await save(store, ["touch me", "--strength", "1.95"])).memory.id;
    const t1 = (await memsyncJson(["--store", store, "touch", id, "--boost"])).memories[0];
    assert.equal(t1.use_count, 1);
    assert.equal(t1.strength, 2);
    const t2 = (await memsyncJson(["--store", store, "touch", id])).memories[0];
    assert.equal(t2.use_count, 2);
    assert.equal(t2.strength, 2);
    assert.ok(t2.last_used >= t1.last_used);
  });

  test("archive hides a memory from list and search by default but keeps it", async () => {
    const store = newStore();
    const id = (await save(store, ["archived zebra fact"])).memory.id;
    await memsyncJson(["--store", store, "archive", id]);
    assert.equal((await memsyncJson(["--store", store, "list"])).total, 0);
    assert.equal((await memsyncJson(["--store", store, "search", "zebra"])).total, 0);
    assert.equal((await memsyncJson(["--store", store, "search", "zebra", "--status", "archived"])).total, 1);
    assert.equal((await memsyncJson(["--store", store, "list", "--status", "all"])).total, 1);
    assert.equal((await memsyncJson(["--store", store, "get", id])).found[0].memory.status, "archived");
  });

  test("delete removes the memory and every relation naming it, or reports them with --keep-relations", async () => {
    const store = newStore();
    const a = (await save(store, ["a"])).memory.id;
    const b = (await save(store, ["b"])).memory.id;
    const c = (await save(store, ["c"])).memory.id;
    const r1 = (await memsyncJson(["--store", store, "relate", a, b])).relation.id;
    const r2 = (await memsyncJson(["--store", store, "relate", c, a, "--type", "causes"])).relation.id;
    const r3 = (await memsyncJson(["--store", store, "relate", b, c])).relation.id;
    const out = await memsyncJson(["--store", store, "delete", a]);
    assert.deepEqual(out.deleted, [a]);
    assert.deepEqual(out.relations_removed.sort(), [r1, r2].sort());
    assert.equal(fs.existsSync(path.join(store, "memories", `${a}.json`)), false);
    assert.deepEqual(fs.readdirSync(path.join(store, "relations")), [`${r3}.json`]);
    const kept = await memsyncJson(["--store", store, "delete", b, "--keep-relations"]);
    assert.deepEqual(kept.relations_dangling, [r3]);
    const status = await memsyncJson(["--store", store, "status"]);
    assert.equal(status.health, "degraded");
    assert.deepEqual(status.relations.dangling.map((d: any) => d.id), [r3]);
  });

  test("relate refuses missing endpoints, duplicates and unknown types", async () => {
    const store = newStore();
    const a = (await save(store, ["a"])).memory.id;
    const b = (await save(store, ["b"])).memory.id;
    await memsyncJson(["--store", store, "relate", a, b, "--type", "USES"]);
    const dup = await memsync(["--store", store, "relate", a, b, "--type", "USES"]);
    assert.equal(dup.code, 5);
    assert.match(dup.stderr, /already exists/);
    assert.equal((await memsync(["--store", store, "relate", b, a, "--type", "USES"])).code, 0, "the other direction is another relation");
    assert.equal((await memsync(["--store", store, "relate", a, "0190f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"])).code, 3);
    assert.equal((await memsync(["--store", store, "relate", a, b, "--type", "likes"])).code, 4);
    assert.equal((await memsync(["--store", store, "relate", a, a])).code, 4);
    const unrel = await memsyncJson(["--store", store, "unrelate", (await memsyncJson(["--store", store, "get", a])).found[0].outgoing[0].id]);
    assert.equal(unrel.removed.length, 1);
  });
});
