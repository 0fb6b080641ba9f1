import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsync, REPO, tempDir } from "../helpers/env.ts";

// The same source runs under Deno: a smoke subset of the CLI, and the same memory written by
// the Bun binary and by Deno is the same bytes.

const DENO = ["deno", "run", "-A", "--quiet", path.join(REPO, "src/main.ts")].map((a, i) => (i === 0 ? path.join(REPO, "node_modules/.bin/deno") : a));
const env = { MEMSYNC_USER: "tester" };

describe("under Deno", () => {
  test("init, save, get, search, list, status work on a store Bun also uses", () => {
    const store = path.join(tempDir(), "s");
    const init = memsync(["init", store, "--json"], { command: DENO, env });
    assert.equal(init.code, 0, init.stderr);
    const saved = memsync(["--store", store, "save", "Deno wrote this about Kafka", "--tag", "Stream Processing", "--json"], { command: DENO, env });
    assert.equal(saved.code, 0, saved.stderr);
    const id = JSON.parse(saved.stdout).memory.id;
    const fromBun = memsync(["--store", store, "save", "Bun wrote this about Kafka", "--json"], { env });
    assert.equal(fromBun.code, 0);
    const got = memsync(["--store", store, "get", id, JSON.parse(fromBun.stdout).memory.id, "--json"], { command: DENO, env });
    assert.equal(got.code, 0, got.stderr);
    assert.equal(JSON.parse(got.stdout).found.length, 2);
    const search = memsync(["--store", store, "search", "kafka", "--json"], { command: DENO, env });
    assert.equal(JSON.parse(search.stdout).total, 2, "Deno sees Bun's write and its own");
    // recall (its stemmer comes from npm, as under Bun): both, a concept away ("the message broker" is Kafka's kind)
    const recalled = memsync(["--store", store, "recall", "which message broker do we use", "--json"], { command: DENO, env });
    assert.equal(JSON.parse(recalled.stdout).items.length, 2, recalled.stderr);
    const list = memsync(["--store", store, "list", "--tag", "stream_processing", "--json"], { command: DENO, env });
    assert.equal(JSON.parse(list.stdout).total, 1);
    const status = memsync(["--store", store, "status", "--json"], { command: DENO, env });
    assert.equal(JSON.parse(status.stdout).health, "healthy");
    const bad = memsync(["--store", store, "get", "../x"], { command: DENO, env });
    assert.equal(bad.code, 4);
    // a short id, as under Bun; the version names Deno's own version, not a Node-compat one
    assert.equal(JSON.parse(memsync(["--store", store, "get", id.slice(-8), "--json"], { command: DENO, env }).stdout).found[0].memory.id, id);
    assert.match(memsync(["--version"], { command: DENO, env }).stdout, /^memsync \d+\.\d+\.\d+, deno \d+\.\d+\.\d+ on /);
    const commit = memsync(["--store", store, "commit", "--json"], { command: DENO, env });
    assert.equal(commit.code, 0, commit.stderr);
    assert.equal(JSON.parse(commit.stdout).commits.length, 2, "one commit per save, made by Deno");
  });

  test("capture and remember under Deno: the same extraction, reinforcing what Bun stored", () => {
    const store = path.join(tempDir(), "s");
    assert.equal(memsync(["init", store, "--no-git"], { env }).code, 0);
    const prompt = "Let's use PostgreSQL for the analytics DB because we need JSONB";
    const fromBun = JSON.parse(memsync(["--store", store, "capture", prompt, "--json"], { env, cwd: tempDir() }).stdout);
    const payload = JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: "s", cwd: tempDir(), prompt: "We decided to use postgres for our analytics database" });
    const r = memsync(["--store", store, "capture", "--json"], { command: DENO, env, input: payload });
    assert.equal(r.code, 0, r.stderr);
    const fromDeno = JSON.parse(r.stdout);
    assert.equal(fromDeno.stored[0].action, "reinforced");
    assert.equal(fromDeno.stored[0].memory.id, fromBun.stored[0].memory.id);
    const rem = memsync(["--store", store, "remember", "--failed", "Offset pagination caused timeouts at 1M rows", "--json"], { command: DENO, env, cwd: tempDir() });
    assert.equal(rem.code, 0, rem.stderr);
    assert.equal(JSON.parse(rem.stdout).memory.type, "anti-pattern");
  });

  test("the same memory is the same bytes on Bun and Deno", () => {
    const record = {
      id: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d",
      content: "Café ✓ 日本語 — “quotes”, emoji 🚀, tab\\t and a newline\nsecond line",
      type: "decision",
      created_at: 1739548800,
      last_used: 1739635200,
      strength: 1.2,
      confidence: 0.85,
      meta: { tags: ["Machine Learning", "db"], extra: { z: 1, a: [true, null, 0.1] } },
      entities: ["PostgreSQL", "pgvector"],
      zz_unknown: { b: 2, a: 1 },
    };
    const input = JSON.stringify(record);
    const stores = { bun: path.join(tempDir(), "b"), deno: path.join(tempDir(), "d") };
    for (const [rt, dir] of Object.entries(stores)) {
      const cmd = rt === "deno" ? DENO : undefined;
      assert.equal(memsync(["init", dir, "--no-git"], { command: cmd, env }).code, 0);
      const r = memsync(["--store", dir, "save", "--input", "-"], { command: cmd, env, input });
      assert.equal(r.code, 0, `${rt}: ${r.stderr}`);
    }
    const file = `memories/${record.id}.json`;
    const a = fs.readFileSync(path.join(stores.bun, file));
    const b = fs.readFileSync(path.join(stores.deno, file));
    // updated_at is the save time; everything else comes from the input
    const norm = (buf: Buffer) => buf.toString("utf8").replace(/"updated_at": \d+/, '"updated_at": 0');
    assert.equal(norm(b), norm(a));
    assert.ok(a.toString("utf8").includes("日本語"));
  });
});
