import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { isMemsyncError } from "../../src/core/errors.ts";
import type { OpCall } from "../../src/ops/catalogue/index.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { REPO, snapshot, tempDir } from "../helpers/env.ts";
import { makeRng } from "../helpers/rng.ts";

// Every importer through the catalogue, in process, on random and mutated files (seeded, so a
// failing case runs again from its number): each run ends in a report (never a crash), leaves the
// source files as they were, and writes nothing outside the store, whatever ids ("../x") or
// paths the lines hold. A few cases write for real; the rest are dry runs.

const FIX = path.join(REPO, "tests/fixtures/import");
const enc = new TextEncoder();

function callIn(dir: string): OpCall {
  return { env: opsEnvOf({ store: "store", vars: { MEMSYNC_MACHINE: "fuzz" }, cwd: dir, home: dir, hostName: "host", user: "tester" }), cwd: dir };
}

const SEEDS: Record<string, { file: string; base: Uint8Array }[]> = {
  cortexgraph: [
    { file: "memories.jsonl", base: fs.readFileSync(path.join(FIX, "cortexgraph/memories.jsonl")) },
    { file: "relations.jsonl", base: fs.readFileSync(path.join(FIX, "cortexgraph/relations.jsonl")) },
  ],
  orchestkit: ["decisions.jsonl", "open-problems.jsonl", "graph-queue.jsonl", "completed-flows.jsonl", "MEMORY.md"].map((f) => ({ file: f, base: fs.readFileSync(path.join(FIX, "orchestkit/.claude/memory", f)) })),
  "mcp-memory": [{ file: "memory.jsonl", base: enc.encode('{"type":"entity","name":"A","entityType":"t","observations":["o"]}\n{"type":"relation","from":"A","to":"../../B","relationType":"r"}\n{"type":"entity","name":"../../etc/passwd","entityType":"t","observations":[]}\n') }],
  jsonl: [{ file: "backup.jsonl", base: enc.encode('{"format":"memsync-jsonl","version":1}\n{"memory":{"id":"0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d","content":"x","created_at":1,"last_used":1}}\n{"memory":{"id":"../../../escape","content":"y","created_at":1,"last_used":1}}\n') }],
};

const NASTY = ['{"id":"../../../../tmp/evil","content":"x"}', '{"id":"0b8f0c2e-3c1a-4d7e-9f10-1a2b3c4d5e6f","_deleted":true}', '{"type":"entity","name":"/etc/passwd","entityType":"x","observations":[]}', '{"memory":{"id":"..","content":"z"}}', "\u0000\u0001", '{"a":' + "[".repeat(5000) + "]".repeat(5000) + "}"];

function mutate(r: () => number, base: Uint8Array): Uint8Array {
  const out = [...base];
  for (let i = 0, n = 1 + Math.floor(r() * 10); i < n; i++) {
    const at = Math.floor(r() * (out.length + 1));
    const k = r();
    if (k < 0.35) out.splice(at, 1 + Math.floor(r() * 5));
    else if (k < 0.6) out.splice(at, 0, Math.floor(r() * 256));
    else if (k < 0.8) out.splice(at, 0, ...enc.encode(`\n${NASTY[Math.floor(r() * NASTY.length)]}\n`));
    else out.splice(at, 0, ...out.slice(Math.floor(r() * out.length), Math.floor(r() * out.length)));
  }
  return new Uint8Array(out);
}

describe("import fuzz", () => {
  for (const format of Object.keys(SEEDS)) {
    test(`${format}: 12 mutated sources end in a report, change no source, write only into the store`, async () => {
      const r = makeRng(format.length * 1000 + 14);
      for (let i = 0; i < 12; i++) {
        const dir = tempDir("memsync-import-fuzz-");
        const src = path.join(dir, "src");
        fs.mkdirSync(src);
        for (const s of SEEDS[format]!) fs.writeFileSync(path.join(src, s.file), mutate(r, s.base));
        const before = snapshot(src);
        const input = { format, path: format === "jsonl" ? "src/backup.jsonl" : "src", dry_run: i % 4 !== 0 };
        try {
          const out = await runOp<any>("import", callIn(dir), input);
          assert.equal(typeof out.problems_total, "number", `case ${i}`);
          assert.equal(out.problems.length, Math.min(out.problems_total, 1000));
        } catch (e) {
          // only "there is nothing of this format here" may end a run without a report
          assert.ok(isMemsyncError(e) && e.code === "not_found", `case ${i}: ${String(e)}`);
        }
        assert.deepEqual(snapshot(src), before, `case ${i}: the source changed`);
        assert.deepEqual(fs.readdirSync(dir).filter((n) => n !== "src" && n !== "store"), [], `case ${i}: wrote outside the store`);
        if (input.dry_run) assert.equal(fs.existsSync(path.join(dir, "store")), false, `case ${i}: a dry run made a store`);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

test("a request to a server (no working directory) cannot name files to import or export", async () => {
  const dir = tempDir("memsync-import-noncwd-");
  const { cwd: _, ...server } = callIn(dir);
  for (const [op, input] of [["import", { format: "cortexgraph", path: "/etc" }], ["export", { format: "jsonl", path: path.join(dir, "out.jsonl") }]] as const) {
    await assert.rejects(runOp(op, server, input), (e: unknown) => isMemsyncError(e) && e.code === "invalid_input" && /never by a request/.test(e.message));
  }
  assert.deepEqual(fs.readdirSync(dir), []);
});

test("a secret in an entity's observations is redacted, and importing the file again changes nothing", async () => {
  const dir = tempDir("memsync-import-secret-");
  const key = `sk-ant-api03-${"A".repeat(93)}`;
  fs.writeFileSync(path.join(dir, "memory.jsonl"), `${JSON.stringify({ type: "entity", name: "deploy", entityType: "note", observations: [`key ${key}`, "plain"] })}\n`);
  const first = await runOp<any>("import", callIn(dir), { format: "mcp-memory", path: "memory.jsonl" });
  assert.deepEqual(first.graph, { entities: 1, relations: 0, observations: 0 });
  const files = snapshot(path.join(dir, "store"), (rel) => rel === ".git" || rel === ".memsync");
  assert.ok(![...files.values()].some((b64) => Buffer.from(b64, "base64").toString().includes(key)), "the key reached a file");
  const again = await runOp<any>("import", callIn(dir), { format: "mcp-memory", path: "memory.jsonl" });
  assert.equal(again.message, null);
  assert.deepEqual(snapshot(path.join(dir, "store"), (rel) => rel === ".git" || rel === ".memsync"), files);
});

test("ids from a file that are not UUIDs are reported and never looked up as paths", async () => {
  const dir = tempDir("memsync-import-ids-");
  fs.writeFileSync(path.join(dir, "b.jsonl"), new TextDecoder().decode(SEEDS.jsonl![0]!.base) + '{"relation":{"id":"0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7e","from_memory_id":"../../x","to_memory_id":"0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d","relation_type":"related","created_at":1}}\n');
  const out = await runOp<any>("import", callIn(dir), { format: "jsonl", path: "b.jsonl", dry_run: true });
  assert.deepEqual(out.problems.map((p: any) => [p.line, p.problem]), [[3, 'invalid id "../../../escape" (not a lowercase UUID): skipped'], [4, 'invalid id "../../x" (not a lowercase UUID): skipped']]);
  assert.equal(out.memories.imported, 1);
});
