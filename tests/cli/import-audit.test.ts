import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, memsync, memsyncJson, REPO, saveMany, snapshot, tempDir } from "../helpers/env.ts";
import { get, post, withServer } from "../helpers/server.ts";
import { call, connect, okJson, serverEnv } from "../mcp/client.ts";

// The parts of issue 14 the other import tests did not prove end to end, through the compiled
// binary: every format's bad lines (not JSON, invalid UTF-8, a line over 1 MiB, an unknown shape,
// an id twice, no trailing newline) reported by file and line while the rest is imported; the
// dry run's report the same as the real one's; the source untouched; a second run changing
// nothing; secrets redacted from every field of every format, in the files and in git's history;
// the progress bar on a terminal; import and export through the MCP server, and the HTTP API's
// refusal; and markdown export writing promote's note.

const FIX = path.join(REPO, "tests/fixtures/import");
const HUGE = JSON.stringify({ id: "huge", content: "x".repeat(1024 * 1024 + 10) });
const NOT_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);

/** Lines joined by newlines (no newline after the last); a Buffer stands for raw bytes. */
function bytesOf(lines: (string | Buffer)[]): Buffer {
  return Buffer.concat(lines.flatMap((l, i) => [typeof l === "string" ? Buffer.from(l) : l, ...(i < lines.length - 1 ? [Buffer.from("\n")] : [])]));
}

const records = (store: string) => snapshot(store, (rel) => rel === ".memsync" || rel === ".git");
const where = (out: any) => out.problems.map((p: any) => `${p.file}:${p.line}`);
const counts = (o: any) => ({ memories: o.memories, relations: o.relations, graph: o.graph, problems: o.problems, problems_total: o.problems_total, message: o.message });

/** Dry run on a fresh store, then the import, then again: the same report, a source untouched, nothing new. */
function importThrice(format: string, src: string, at = src): any {
  const before = snapshot(src);
  const dryStore = path.join(tempDir(), "store");
  const dry = memsyncJson(["--store", dryStore, "import", format, at, "--dry-run"]);
  assert.equal(fs.existsSync(dryStore), false, `${format}: the dry run made a store`);
  const store = path.join(tempDir(), "store");
  const out = memsyncJson(["--store", store, "import", format, at]);
  assert.deepEqual(counts(dry), counts(out), `${format}: the dry run's report is the import's`);
  assert.match(out.message, new RegExp(`^import: ${format} `));
  assert.deepEqual(snapshot(src), before, `${format}: the source changed`);
  const files = records(store);
  const again = memsyncJson(["--store", store, "import", format, at]);
  assert.equal(again.message, null, `${format}: a second run wrote ${again.message}`);
  assert.deepEqual(records(store), files, `${format}: a second run changed the store`);
  const log = spawnSync("git", ["-C", store, "log", "--format=%s"], { encoding: "utf8" }).stdout.trim().split("\n");
  assert.deepEqual(log.slice(0, -1), [out.message], `${format}: one commit for the whole import`);
  return { out, store };
}

