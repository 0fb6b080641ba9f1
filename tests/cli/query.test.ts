import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { binaryThenInProcess, memsyncCase, newStore } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// list and search through the compiled binary: every match however old, never a non-match.

const DAY = 86_400;
const NOW = Math.floor(Date.now() / 1000);

async function saveAt(store: string, content: string, ageDays: number, extra: Record<string, unknown> = {}): Promise<string> {
  const t = NOW - ageDays * DAY;
  const input = JSON.stringify({ content, created_at: t, last_used: t, ...extra });
  return (await memsyncJson(["--store", store, "save", "--input", "-"], { input })).memory.id;
}

/** Several at once (one process, one operation); their ids in order. */
async function saveManyAt(store: string, items: [content: string, ageDays: number, extra?: Record<string, unknown>][]): Promise<string[]> {
  return await saveMany(store, items.map(([content, ageDays, extra]) => ({ content, created_at: NOW - ageDays * DAY, last_used: NOW - ageDays * DAY, ...extra })));
}

describe("search", () => {
  test("finds every matching memory however old, ranks them, and returns no non-match", async () => {
    const store = newStore();
    const [old, mid] = await saveManyAt(store, [
      ["Offset pagination timed out on the orders table", 700],
      ["We moved list endpoints to cursor pagination", 200, { meta: { tags: ["pagination"] } }],
      // many recent memories that do not match, so a search limited to recent ones would miss the old
      ...Array.from({ length: 30 }, (_, i): [string, number] => [`Unrelated note number ${i} about logging`, 0]),
    ]);
    const recent = await saveAt(store, "Pagination cursor must be opaque to clients", 1);
    const out = await memsyncJson(["--store", store, "search", "pagination"]);
    assert.equal(out.total, 3);
    assert.deepEqual(new Set(out.hits.map((h: any) => h.memory.id)), new Set([old, mid, recent]));
    for (const h of out.hits) assert.match(`${h.memory.content} ${h.memory.meta.tags.join(" ")}`, /paginat/i);
    assert.equal(out.hits[0].memory.id, mid, "a tag match ranks above body-only matches");
    const both = await memsyncJson(["--store", store, "search", "cursor", "pagination"]);
    assert.deepEqual(new Set(both.hits.map((h: any) => h.memory.id)), new Set([mid, recent]), "all words must match");
    const any = await memsyncJson(["--store", store, "search", "orders", "opaque", "--any"]);
    assert.deepEqual(new Set(any.hits.map((h: any) => h.memory.id)), new Set([old, recent]));
    assert.equal((await memsyncJson(["--store", store, "search", "kubernetes"])).total, 0);
  });

  test("matches prefixes and stems, tags and entities", async () => {
    const store = newStore();
    const [pg, tagged, stem] = await saveManyAt(store, [
      ["Analytics runs on it", 3, { entities: ["PostgreSQL"] }],
      ["A note", 3, { meta: { tags: ["Machine Learning"] } }],
      ["The workers were timing out under load", 3],
    ]);
    assert.deepEqual((await memsyncJson(["--store", store, "search", "postgres"])).hits.map((h: any) => h.memory.id), [pg]);
    assert.deepEqual((await memsyncJson(["--store", store, "search", "machine_learning"])).hits.map((h: any) => h.memory.id), [tagged]);
    assert.deepEqual((await memsyncJson(["--store", store, "search", "timed", "loads"])).hits.map((h: any) => h.memory.id), [stem]);
  });

  test("query text is never FTS syntax", async () => {
    const store = newStore();
    await saveAt(store, "plain text memory", 0);
    for (const [i, q] of ['" OR 1=1 --', "NEAR(plain text)", "plain*", "content:plain", "(plain) AND -text", "^plain"].entries()) {
      const r = await memsyncCase(i, ["--store", store, "search", q, "--json"]);
      assert.equal(r.code, 0, `${q}: ${r.stderr}`);
      for (const h of JSON.parse(r.stdout).hits) assert.match(h.memory.content, /plain/);
    }
    const none = await memsync(["--store", store, "search", "--", "-- ** ()"]);
    assert.equal(none.code, 4, "a query without words is invalid input");
  });

  test("filters and limit", async () => {
    const store = newStore();
    const [a] = await saveManyAt(store, [
      ["redis cache decision", 10, { type: "decision", project: "shop", meta: { tags: ["cache"] } }],
      ["redis cache fact", 10, { type: "fact", project: "blog" }],
      ["redis cache old", 400, { type: "decision", project: "shop" }],
    ]);
    assert.deepEqual(
      (await memsyncJson(["--store", store, "search", "redis", "--type", "decision", "--project", "shop", "--since", "30d"])).hits.map((h: any) => h.memory.id),
      [a],
    );
    assert.equal((await memsyncJson(["--store", store, "search", "redis", "--tag", "cache"])).total, 1);
    assert.deepEqual((await memsyncJson(["--store", store, "search", "redis", "--type", "decision", "--before", "30d"])).hits.map((h: any) => h.memory.id).length, 1);
    const limited = await memsyncJson(["--store", store, "search", "redis", "--limit", "2"]);
    assert.equal(limited.hits.length, 2);
    assert.equal(limited.total, 3);
  });
});

