import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { EDGE_BIN, memsyncJson, newStore, snapshot, tempDir } from "../helpers/env.ts";
import { type Answer, call, type Connected, connect, mountInProcess, okJson, serverEnv } from "./client.ts";

// `memsync mcp --tools cortexgraph`: CortexGraph's tools under their own names, defaults and
// answer shapes, driven by the SDK's client over stdio (one server for the file), every tool
// called, bad arguments refused with a code and nothing changed; the edge build without the
// maintenance tools; the same profile over HTTP at /mcp/cortexgraph.


const EVERYDAY = ["save_memory", "search_memory", "search_unified", "touch_memory", "open_memories", "read_graph", "create_relation", "analyze_message", "analyze_for_recall", "auto_recall_process_message"];
const MAINTENANCE = ["cluster_memories", "consolidate_memories", "gc", "promote_memory", "split_memory"];
const UNSUPPORTED = ["backfill_embeddings", "get_performance_metrics", "reset_performance_metrics"];

/** The store's files (its index and git aside): what a refused call must leave as it was. */
const storeState = (store: string) => snapshot(store, (rel) => rel === ".memsync" || rel === ".git");

function refused(a: Answer, code: string, what: string): any {
  assert.equal(a.isError, true, `${what} must fail: ${a.text}`);
  const body = JSON.parse(a.text);
  assert.equal(body.error.code, code, `${what}: ${a.text}`);
  assert.equal(body.success, false, what);
  return body;
}