describe("every format's bad lines, end to end", () => {
  test("cortexgraph: a line over 1 MiB and a last line with no newline", () => {
    const src = tempDir("memsync-cg-bad-");
    const m = (id: string, content: string) => JSON.stringify({ id, content, meta: { tags: [] }, created_at: 1700000000, last_used: 1700000000, use_count: 0, strength: 1.0, status: "active" });
    fs.writeFileSync(path.join(src, "memories.jsonl"), bytesOf([m("0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f", "first"), HUGE, NOT_UTF8, m("1c9e1d3f-4d2b-4e8f-8a21-2b3c4d5e6f70", "last, no newline")]));
    const { out } = importThrice("cortexgraph", src);
    assert.deepEqual(out.memories, { imported: 2, existing: 0, invalid: 0 });
    assert.deepEqual(where(out), ["memories.jsonl:2", "memories.jsonl:3", "memories.jsonl:4"]);
    assert.match(out.problems[0].problem, /line too long/);
    assert.match(out.problems[1].problem, /invalid UTF-8/);
    assert.match(out.problems[2].problem, /no trailing newline \(the line parses: read\)/);
  });

  test("orchestkit: not JSON, invalid UTF-8, a huge line, an unknown shape, an id twice, no trailing newline", () => {
    const src = tempDir("memsync-ok-bad-");
    const d = (id: string, what: string) => JSON.stringify({ id, type: "decision", content: { what, why: "because", alternatives: [], constraints: [], tradeoffs: [] }, entities: [], metadata: { timestamp: "2026-02-06T10:30:00.000Z", project: "p" } });
    fs.writeFileSync(path.join(src, "decisions.jsonl"), bytesOf([d("decision-1", "Use Postgres"), "{not json", NOT_UTF8, HUGE, JSON.stringify({ hello: "world" }), d("decision-1", "Use Postgres"), d("decision-2", "Use Redis for caching")]));
    const { out } = importThrice("orchestkit", src);
    assert.deepEqual(out.memories, { imported: 2, existing: 0, invalid: 0 });
    assert.deepEqual(where(out), [2, 3, 4, 5, 6, 7].map((n) => `decisions.jsonl:${n}`));
    assert.match(out.problems[0].problem, /malformed JSON/);
    assert.match(out.problems[1].problem, /invalid UTF-8/);
    assert.match(out.problems[2].problem, /line too long/);
    assert.match(out.problems[4].problem, /duplicate of line 1/);
    assert.match(out.problems[5].problem, /no trailing newline/);
  });

  test("mcp-memory: not JSON, invalid UTF-8, a huge line, an unknown shape; the reference's unterminated last line is no problem", () => {
    const src = tempDir("memsync-mcp-bad-");
    const e = (name: string) => JSON.stringify({ type: "entity", name, entityType: "t", observations: ["o"] });
    fs.writeFileSync(path.join(src, "memory.jsonl"), bytesOf([e("A"), "nope", NOT_UTF8, HUGE, JSON.stringify({ type: "note", text: "?" }), e("B"), JSON.stringify({ type: "relation", from: "A", to: "B", relationType: "r" })]));
    const { out } = importThrice("mcp-memory", src, path.join(src, "memory.jsonl"));
    assert.deepEqual(out.graph, { entities: 2, relations: 1, observations: 0 });
    assert.deepEqual(where(out), [2, 3, 4, 5].map((n) => `memory.jsonl:${n}`));
    assert.match(out.problems[3].problem, /unknown shape/);
  });

  test("jsonl backup: not JSON, invalid UTF-8, a huge line, an unknown shape, an id twice, no trailing newline", () => {
    const store = path.join(tempDir(), "store");
    saveMany(store, ["Backups keep every field", "A second memory to back up"]);
    const backup = path.join(tempDir("memsync-bk-bad-"), "backup.jsonl");
    memsyncJson(["--store", store, "export", "jsonl", backup]);
    const [header, m1, m2] = fs.readFileSync(backup, "utf8").split("\n");
    fs.writeFileSync(backup, bytesOf([header!, m1!, "]]", NOT_UTF8, HUGE, JSON.stringify({ other: 1 }), m1!, m2!]));
    const { out } = importThrice("jsonl", path.dirname(backup), backup);
    assert.deepEqual(out.memories, { imported: 2, existing: 0, invalid: 1 });
    assert.deepEqual(where(out), [3, 4, 5, 6, 7, 8].map((n) => `backup.jsonl:${n}`));
    assert.match(out.problems[4].problem, /in the file twice/);
    assert.match(out.problems[5].problem, /no trailing newline/);
  });
});

