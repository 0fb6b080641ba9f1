import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, memsyncJson as memsyncJsonProcess, REPO, snapshot, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// `memsync import` and `memsync export` through the compiled binary, on the hand-written
// fixtures of tests/fixtures/import: one commit with the message, the source files
// untouched, secrets redacted, relations to missing memories reported, a second run changing
// nothing, --dry-run writing nothing, and the round trips (export of an import gives back every
// field of the source; a jsonl backup restores every record file byte for byte).

const FIX = path.join(REPO, "tests/fixtures/import");

/** A copy of a fixture folder, so the test can check its files are left exactly as they were. */
function copyOf(name: string): string {
  const dir = path.join(tempDir("memsync-import-src-"), name);
  fs.cpSync(path.join(FIX, name), dir, { recursive: true });
  return dir;
}

const records = (store: string) => snapshot(store, (rel) => rel === ".memsync" || rel === ".git");
const gitLog = (store: string) => spawnSync("git", ["-C", store, "log", "--format=%s"], { encoding: "utf8" }).stdout.trim().split("\n");

describe("import cortexgraph", () => {
  const src = copyOf("cortexgraph");
  const before = snapshot(src);
  const store = path.join(tempDir(), "store");
  const out = memsyncJsonProcess(["--store", store, "import", "cortexgraph", src]);

  test("live records imported; tombstoned ones not; bad lines and missing memories reported by line", async () => {
    assert.deepEqual(out.memories, { imported: 4, existing: 0, invalid: 0 });
    assert.deepEqual(out.relations, { imported: 2, existing: 0, missing_memory: 1, invalid: 0 });
    assert.equal(out.message, "import: cortexgraph 4 memories, 2 relations");
    const where = out.problems.map((p: any) => `${p.file}:${p.line}`);
    assert.deepEqual(where, ["memories.jsonl:7", "memories.jsonl:10", "memories.jsonl:11", "memories.jsonl:12", "memories.jsonl.tmp:0", "relations.jsonl:2", "relations.jsonl:5"]);
    assert.match(out.problems[5].problem, /memory 2d0f2e4a-5e3c-4f90-9b32-3c4d5e6f7081 is neither in the file nor in the store/);
    assert.equal(fs.existsSync(path.join(store, "memories/2d0f2e4a-5e3c-4f90-9b32-3c4d5e6f7081.json")), false);
  });

  test("every field kept (ids, times, unknown fields), secrets redacted, the source untouched", async () => {
    const a = JSON.parse(fs.readFileSync(path.join(store, "memories/0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f.json"), "utf8"));
    assert.equal(a.content, 'Use PostgreSQL for analytics — JSONB 🚀 "quoted"');
    assert.equal(a.last_used, 1700000100.5);
    assert.equal(a.created_at, 1700000000);
    assert.equal(a.review_priority, 0.00001);
    assert.deepEqual(a.future_field, { x: [1, 2.5] });
    const all = [...records(store).entries()].filter(([k]) => k.startsWith("memories/")).map(([, v]) => Buffer.from(v, "base64").toString());
    assert.ok(all.some((t) => t.includes("[REDACTED:")));
    assert.ok(!all.some((t) => t.includes("sk-ant-api03")), "no secret reaches a file");
    assert.deepEqual(snapshot(src), before, "the source files are never modified");
  });

  test("one commit with the import's message; .meta.json says where the store came from", async () => {
    await memsync(["--store", store, "commit"]);
    assert.equal(gitLog(store)[0], "import: cortexgraph 4 memories, 2 relations");
    assert.equal(gitLog(store).length, 2, "init, then the whole import as one commit");
    const meta = JSON.parse(fs.readFileSync(path.join(store, ".meta.json"), "utf8"));
    assert.match(meta.migrated_from, /^cortexgraph .*cortexgraph \(4 memories, 2 relations, \d{4}-/);
    assert.equal(meta.imports[0].format, "cortexgraph");
  });

  test("running it again changes nothing", async () => {
    const files = records(store);
    const again = await memsyncJson(["--store", store, "import", "cortexgraph", src]);
    assert.equal(again.message, null);
    assert.deepEqual(again.memories, { imported: 0, existing: 4, invalid: 0 });
    assert.equal(again.relations.existing, 2);
    assert.deepEqual(records(store), files);
    const text = await memsync(["--store", store, "import", "cortexgraph", src]);
    assert.match(text.stdout, /nothing new: the store already holds all of it/);
  });

  test("--dry-run prints the same report and writes nothing, not even a store", async () => {
    const fresh = path.join(tempDir(), "store");
    const dry = await memsyncJson(["--store", fresh, "import", "cortexgraph", src, "--dry-run"]);
    assert.deepEqual([dry.memories, dry.relations, dry.problems_total, dry.dry_run], [out.memories, out.relations, out.problems_total, true]);
    assert.equal(fs.existsSync(fresh), false);
    const r = await memsync(["--store", fresh, "import", "cortexgraph", path.join(src, "memories.jsonl"), "--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /would import 4 memories, 2 relations/);
    assert.match(r.stdout, /memories\.jsonl:7: malformed JSON/);
    assert.match(r.stdout, /dry run: nothing written/);
  });

  test("export cortexgraph gives back every field of every live source record", async () => {
    const dir = path.join(tempDir(), "cg-out");
    const ex = await memsyncJson(["--store", store, "export", "cortexgraph", dir]);
    assert.equal(ex.memories, 4);
    const lines = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean);
    const exported = new Map(lines(path.join(dir, "memories.jsonl")).map((l) => [JSON.parse(l).id, JSON.parse(l)]));
    const live = new Map<string, any>();
    for (const l of lines(path.join(src, "memories.jsonl"))) {
      try {
        const v = JSON.parse(l);
        if (v && typeof v.id === "string") v._deleted ? live.delete(v.id) : live.set(v.id, v);
      } catch {}
    }
    live.delete("7c5e7d9f-0d8b-4e45-8a87-8192a3b4c5d6"); // its line is not UTF-8: skipped
    assert.deepEqual([...exported.keys()].sort(), [...live.keys()].sort());
    for (const [id, v] of live) {
      const e = exported.get(id);
      for (const [k, val] of Object.entries(v)) {
        if (k === "content" && String(val).includes("sk-ant")) continue; // redacted on the way in
        if (k === "meta") for (const [mk, mv] of Object.entries(val as object)) assert.deepEqual(e.meta[mk], mv, `${id} meta.${mk}`);
        else assert.deepEqual(e[k], val, `${id} ${k}`);
      }
    }
    const rels = lines(path.join(dir, "relations.jsonl")).map((l) => JSON.parse(l));
    assert.deepEqual(rels.find((r) => r.id === "6b4d6c8e-9c7a-4d34-9f76-708192a3b4c5"), {
      id: "6b4d6c8e-9c7a-4d34-9f76-708192a3b4c5", from_memory_id: "mem-legacy-7", to_memory_id: "0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f", relation_type: "has_decision", strength: 1, created_at: 1700000800, metadata: {},
    });
    // what it exported, CortexGraph's format, imports again as the same records
    const again = await memsyncJson(["--store", store, "import", "cortexgraph", dir]);
    assert.equal(again.message, null);
    assert.equal(again.problems_total, 0);
  });
});

describe("import orchestkit", () => {
  const src = copyOf("orchestkit");
  const before = snapshot(src);
  const store = path.join(tempDir(), "store");
  const out = memsyncJsonProcess(["--store", store, "import", "orchestkit", path.join(src, ".claude/memory"), "--project", "shop"]);

  test("decisions (both logs), open problems, flows, MEMORY.md and the graph queue, in one change", async () => {
    assert.deepEqual(out.memories, { imported: 10, existing: 0, invalid: 0 });
    assert.deepEqual(out.graph, { entities: 3, relations: 2, observations: 0 });
    assert.match(out.message, /^import: orchestkit 10 memories, 0 relations, graph 3 entities, 2 relations/);
    assert.deepEqual(out.problems.map((p: any) => `${p.file}:${p.line}`), ["decisions.jsonl:3", "decisions.jsonl:4", "decisions.jsonl:5", "graph-queue.jsonl:4", "graph-queue.jsonl:6"]);
    assert.deepEqual(snapshot(src), before);
    const list = await memsyncJson(["--store", store, "list", "--tag", "orchestkit", "--limit", "0", "--status", "all"]);
    const d = list.memories.find((m: any) => m.content.startsWith("Use cursor-based pagination"));
    assert.equal(d.project, "orchestkit");
    assert.equal(d.decision.alternatives[0], "offset-based pagination");
    assert.equal(list.memories.find((m: any) => m.content === "Keep the monorepo").project, "shop");
  });

  test("the queued graph is the memory profile's graph; a second run changes nothing", async () => {
    const files = records(store);
    const again = await memsyncJson(["--store", store, "import", "orchestkit", path.join(src, ".claude")]);
    assert.equal(again.message, null);
    // the 10 memories and the graph's 3 entities and 2 relations (each a memory) are all there
    assert.equal(again.memories.existing, 15);
    assert.deepEqual(records(store), files);
    const kg = await memsyncJson(["--store", store, "list", "--tag", "knowledge-graph", "--limit", "0"]);
    const names = kg.memories.map((m: any) => m.meta.extra.knowledge_graph).filter((k: any) => k.kind === "entity");
    assert.deepEqual(names.find((e: any) => e.name === "cursor-pagination").observations, ["Mentioned in decision: Use cursor-based pagination for all list endpoints", "Stable under inserts"]);
  });
});

describe("jsonl backup", () => {
  test("import(export(store)) gives back every record file byte for byte, on generated stores", async () => {
    for (const seed of [1, 2]) {
      const store = path.join(tempDir(), "store");
      let x = seed * 7919;
      const next = () => (x = (x * 48271) % 2147483647) / 2147483647;
      const words = ["redis", "cursor", "pagination", "ünïcode ✓", "tabs\tand\nnewlines", "\"quotes\"", "emoji 🚀", "1e-05", "PostgreSQL"];
      const recs = Array.from({ length: 6 + seed * 3 }, (_, i) => ({
        content: `${i}: ${Array.from({ length: 3 + Math.floor(next() * 8) }, () => words[Math.floor(next() * words.length)]).join(" ")}`,
        type: ["fact", "decision", "pattern"][Math.floor(next() * 3)],
        tags: next() < 0.5 ? ["a", "b"] : [],
        strength: Math.round(next() * 200) / 100,
        use_count: Math.floor(next() * 5),
        scope: next() < 0.2 ? "local" : "team",
        meta: { extra: { n: next(), nested: { k: [1, 2.5, null] } } },
        unknown_field: next() < 0.5 ? { v: 1 } : undefined,
      }));
      const ids = await saveMany(store, recs);
      // relations and CortexGraph's own shapes come in through an import (one process, not one per relate)
      const cg = tempDir("memsync-gen-cg-");
      const hex = () => Math.floor(next() * 0xffffffff).toString(16).padStart(8, "0");
      const uuid = () => `${hex()}-${hex().slice(0, 4)}-4${hex().slice(0, 3)}-a${hex().slice(0, 3)}-${hex()}${hex().slice(0, 4)}`;
      const cgIds = Array.from({ length: 8 }, uuid);
      fs.writeFileSync(path.join(cg, "memories.jsonl"), cgIds.map((id, i) => JSON.stringify({ id, content: `cg ${i} ${words[i % words.length]}`, meta: { tags: ["cg"], extra: { i } }, created_at: 1700000000 + i, last_used: 1700000000.25 + i, use_count: i, strength: 1.0, status: i % 4 === 0 ? "archived" : "active", embed: i % 2 ? [0.5, 1e-05] : null, odd: { keep: i } })).join("\n") + "\n");
      const pairs = [...ids, ...cgIds].slice(0, 10).map((from, i, all) => ({ id: uuid(), from_memory_id: from, to_memory_id: all[(i + 3) % all.length], relation_type: ["related", "supports", "causes"][i % 3], strength: Math.round(next() * 100) / 100, created_at: 1700000100 + i, metadata: { n: i } }));
      fs.writeFileSync(path.join(cg, "relations.jsonl"), pairs.map((r) => JSON.stringify(r)).join("\n") + "\n");
      assert.equal((await memsyncJson(["--store", store, "import", "cortexgraph", cg])).relations.imported, 10);
      // export(import(file)): every field of every generated CortexGraph line comes back
      const cgOut = path.join(tempDir(), "cg-out");
      await memsyncJson(["--store", store, "export", "cortexgraph", cgOut]);
      const back = new Map(fs.readFileSync(path.join(cgOut, "memories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => [JSON.parse(l).id, JSON.parse(l)]));
      for (const line of fs.readFileSync(path.join(cg, "memories.jsonl"), "utf8").split("\n").filter(Boolean)) {
        const v = JSON.parse(line);
        for (const [k, val] of Object.entries(v)) {
          if (k === "meta") for (const [mk, mv] of Object.entries(val as object)) assert.deepEqual(back.get(v.id).meta[mk], mv, `seed ${seed} ${v.id} meta.${mk}`);
          else assert.deepEqual(back.get(v.id)[k], val, `seed ${seed} ${v.id} ${k}`);
        }
      }
      const relBack = new Map(fs.readFileSync(path.join(cgOut, "relations.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => [JSON.parse(l).id, JSON.parse(l)]));
      for (const r of pairs) assert.deepEqual(relBack.get(r.id), r, `seed ${seed} relation`);
      await memsyncJson(["--store", store, "touch", ids[0]!]);
      const backup = path.join(tempDir(), "backup.jsonl");
      const ex = await memsyncJson(["--store", store, "export", "jsonl", backup]);
      assert.equal(ex.memories, ids.length + 8);
      assert.equal(ex.relations, 10);
      const header = JSON.parse(fs.readFileSync(backup, "utf8").split("\n")[0]!);
      assert.deepEqual([header.format, header.version], ["memsync-jsonl", 1]);
      const restored = path.join(tempDir(), "store");
      const im = await memsyncJson(["--store", restored, "import", "jsonl", backup]);
      assert.equal(im.problems_total, 0, JSON.stringify(im.problems));
      const recordsOf = (s: string) => new Map([...snapshot(s)].filter(([k]) => /^(memories|relations)\//.test(k) || /^\.memsync\/local\/(memories|relations)\//.test(k)));
      assert.deepEqual(recordsOf(restored), recordsOf(store), `seed ${seed}`);
      // and exporting the restored store gives the same backup (but for the time it was made)
      const backup2 = path.join(tempDir(), "backup.jsonl");
      await memsyncJson(["--store", restored, "export", "jsonl", backup2]);
      assert.deepEqual(fs.readFileSync(backup2, "utf8").split("\n").slice(1), fs.readFileSync(backup, "utf8").split("\n").slice(1));
    }
  });

  test("export refuses a target inside the store and an existing file (unless --force); import refuses unknown formats", async () => {
    const store = path.join(tempDir(), "store");
    await saveMany(store, ["one memory"]);
    let r = await memsync(["--store", store, "export", "jsonl", path.join(store, "b.jsonl")]);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /inside the store/);
    const file = path.join(tempDir(), "b.jsonl");
    fs.writeFileSync(file, "mine");
    r = await memsync(["--store", store, "export", "jsonl", file]);
    assert.equal(r.code, 4);
    assert.equal(fs.readFileSync(file, "utf8"), "mine");
    assert.equal((await memsync(["--store", store, "export", "jsonl", file, "--force"])).code, 0);
    r = await memsync(["--store", store, "import", "sqlite", file]);
    assert.equal(r.code, 4);
    r = await memsync(["--store", store, "import", "cortexgraph", path.join(tempDir(), "none")]);
    assert.equal(r.code, 3);
    const md = path.join(tempDir(), "notes");
    const m = await memsyncJson(["--store", store, "export", "markdown", md]);
    assert.equal(m.files.length, 1);
    assert.match(fs.readFileSync(m.files[0], "utf8"), /^---\ntitle: "one memory"\nstm_id: /);
  });
});