describe("list", () => {
  test("newest first, with filters by status, tag, type, project, since and before", async () => {
    const store = newStore();
    const [old, newer, newest] = await saveManyAt(store, [
      ["old one", 100, { type: "pattern", meta: { tags: ["x"] } }],
      ["newer one", 5, { type: "problem", project: "p1" }],
      ["newest one", 1, { type: "problem", project: "p1", meta: { tags: ["x"] } }],
    ]) as [string, string, string];
    const all = await memsyncJson(["--store", store, "list"]);
    assert.deepEqual(all.memories.map((m: any) => m.id), [newest, newer, old]);
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--tag", "x"])).memories.map((m: any) => m.id), [newest, old]);
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--type", "problem", "--project", "p1"])).memories.map((m: any) => m.id), [newest, newer]);
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--since", "30d"])).memories.map((m: any) => m.id), [newest, newer]);
    const iso = new Date((NOW - 50 * DAY) * 1000).toISOString().slice(0, 10);
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--since", iso])).memories.map((m: any) => m.id), [newest, newer]);
    // a date range: --before is exclusive (created before it)
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--since", "200d", "--before", "3d"])).memories.map((m: any) => m.id), [newer, old]);
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--before", iso])).memories.map((m: any) => m.id), [old]);
    const bad = await memsync(["--store", store, "list", "--before", "2026-02-30"]);
    assert.equal(bad.code, 4, bad.stderr);
    assert.match(bad.stderr, /^memsync: invalid time "2026-02-30"/);
    await memsyncJson(["--store", store, "archive", newer]);
    assert.deepEqual((await memsyncJson(["--store", store, "list", "--status", "archived"])).memories.map((m: any) => m.id), [newer]);
    const one = await memsyncJson(["--store", store, "list", "--limit", "1"]);
    assert.equal(one.memories.length, 1);
    assert.equal(one.total, 2);
    assert.match((await memsync(["--store", store, "list", "--limit", "1"])).stdout, /1 of 2 memories/);
  });
});

describe("graph", () => {
  test("pages through memories newest first, with the relations touching the page and the store's totals", async () => {
    const store = newStore();
    const [a, b, c] = await saveManyAt(store, [
      ["Graph: the oldest memory", 3],
      ["Graph: the middle memory", 2],
      ["Graph: the newest memory", 1],
    ]);
    const rel = (await memsyncJson(["--store", store, "relate", a!, b!, "--type", "supports"])).relation.id;
    const first = await memsyncJson(["--store", store, "graph", "--limit", "1"]);
    assert.deepEqual(first.memories.map((m: any) => m.id), [c]);
    assert.deepEqual(first.relations, [], "no relation touches the newest memory");
    assert.equal(first.total_memories, 3);
    assert.equal(first.total_relations, 1);
    const second = await memsyncJson(["--store", store, "graph", "--limit", "2", "--offset", "1"]);
    assert.deepEqual(second.memories.map((m: any) => m.id), [b, a]);
    assert.deepEqual(second.relations.map((r: any) => r.id), [rel], "each relation once, though both ends are on the page");
    assert.equal((await memsync(["--store", store, "graph", "--limit", "0"])).code, 4);
  });
});