describe("secrets in imported text", () => {
  const KEY = `sk-ant-api03-${"A".repeat(93)}`;
  const GH = `ghp_${"b".repeat(36)}`;
  /** No file of the store and no commit of its history holds either secret; some file says it was redacted. */
  function clean(store: string, what: string): void {
    const texts = [...snapshot(store, (rel) => rel === ".git").values()].map((b64) => Buffer.from(b64, "base64").toString());
    assert.ok(!texts.some((t) => t.includes(KEY) || t.includes(GH)), `${what}: a secret reached a file`);
    assert.ok(texts.some((t) => t.includes("[REDACTED")), `${what}: nothing says it was redacted`);
    const history = spawnSync("git", ["-C", store, "log", "--all", "-p"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).stdout;
    assert.ok(!history.includes(KEY) && !history.includes(GH), `${what}: a secret reached git's history`);
  }

  test("orchestkit: in a decision's why and alternatives, its kept metadata, MEMORY.md, an open problem, a flow and the graph queue", () => {
    const src = tempDir("memsync-ok-secret-");
    const w = (f: string, lines: unknown[]) => fs.writeFileSync(path.join(src, f), lines.map((l) => `${typeof l === "string" ? l : JSON.stringify(l)}\n`).join(""));
    w("decisions.jsonl", [{ id: "decision-s", type: "decision", content: { what: "Rotate the deploy key", why: `it was ${KEY} in chat`, alternatives: [GH], constraints: [], tradeoffs: [] }, entities: [], metadata: { timestamp: "2026-02-06T10:30:00Z", note: GH } }]);
    w("open-problems.jsonl", [{ id: "p", type: "problem", text: `CI token ${GH} expired`, status: "open" }]);
    w("completed-flows.jsonl", [{ id: "f", flow: "rotate", summary: `replaced ${KEY}` }]);
    w("graph-queue.jsonl", [{ type: "create_entities", payload: { entities: [{ name: `svc ${GH}`, entityType: "t", observations: [KEY] }] } }]);
    w("MEMORY.md", ["## Decisions", `- **[Decision]** use token ${GH} for CI`]);
    const out = memsyncJson(["--store", path.join(src, "..", "store-ok"), "import", "orchestkit", src]);
    assert.deepEqual([out.memories.imported, out.graph.entities], [4, 1]);
    clean(path.join(src, "..", "store-ok"), "orchestkit");
  });

  test("cortexgraph: in tags, meta.extra, an unknown field and a relation's metadata", () => {
    const src = tempDir("memsync-cg-secret-");
    const a = "0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f";
    const b = "1c9e1d3f-4d2b-4e8f-8a21-2b3c4d5e6f70";
    fs.writeFileSync(path.join(src, "memories.jsonl"), `${JSON.stringify({ id: a, content: "plain", meta: { tags: [GH], source: KEY, extra: { k: KEY } }, created_at: 1, last_used: 1, weird: { deep: [GH] } })}\n${JSON.stringify({ id: b, content: "two", created_at: 1, last_used: 1 })}\n`);
    fs.writeFileSync(path.join(src, "relations.jsonl"), `${JSON.stringify({ id: "4f2b4a6c-7a5e-4b12-9d54-5e6f708192a3", from_memory_id: a, to_memory_id: b, relation_type: "related", strength: 1.0, created_at: 2, metadata: { s: GH } })}\n`);
    const store = path.join(src, "..", "store-cg");
    const out = memsyncJson(["--store", store, "import", "cortexgraph", src]);
    assert.deepEqual([out.memories.imported, out.relations.imported], [2, 1]);
    clean(store, "cortexgraph");
  });
});

test("a progress bar on a terminal's stderr for a large import; none with --json", () => {
  const src = tempDir("memsync-progress-");
  const n = 1200;
  const hex = (i: number) => i.toString(16).padStart(12, "0");
  fs.writeFileSync(path.join(src, "memories.jsonl"), Array.from({ length: n }, (_, i) => `${JSON.stringify({ id: `0b8f0c2e-3c1a-4d7e-9f10-${hex(i)}`, content: `memory number ${i}`, created_at: 1700000000 + i, last_used: 1700000000 + i })}\n`).join(""));
  const home = tempDir("memsync-progress-home-");
  // script(1) gives the command a terminal; what it shows is the typescript on stdout
  const onTerminal = (extra: string) =>
    spawnSync("script", ["-qfec", `'${BIN}' --store '${path.join(home, `store${extra ? "-json" : ""}`)}' import cortexgraph '${src}' ${extra}`, "/dev/null"], { encoding: "utf8", env: { ...process.env, HOME: home, MEMSYNC_MACHINE: "m", TERM: "xterm" } });
  const shown = onTerminal("");
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`importing .*${n}/${n}`));
  assert.match(shown.stdout, new RegExp(`imported ${n} memories`));
  assert.match(shown.stdout, /committed [0-9a-f]{12}: import: cortexgraph 1,200 memories, 0 relations/, "the issue's message, counts with separators");
  const json = onTerminal("--json");
  assert.equal(json.status, 0, json.stderr);
  assert.doesNotMatch(json.stdout, /importing/);
});

