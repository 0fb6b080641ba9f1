import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, filesUnder, git, newStore, snapshot, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// remember and capture, end to end through the compiled binary.

/** A git repository with an origin, as a project folder to run in. */
function projectDir(remote = "git@github.com:Acme/Billing.git"): string {
  const dir = tempDir("memsync-project-");
  assert.equal(git(dir, "init", "-q").status, 0);
  assert.equal(git(dir, "remote", "add", "origin", remote).status, 0);
  return dir;
}

const memoryFiles = (store: string) => filesUnder(path.join(store, "memories"), ".json");

const readJson = (p: string) => JSON.parse(fs.readFileSync(p, "utf8"));

describe("capture", () => {
  test("a text argument: each decision stored with its fields, the project from the git remote", async () => {
    const store = newStore();
    const cwd = projectDir();
    const out = await memsyncJson(
      ["--store", store, "capture", "Let's use PostgreSQL for the analytics DB because we need JSONB and vector support. Should we use MongoDB? I chose Redis over Memcached for caching."],
      { cwd },
    );
    assert.equal(out.stored.length, 2);
    assert.equal(out.project, "github.com/acme/billing");
    const [pg, redis] = out.stored.map((s: any) => s.memory);
    assert.equal(pg.type, "decision");
    assert.deepEqual(pg.decision, { what: "PostgreSQL for the analytics DB", why: "we need JSONB and vector support", alternatives: [], constraints: [], tradeoffs: [] });
    assert.ok(pg.entities.includes("postgresql"));
    assert.equal(pg.project, "github.com/acme/billing");
    assert.equal(pg.scope, "team");
    assert.match(pg.fingerprint, /^decision:postgresql for analytics database$/);
    assert.deepEqual(redis.decision.alternatives, ["Memcached"]);
    assert.deepEqual(redis.entity_relations, [{ from: "redis", type: "CHOSE_OVER", to: "memcached" }]);
    assert.ok(out.skipped.some((s: any) => s.reason === "a question"));
    // what --json reports is what is in the files
    const files = memoryFiles(store);
    assert.equal(files.length, 2);
    assert.deepEqual(readJson(path.join(store, out.stored[0].path)), pg);
  });

  test("free text on standard input, and the human output", async () => {
    const store = newStore();
    const r = await memsync(["--store", store, "capture"], { input: "don't use var, use const\n", cwd: tempDir() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^stored [0-9a-f-]{36}  preference const  over var/m);
    const [m] = memoryFiles(store).map(readJson);
    assert.equal(m.type, "preference");
    assert.deepEqual(m.decision.alternatives, ["var"]);
    assert.equal(m.project, null, "no git repository around: no project");
  });

  test("a Claude Code UserPromptSubmit payload: prompt, session and the project of its cwd", async () => {
    const store = newStore();
    const cwd = projectDir("https://github.com/acme/web.git");
    const payload = { session_id: "sess-42", transcript_path: "/tmp/t.jsonl", cwd, hook_event_name: "UserPromptSubmit", prompt: "I decided to go with FastAPI because it is async native" };
    const out = await memsyncJson(["--store", store, "capture"], { input: JSON.stringify(payload), cwd: tempDir() });
    assert.equal(out.stored.length, 1);
    const m = out.stored[0].memory;
    assert.equal(m.content, payload.prompt);
    assert.equal(m.project, "github.com/acme/web");
    assert.equal(m.captured_by.session, "sess-42");
    assert.equal(m.captured_by.agent, "claude-code");
    assert.equal(m.meta.source, "claude-code:UserPromptSubmit");
    assert.deepEqual(m.entities, ["fastapi"]);
    // a payload with no prompt stores nothing, quietly
    const stop = await memsync(["--store", store, "capture"], { input: JSON.stringify({ session_id: "s", cwd, hook_event_name: "Stop" }) });
    assert.equal(stop.code, 0);
    assert.match(stop.stdout, /nothing stored: the Stop payload carries no prompt/);
  });

  test("--dry-run shows the extraction and writes nothing (no store is even made)", async () => {
    const store = newStore();
    const before = snapshot(store);
    const r = await memsync(["--store", store, "capture", "--dry-run", "We chose Kafka for events, but it adds operational overhead"], { cwd: tempDir() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /would store 1 memory/);
    assert.match(r.stdout, /what: Kafka for events/);
    assert.match(r.stdout, /tradeoffs: it adds operational overhead/);
    assert.deepEqual(snapshot(store), before);
    const missing = path.join(tempDir(), "none");
    const j = await memsyncJson(["--store", missing, "capture", "--dry-run", "Let's use Redis for caching"]);
    assert.equal(j.dry_run, true);
    assert.equal(j.captures[0].decision.what, "Redis for caching");
    assert.ok(!fs.existsSync(missing));
  });

  test("the same decision twice is one memory, reinforced, its labels unioned", async () => {
    const store = newStore();
    const cwd = projectDir();
    const first = await memsyncJson(["--store", store, "capture", "--tag", "db", "Let's use PostgreSQL for the analytics DB because we need JSONB"], { cwd });
    const again = await memsyncJson(["--store", store, "capture", "--tag", "analytics", "We decided to use postgres for our analytics database, not MySQL"], { cwd });
    assert.equal(again.stored[0].action, "reinforced");
    assert.equal(again.stored[0].memory.id, first.stored[0].memory.id);
    const files = memoryFiles(store);
    assert.equal(files.length, 1);
    const m = readJson(files[0]!);
    assert.equal(m.use_count, 1);
    assert.deepEqual(m.meta.tags, ["db", "analytics"]);
    assert.deepEqual(m.decision.alternatives, ["MySQL"]);
    assert.equal(m.decision.why, "we need JSONB");
    assert.ok(m.entities.includes("mysql"));
    // another project, or a global memory, is another memory
    await memsyncJson(["--store", store, "capture", "Let's use PostgreSQL for the analytics DB"], { cwd: projectDir("git@github.com:acme/other.git") });
    assert.equal(memoryFiles(store).length, 2);
  });

  test("nothing to store exits 0 and says why; no store is created for it", async () => {
    const missing = path.join(tempDir(), "none");
    for (const [text, why] of [
      ["Should we use MongoDB here?", "a question"],
      ["I want you to refactor the auth module", "a request to the assistant"],
      ["If we use Redis, we need persistence", "hypothetical"],
      ["```\nLet's use Redis\n```", "the text is code"],
    ] as const) {
      const r = await memsync(["--store", missing, "capture", text]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`nothing stored: ${why}`));
      const j = await memsyncJson(["--store", missing, "capture", text]);
      assert.deepEqual(j.stored, []);
      assert.ok(j.reason.startsWith(why));
    }
    assert.ok(!fs.existsSync(missing));
    const empty = await memsync(["--store", missing, "capture"], { input: "" });
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /nothing stored: the text is empty/);
  });

  test("several memories from one prompt are one commit", async () => {
    const store = newStore();
    await memsyncJson(["--store", store, "capture", "Let's use pnpm for the monorepo. We chose Vitest over Jest because it is faster. Never use var."], { cwd: tempDir() });
    assert.equal(memoryFiles(store).length, 3);
    await memsyncJson(["--store", store, "commit"]);
    const log = git(store, "log", "--format=%s").stdout.trim().split("\n");
    assert.equal(log[0], "capture: 3 new memories");
    assert.equal(log.length, 2, "the store's first commit and one for the capture");
  });
});