describe("memsync mcp --tools cortexgraph (stdio)", () => {
  let c: Connected;
  let store: string;
  before(async () => {
    store = path.join(tempDir(), "store");
    memsyncJson(["init", store]);
    c = await connect(["mcp", "--tools", "cortexgraph"], "legacy", serverEnv({ MEMSYNC_HOME: store, MEMSYNC_VAULT: tempDir("memsync-vault-") }));
  });
  after(async () => c?.close());

  test("CortexGraph's tool names, with annotations and its defaults in the schemas", async () => {
    assert.equal(c.client.getServerVersion()?.name, "memsync-cortexgraph");
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...EVERYDAY, ...MAINTENANCE, ...UNSUPPORTED].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const t of tools) {
      assert.equal(t.annotations?.openWorldHint, false, t.name);
      assert.equal(typeof t.annotations?.readOnlyHint, "boolean", t.name);
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.equal(t.outputSchema?.type, "object", t.name);
    }
    const props = (name: string) => byName.get(name)!.inputSchema.properties as Record<string, any>;
    assert.equal(props("gc").dry_run.default, true);
    assert.equal(props("gc").archive_instead.default, false);
    assert.equal(props("search_memory").top_k.default, 10);
    assert.equal(props("search_memory").include_review_candidates.default, true);
    assert.equal(props("search_unified").ltm_weight.default, 0.7);
    assert.equal(props("read_graph").status.default, "active");
    assert.equal(props("consolidate_memories").cohesion_threshold.default, 0.75);
    assert.equal(props("promote_memory").target.default, "obsidian");
    assert.deepEqual(byName.get("touch_memory")!.inputSchema.required, ["memory_id"]);
    assert.deepEqual(byName.get("save_memory")!.inputSchema.required, ["content"]);
    assert.equal(byName.get("gc")!.annotations?.destructiveHint, true);
    assert.equal(byName.get("search_memory")!.annotations?.readOnlyHint, true);
  });

  test("every tool answers in CortexGraph's shape: structuredContent and the same JSON as text", async () => {
    const save = async (content: string, extra: Record<string, unknown> = {}) => okJson(await call(c.client, "save_memory", { content, ...extra }), "save_memory");
    const a = await save("Use cursor pagination for every list endpoint of the orders API", { tags: ["api"], entities: ["orders-api"], source: "review", context: "API review", meta: { ticket: 7 } });
    assert.equal(a.success, true);
    assert.match(a.message, /^Memory saved with ID: /);
    assert.equal(a.has_embedding, false);
    assert.equal(a.calculated_strength, 1);
    const id = a.memory_id as string;
    const b = (await save("Use cursor pagination for every list endpoint of the orders API service")).memory_id as string;
    const long = (await save("Redis holds the sessions. Postgres holds the orders and the invoices.", { strength: 1.5 })).memory_id as string;

    const s = okJson(await call(c.client, "search_memory", { query: "cursor pagination" }), "search_memory");
    assert.ok(s.results.length >= 2 && s.count === s.results.length);
    assert.ok(s.results.some((r: any) => r.id === id));
    const hit = s.results.find((r: any) => r.id === id);
    assert.deepEqual(Object.keys(hit).sort(), ["age_days", "content", "id", "last_used", "review_priority", "score", "similarity", "tags", "use_count"]);
    assert.equal(s.pagination, undefined);
    const paged = okJson(await call(c.client, "search_memory", { query: "cursor pagination", page: 1, page_size: 1, preview_length: 10 }), "search_memory paged");
    assert.equal(paged.results.length, 1);
    assert.equal(paged.pagination.has_more, true);
    assert.ok(paged.results[0].content.endsWith("..."));
    const none = okJson(await call(c.client, "search_memory", { query: "kubernetes" }), "search_memory no match");
    assert.equal(none.count, 0);
    const u = okJson(await call(c.client, "search_unified", { query: "sessions" }), "search_unified");
    assert.equal(u.results[0].memory_id, long);
    assert.equal(u.results[0].source, "stm");
    const noQuery = okJson(await call(c.client, "search_memory", { top_k: 2, tags: ["api"] }), "search_memory without a query");
    assert.deepEqual(noQuery.results.map((x: any) => x.id), [id]);

    const t = okJson(await call(c.client, "touch_memory", { memory_id: id, boost_strength: true }), "touch_memory");
    assert.equal(t.use_count, 1);
    assert.equal(t.strength, 1.1);
    assert.match(t.message, /Memory reinforced\. Score: .* -> /);

    const r = okJson(await call(c.client, "create_relation", { from_memory_id: id, to_memory_id: long, relation_type: "supports", strength: 0.5 }), "create_relation");
    assert.equal(r.type, "supports");
    const again = refused(await call(c.client, "create_relation", { from_memory_id: id, to_memory_id: long, relation_type: "supports" }), "conflict", "a second equal relation");
    assert.match(again.message, /already exists/);

    const o = okJson(await call(c.client, "open_memories", { memory_ids: [id, "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"] }), "open_memories");
    assert.equal(o.count, 1);
    assert.deepEqual(o.not_found, ["0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d"]);
    assert.equal(o.memories[0].source, "review");
    assert.equal(o.memories[0].context, "API review");
    assert.equal(o.memories[0].relations.outgoing[0].to, long);
    assert.equal(typeof o.memories[0].score, "number");
    const bare = okJson(await call(c.client, "open_memories", { memory_ids: id, include_relations: false, include_scores: false }), "open_memories bare");
    assert.equal(bare.memories[0].relations, undefined);
    assert.equal(bare.memories[0].score, undefined);

    const g = okJson(await call(c.client, "read_graph", {}), "read_graph");
    assert.equal(g.stats.total_memories, 3);
    assert.equal(g.stats.total_relations, 1);
    assert.equal(g.relations[0].from, id);
    assert.deepEqual(g.pagination, { page: 1, page_size: 20, total_count: 3, total_pages: 1, has_more: false });
    const g2 = okJson(await call(c.client, "read_graph", { page: 2, page_size: 2 }), "read_graph page 2");
    assert.equal(g2.memories.length, 1);
    assert.equal(g2.pagination.has_more, false);

    const cl = okJson(await call(c.client, "cluster_memories", {}), "cluster_memories");
    assert.equal(cl.mode, "clustering");
    const cluster = cl.clusters.find((x: any) => x.memory_ids.includes(id));
    assert.ok(cluster, JSON.stringify(cl));
    assert.deepEqual([...cluster.memory_ids].sort(), [id, b].sort());
    const dup = okJson(await call(c.client, "cluster_memories", { find_duplicates: true, duplicate_threshold: 0.5 }), "cluster_memories duplicates");
    assert.equal(dup.mode, "duplicate_detection");
    assert.ok(dup.duplicates.some((d: any) => [d.id1, d.id2].sort().join() === [id, b].sort().join()));
    const pv = okJson(await call(c.client, "consolidate_memories", { cluster_id: cluster.id }), "consolidate_memories preview");
    assert.equal(pv.mode, "preview");
    assert.equal(pv.memory_count, 2);
    const auto = okJson(await call(c.client, "consolidate_memories", { auto_detect: true, cohesion_threshold: 0.5 }), "consolidate_memories auto preview");
    assert.equal(auto.mode, "auto_detect_preview");

    const gc = okJson(await call(c.client, "gc", {}), "gc");
    assert.equal(gc.dry_run, true);
    assert.equal(gc.total_affected, 0);
    assert.match(gc.message, /^Would remove 0 .*threshold/);

    const pr = okJson(await call(c.client, "promote_memory", { memory_id: long, dry_run: true, force: true }), "promote_memory");
    assert.equal(pr.candidates_found, 1);
    assert.equal(pr.promoted_count, 0);
    assert.equal(pr.candidates[0].id, long);
    assert.match(pr.message, /^Would promote 1/);

    const am = okJson(await call(c.client, "analyze_message", { message: "We decided to use PostgreSQL for the analytics database because JSONB queries are fast" }), "analyze_message");
    assert.equal(am.should_save, true);
    assert.ok(am.confidence > 0.5);
    const quiet = okJson(await call(c.client, "analyze_message", { message: "ok thanks" }), "analyze_message nothing");
    assert.equal(quiet.should_save, false);
    const ar = okJson(await call(c.client, "analyze_for_recall", { message: "What did we decide about pagination?" }), "analyze_for_recall");
    assert.equal(ar.should_search, true);
    assert.equal(ar.suggested_query, "about pagination");
    assert.ok(ar.confidence >= 0.9);

    const rec = okJson(await call(c.client, "auto_recall_process_message", { message: "the sessions in redis" }), "auto_recall_process_message");
    assert.deepEqual(rec.memories_reinforced, [long]);
    const opened = okJson(await call(c.client, "open_memories", { memory_ids: long }), "open after auto recall");
    assert.equal(opened.memories[0].use_count, 1);

    const sp = okJson(await call(c.client, "split_memory", { memory_id: long, split_contents: ["Redis holds the sessions.", "Postgres holds the orders and the invoices."], split_tags: [["redis"], ["postgres"]] }), "split_memory");
    assert.equal(sp.new_memory_ids.length, 2);
    assert.equal(sp.original_id, long);
    const parts = okJson(await call(c.client, "open_memories", { memory_ids: sp.new_memory_ids, include_scores: false }), "split parts");
    assert.deepEqual(parts.memories.map((m: any) => m.tags), [["redis"], ["postgres"]]);
    assert.equal(parts.memories[0].strength, 1.5);

    const ap = okJson(await call(c.client, "consolidate_memories", { cluster_id: cluster.id, mode: "apply" }), "consolidate_memories apply");
    assert.equal(ap.mode, "apply");
    assert.deepEqual([...ap.source_ids].sort(), [id, b].sort());
    assert.equal(typeof ap.new_memory_id, "string");

    for (const name of UNSUPPORTED) {
      const body = refused(await call(c.client, name, {}), "unavailable", name);
      assert.match(body.message, /not supported/);
    }
  });

  test("analyze_for_recall and auto_recall_process_message never echo a secret the message holds", async () => {
    const secret = "ghp_" + "Wk4".repeat(12); // built at run time: no token-shaped literal in the repository
    const parts = [secret.toLowerCase(), "wk4wk4"];
    const asked = okJson(await call(c.client, "analyze_for_recall", { message: `What did we decide about the deploy token ${secret}?` }), "analyze_for_recall, a recall request");
    const plain = okJson(await call(c.client, "analyze_for_recall", { message: `the deploy token ${secret} for releases` }), "analyze_for_recall, a statement");
    const topics = okJson(await call(c.client, "auto_recall_process_message", { message: `rotate the deploy token ${secret} for releases` }), "auto_recall_process_message");
    assert.match(asked.suggested_query, /deploy token \[REDACTED:/, asked.suggested_query);
    for (const [what, body] of [["recall request", asked], ["statement", plain], ["auto recall", topics]] as const) {
      const text = JSON.stringify(body).toLowerCase();
      for (const p of parts) assert.ok(!text.includes(p), `${what} echoed "${p}": ${text.slice(0, 300)}`);
    }
  });

  test("bad arguments: isError with a code, and nothing changed", async () => {
    const id = okJson(await call(c.client, "save_memory", { content: "A memory the refusals must leave alone" }), "save").memory_id;
    const before = storeState(store);
    refused(await call(c.client, "save_memory", { content: "" }), "invalid_input", "empty content");
    refused(await call(c.client, "save_memory", { content: "x", strength: 3 }), "invalid_input", "strength over 2");
    refused(await call(c.client, "save_memory", { content: "x", tags: "api" }), "invalid_input", "tags not a list");
    refused(await call(c.client, "save_memory", {}), "invalid_input", "no content");
    refused(await call(c.client, "touch_memory", { memory_id: "../../etc/passwd" }), "invalid_input", "touch of a path");
    const missing = refused(await call(c.client, "touch_memory", { memory_id: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d" }), "not_found", "touch of no memory");
    assert.match(missing.message, /^Memory not found/);
    refused(await call(c.client, "gc", { limit: 0 }), "invalid_input", "gc limit 0");
    refused(await call(c.client, "gc", { limit: 10_001 }), "invalid_input", "gc limit over 10,000");
    refused(await call(c.client, "read_graph", { status: "deleted" }), "invalid_input", "read_graph of an unknown status");
    refused(await call(c.client, "read_graph", { page_size: 101 }), "invalid_input", "a page over 100");
    refused(await call(c.client, "search_memory", { top_k: 101 }), "invalid_input", "top_k over 100");
    refused(await call(c.client, "promote_memory", {}), "usage", "promote of nothing");
    refused(await call(c.client, "promote_memory", { memory_id: id, target: "bear" }), "unavailable", "promote to Bear");
    refused(await call(c.client, "promote_memory", { memory_id: id }), "invalid_input", "promote of a memory under the criteria");
    refused(await call(c.client, "create_relation", { from_memory_id: id, to_memory_id: id, relation_type: "has_decision" }), "invalid_input", "an unknown relation type");
    refused(await call(c.client, "consolidate_memories", { mode: "apply" }), "usage", "apply without a cluster");
    refused(await call(c.client, "consolidate_memories", { cluster_id: "not-a-cluster" }), "invalid_input", "a bad cluster id");
    refused(await call(c.client, "split_memory", { memory_id: id, split_contents: ["a", "b"], split_tags: [["x"]] }), "invalid_input", "split tags for fewer parts");
    refused(await call(c.client, "split_memory", { memory_id: id, split_contents: ["only one"] }), "usage", "split into one part");
    refused(await call(c.client, "open_memories", { memory_ids: Array.from({ length: 101 }, (_, i) => `0192f4c8-6a1e-7c3a-9b1d-${String(i).padStart(12, "0")}`) }), "invalid_input", "101 ids");
    refused(await call(c.client, "auto_recall_process_message", { message: "   " }), "invalid_input", "an empty message");
    assert.deepEqual(storeState(store), before);
  });

  test("read_graph shows previews; open_memories over the bound is refused with a hint, a page of it answers", async () => {
    const big = (n: number) => `${"Long memory text about cursor pagination. ".repeat(1100)} number ${n}`;
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(okJson(await call(c.client, "save_memory", { content: big(n) }), "save big").memory_id);
    const g = okJson(await call(c.client, "read_graph", { page_size: 100 }), "read_graph of long memories");
    assert.deepEqual(g.memories.slice(0, 3).map((m: any) => m.id), [...ids].reverse(), "newest first");
    for (const m of g.memories) assert.ok(m.content.length <= 303, `a preview, not ${m.content.length} characters`);
    const all = refused(await call(c.client, "open_memories", { memory_ids: ids }), "invalid_input", "three long memories at once");
    assert.match(all.message, /over the bound/);
    const one = okJson(await call(c.client, "open_memories", { memory_ids: ids, page: 1, page_size: 1 }), "a page of one");
    assert.equal(one.memories[0].content.length, big(1).length);
    assert.equal(one.pagination.total_pages, 3);
  });
});

describe("memsync-edge mcp --tools cortexgraph", () => {
  test("has no maintenance tools", async () => {
    const c = await connect(["mcp", "--tools", "cortexgraph"], "auto", serverEnv({ MEMSYNC_HOME: path.join(tempDir(), "store") }), [EDGE_BIN]);
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names.sort(), [...EVERYDAY, ...UNSUPPORTED].sort());
    } finally {
      await c.close();
    }
  });
});

describe("the cortexgraph profile over HTTP at /mcp/cortexgraph", () => {
  test("2026-07-28 revision: list, save_memory, search_memory, a refusal", async () => {
    const store = newStore();
    const server = await mountInProcess(store);
    const c = new Client({ name: "memsync-tests", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    try {
      await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp/cortexgraph`)));
      assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
      const names = (await c.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("save_memory") && names.includes("read_graph") && names.includes("gc"));
      const saved = (await c.callTool({ name: "save_memory", arguments: { content: "HTTP: offset pagination timed out at a million rows" } })) as any;
      assert.equal(saved.isError, undefined, JSON.stringify(saved));
      const found = (await c.callTool({ name: "search_memory", arguments: { query: "offset pagination" } })) as any;
      assert.equal(found.structuredContent.results[0].id, saved.structuredContent.memory_id);
      const bad = (await c.callTool({ name: "touch_memory", arguments: { memory_id: "../x" } })) as any;
      assert.equal(bad.isError, true);
      assert.equal(JSON.parse(bad.content[0].text).error.code, "invalid_input");
    } finally {
      await c.close();
      server.stop(true);
    }
  });
});
