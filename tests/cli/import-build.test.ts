import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { memsync, memsyncJson, snapshot, tempDir } from "../helpers/env.ts";

// A large import builds its memories on threads (ops/import-build.ts, src/record-worker.ts): the
// store it leaves and the report it gives must be the ones the calling thread alone gives
// (MEMSYNC_BUILD_THREADS=0), byte for byte, with records that fail their checks, secrets,
// private spans, a global scope and --project among them.

test("memories built on threads: the same files and the same report as built on the calling thread", { timeout: 240_000 }, () => {
  const src = tempDir("memsync-import-build-src-");
  const lines = Array.from({ length: 1300 }, (_, i) => {
    const m: Record<string, unknown> = { id: crypto.randomUUID(), content: `note ${i}: retry the deploy ${i % 7} times`, meta: { tags: [`t${i % 4}`], source: "x", context: null, extra: { n: i } }, entities: i % 2 ? ["Redis"] : [], created_at: 1700000000 + i, use_count: i % 5, strength: 1.0, status: "active" };
    if (i === 10) m.content = "the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the bot";
    if (i === 20) m.content = "<private>all of it</private>";
    if (i === 30) m.meta = { tags: "not a list" };
    if (i === 40) m.scope = "global";
    if (i === 50) m.project = "own";
    if (i === 60) m.strength = "strong";
    return JSON.stringify(m);
  });
  fs.writeFileSync(path.join(src, "memories.jsonl"), `${lines.join("\n")}\n`);
  const run = (threads: string) => {
    const store = path.join(tempDir(), "store");
    assert.equal(memsync(["init", store]).code, 0);
    const out = memsyncJson(["--store", store, "import", "cortexgraph", src, "--project", "demo"], { env: { MEMSYNC_BUILD_THREADS: threads } });
    return { store, out };
  };
  const threaded = run("2");
  const inline = run("0");
  assert.deepEqual([threaded.out.memories.imported, threaded.out.memories.invalid], [1297, 3]);
  for (const key of ["memories", "relations", "problems", "problems_total", "message"]) assert.deepEqual(threaded.out[key], inline.out[key], key);
  assert.match(JSON.stringify(threaded.out.problems), /tags must be a list of strings/);
  const records = (store: string) => snapshot(store, (rel) => rel.startsWith(".git") || rel === ".memsync" || rel === ".meta.json");
  const files = records(threaded.store);
  assert.ok(files.size >= 1297);
  assert.deepEqual(files, records(inline.store));
  const redacted = [...files.values()].map((b) => Buffer.from(b, "base64").toString()).find((t) => t.includes("for the bot"));
  assert.ok(redacted?.includes("[REDACTED:github-token]"));
  assert.equal(memsync(["--store", threaded.store, "status"]).code, 0);
});