describe("import and export through the servers", () => {
  test("the MCP server (memsync profile, over stdio on this machine) lists and runs both", async () => {
    const dir = tempDir("memsync-mcp-transfer-");
    const src = path.join(dir, "cortexgraph");
    fs.cpSync(path.join(FIX, "cortexgraph"), src, { recursive: true });
    const c = await connect(["mcp"], "legacy", serverEnv({ MEMSYNC_HOME: path.join(dir, "store") }));
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("import") && names.includes("export"), names.join(","));
      const dry = okJson(await call(c.client, "import", { format: "cortexgraph", path: src, dry_run: true }), "import dry run");
      const done = okJson(await call(c.client, "import", { format: "cortexgraph", path: src }), "import");
      assert.deepEqual(counts(dry), counts(done));
      assert.deepEqual([done.memories.imported, done.relations.imported, done.message], [4, 2, "import: cortexgraph 4 memories, 2 relations"]);
      const backup = path.join(dir, "backup.jsonl");
      const ex = okJson(await call(c.client, "export", { format: "jsonl", path: backup }), "export");
      assert.deepEqual([ex.memories, ex.relations], [4, 2]);
      assert.equal(fs.readFileSync(backup, "utf8").split("\n").filter(Boolean).length, 7);
    } finally {
      await c.close();
    }
  });

  test("the HTTP API offers both and refuses, in one line, to read or write files a request names", async () => {
    const dir = tempDir("memsync-api-transfer-");
    const store = path.join(dir, "store");
    saveMany(store, ["one memory"]);
    const files = records(store);
    await withServer(store, async (s) => {
      const spec = await get(`${s.url}/v1/openapi.json`);
      assert.ok(spec.body.paths["/v1/import"] && spec.body.paths["/v1/export"], "both are routes");
      for (const [op, input] of [["import", { format: "cortexgraph", path: path.join(FIX, "cortexgraph") }], ["export", { format: "jsonl", path: path.join(dir, "out.jsonl") }]] as const) {
        const r = await post(`${s.url}/v1/${op}`, input);
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.match(JSON.stringify(r.body), /invalid_input/);
        assert.match(JSON.stringify(r.body), /never by a request/);
      }
    });
    assert.equal(fs.existsSync(path.join(dir, "out.jsonl")), false);
    assert.deepEqual(records(store), files);
  });
});

test("export markdown writes, for a promoted memory, the very note promote wrote (Obsidian front matter)", () => {
  const dir = tempDir("memsync-md-export-");
  const store = path.join(dir, "store");
  const [a] = saveMany(store, [{ content: "Use cursor pagination for every list endpoint", tags: ["api", "db design"], type: "decision" }, "A second note, not promoted"]);
  const vault = path.join(dir, "vault");
  const r = memsync(["--store", store, "promote", a!, "--vault", vault, "--claim-maintainer"]);
  assert.equal(r.code, 0, r.stderr);
  const out = memsyncJson(["--store", store, "export", "markdown", path.join(dir, "notes")]);
  assert.equal(out.files.length, 2, "one note per memory");
  const [promoted] = fs.readdirSync(vault);
  assert.equal(fs.readFileSync(path.join(dir, "notes", promoted!), "utf8"), fs.readFileSync(path.join(vault, promoted!), "utf8"));
  for (const f of out.files) assert.match(fs.readFileSync(f, "utf8"), /^---\ntitle: ".+"\nstm_id: "[0-9a-f-]{36}"\ncreated: "[^"]+"\n[\s\S]*\n---\n\n/);
  assert.match(fs.readFileSync(path.join(vault, promoted!), "utf8"), /tags:\n {2}- "api"\n {2}- "db_design"/);
});