describe("remember", () => {
  test("stores the whole text with the fields read from it", async () => {
    const store = newStore();
    const out = await memsyncJson(["--store", store, "remember", "Use", "JWT", "tokens", "for", "auth,", "not", "session", "cookies", "--tag", "auth"], { cwd: projectDir() });
    assert.equal(out.action, "created");
    const m = out.memory;
    assert.equal(m.content, "Use JWT tokens for auth, not session cookies");
    assert.equal(m.type, "decision");
    assert.equal(m.decision.what, "JWT tokens for auth");
    assert.deepEqual(m.decision.alternatives, ["session cookies"]);
    assert.ok(m.confidence >= 0.8);
    assert.equal(m.project, "github.com/acme/billing");
    assert.deepEqual(m.meta.tags, ["auth"]);
    assert.equal(m.meta.source, "remember");
    assert.deepEqual(readJson(path.join(store, out.path)), m);
  });

  test("--failed is an anti-pattern, --success a pattern, --type wins and keeps the outcome", async () => {
    const store = newStore();
    const cwd = tempDir();
    const failed = (await memsyncJson(["--store", store, "remember", "--failed", "Offset pagination caused timeouts at 1M rows"], { cwd })).memory;
    assert.equal(failed.type, "anti-pattern");
    assert.equal(failed.outcome, "failed");
    assert.ok(failed.entities.includes("offset-pagination"));
    const ok = (await memsyncJson(["--store", store, "remember", "--success", "Cursor-based pagination scales for 2M+ rows"], { cwd })).memory;
    assert.equal(ok.type, "pattern");
    assert.equal(ok.outcome, "success");
    const sol = (await memsyncJson(["--store", store, "remember", "--type", "solution", "--failed", "Raising the pool size did not fix the timeouts"], { cwd })).memory;
    assert.equal(sol.type, "solution");
    assert.equal(sol.outcome, "failed");
    const both = await memsync(["--store", store, "remember", "--success", "--failed", "x"]);
    assert.equal(both.code, 2);
  });

  test("--global: scope global and no project; --project names one", async () => {
    const store = newStore();
    const cwd = projectDir();
    const g = (await memsyncJson(["--store", store, "remember", "--global", "Always validate input at API boundaries"], { cwd })).memory;
    assert.equal(g.scope, "global");
    assert.equal(g.project, null);
    const p = (await memsyncJson(["--store", store, "remember", "--project", "github.com/x/y", "We deploy with GitHub Actions"], { cwd })).memory;
    assert.equal(p.project, "github.com/x/y");
    assert.equal((await memsync(["--store", store, "remember", "--global", "--project", "a", "x"])).code, 2);
  });

  test("what implicit capture would skip is still remembered; the same text twice is reinforced", async () => {
    const store = newStore();
    const cwd = tempDir();
    const a = await memsyncJson(["--store", store, "remember", "-"], { input: "Hetzner support set up the staging cluster\n", cwd });
    assert.equal(a.memory.type, "fact");
    assert.ok(a.memory.entities.includes("hetzner"));
    const b = await memsyncJson(["--store", store, "remember", "Hetzner support set up the staging cluster"], { cwd });
    assert.equal(b.action, "reinforced");
    assert.equal(b.memory.use_count, 1);
    assert.equal(memoryFiles(store).length, 1);
  });

  test("a text that is all <private> is refused and nothing changes", async () => {
    const store = newStore();
    const before = snapshot(store);
    const r = await memsync(["--store", store, "remember", "<private>my salary is 100k</private>"]);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /entirely <private>/);
    assert.deepEqual(snapshot(store), before);
    const missing = path.join(tempDir(), "none");
    assert.equal((await memsync(["--store", missing, "remember", "<private>x</private>"])).code, 4);
    assert.ok(!fs.existsSync(missing), "no store made for refused input");
  });

  test("save stays a plain store-as-given", async () => {
    const store = newStore();
    const m = (await memsyncJson(["--store", store, "save", "Let's use Redis because it is fast"])).memory;
    assert.equal(m.type, "fact");
    assert.equal(m.decision, null);
    assert.deepEqual(m.entities, []);
    assert.equal(m.fingerprint, undefined);
  });
});