test("import cortexgraph without a path reads CortexGraph's own folder ($CORTEXGRAPH_STORAGE_PATH, else ~/.config/cortexgraph/jsonl); other formats need one", () => {
  const home = tempDir("memsync-cg-home-");
  fs.cpSync(path.join(FIX, "cortexgraph"), path.join(home, ".config/cortexgraph/jsonl"), { recursive: true });
  const store = path.join(home, "store");
  const out = memsyncJson(["--store", store, "import", "cortexgraph", "--dry-run"], { env: { HOME: home } });
  assert.equal(out.source, path.join(home, ".config/cortexgraph/jsonl"));
  assert.deepEqual([out.memories.imported, out.relations.imported], [4, 2]);
  fs.renameSync(path.join(home, ".config/cortexgraph/jsonl"), path.join(home, "elsewhere"));
  assert.equal(memsyncJson(["--store", store, "import", "cortexgraph", "--dry-run"], { env: { HOME: home, CORTEXGRAPH_STORAGE_PATH: "~/elsewhere" } }).source, path.join(home, "elsewhere"));
  const none = memsync(["--store", store, "import", "cortexgraph"], { env: { HOME: home } });
  assert.equal(none.code, 3, none.stderr);
  assert.match(none.stderr, /does not exist/);
  const usage = memsync(["--store", store, "import", "orchestkit"], { env: { HOME: home } });
  assert.equal(usage.code, 2, usage.stderr);
  assert.equal(fs.existsSync(store), false);
});

test("import(export(store)) byte for byte on a store every importer and the write commands made; its other exports the same from the restored store", () => {
  const dir = tempDir("memsync-rich-rt-");
  const store = path.join(dir, "store");
  const ids = saveMany(store, [{ content: "Local note: only on this machine", scope: "local", tags: ["x"] }, "Plain fact about ünïcode ✓ and \"quotes\""]);
  const remembered = memsyncJson(["--store", store, "remember", "We chose Redis over Memcached for sessions because it persists"]);
  memsyncJson(["--store", store, "import", "cortexgraph", path.join(FIX, "cortexgraph")]);
  memsyncJson(["--store", store, "import", "orchestkit", path.join(FIX, "orchestkit/.claude/memory"), "--project", "shop"]);
  fs.writeFileSync(path.join(dir, "memory.jsonl"), `${JSON.stringify({ type: "entity", name: "Alice", entityType: "person", observations: ["likes tea", "1e-05"] })}\n${JSON.stringify({ type: "relation", from: "Alice", to: "Redis", relationType: "uses" })}`);
  memsyncJson(["--store", store, "import", "mcp-memory", path.join(dir, "memory.jsonl")]);
  memsyncJson(["--store", store, "update", ids[1]!, "--content", "Plain fact, edited"]);
  memsyncJson(["--store", store, "archive", ids[1]!]);
  memsyncJson(["--store", store, "relate", ids[0]!, remembered.memory.id]);
  assert.equal(memsync(["--store", store, "promote", ids[0]!, "--vault", path.join(dir, "vault"), "--claim-maintainer"]).code, 0);

  const backup = path.join(dir, "backup.jsonl");
  memsyncJson(["--store", store, "export", "jsonl", backup]);
  const restored = path.join(dir, "restored");
  const im = memsyncJson(["--store", restored, "import", "jsonl", backup]);
  assert.equal(im.problems_total, 0, JSON.stringify(im.problems));
  const recordsOf = (s: string) => new Map([...snapshot(s)].filter(([k]) => /^(\.memsync\/local\/)?(memories|relations)\//.test(k)));
  const mine = recordsOf(store);
  assert.ok(mine.size >= 25, `${mine.size} record files`);
  assert.ok([...mine.keys()].some((k) => k.startsWith(".memsync/local/")), "a local-scope record is part of it");
  assert.deepEqual(recordsOf(restored), mine);
  for (const [format, target] of [["cortexgraph", "cg"], ["mcp-memory", "memory.jsonl"], ["markdown", "notes"]] as const) {
    memsyncJson(["--store", store, "export", format, path.join(dir, "a", target)]);
    memsyncJson(["--store", restored, "export", format, path.join(dir, "b", target)]);
  }
  assert.deepEqual(snapshot(path.join(dir, "b")), snapshot(path.join(dir, "a")), "the other exports of the restored store are the same");
});
