import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, gitProject, memsync, memsyncJson, newStore, saveMany, tempDir } from "../helpers/env.ts";

// `memsync hook <Event>` end to end with the compiled binary: Claude Code's JSON in, the
// documented JSON out, always exit 0, context under 10,000 characters.

function project(remote = "https://github.com/acme/shop.git"): string {
  return gitProject(remote);
}

/** Wait for a background effect (a sync the hook left running), up to 30 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !done(); ) {
    if (Date.now() - started > 30_000) assert.fail(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function hook(store: string, event: string, payload: Record<string, unknown> | string, env: Record<string, string> = {}, extra: string[] = []) {
  const input = typeof payload === "string" ? payload : JSON.stringify({ session_id: "sess-1", hook_event_name: event, ...payload });
  const r = memsync(["--store", store, "hook", event, ...extra], { input, env });
  assert.equal(r.code, 0, `a hook always exits 0 (stderr: ${r.stderr})`);
  assert.equal(r.stdout.trim().split("\n").length, 1, "one JSON line");
  const reply = JSON.parse(r.stdout);
  const ctx = reply.hookSpecificOutput?.additionalContext as string | undefined;
  if (ctx !== undefined) {
    assert.equal(reply.hookSpecificOutput.hookEventName, event);
    assert.ok(ctx.length < 10_000);
  }
  return { reply, ctx, stderr: r.stderr };
}

describe("memsync hook", () => {
  test("a prompt's decision is captured; a question about past work gets the relevant memories; session start gets the project's decisions", () => {
    const store = newStore();
    const repo = project();
    const said = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "Let's use PostgreSQL for the analytics DB because we need JSONB and vector support" });
    assert.equal(said.ctx, undefined, "nothing to inject for a statement");
    const [m] = memsyncJson(["--store", store, "list"]).memories;
    assert.equal(m.type, "decision");
    assert.equal(m.project, "github.com/acme/shop");
    assert.equal(m.captured_by.session, "sess-1");
    assert.ok(m.entities.includes("postgresql"));
    const asked = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "What did we decide about the analytics database?" });
    assert.match(asked.ctx!, /PostgreSQL for the analytics DB/);
    assert.match(asked.ctx!, new RegExp(m.id.slice(-8)));
    assert.equal(memsyncJson(["--store", store, "list"]).total, 1, "a question is not stored");
    const start = hook(store, "SessionStart", { cwd: repo, source: "startup" });
    assert.match(start.ctx!, /^## Recent Project Decisions \(github\.com\/acme\/shop\)/);
    assert.match(start.ctx!, /PostgreSQL/);
    // another project's session does not see it
    const other = hook(store, "SessionStart", { cwd: project("https://github.com/acme/other.git"), source: "startup" });
    assert.doesNotMatch(JSON.stringify(other.reply), /PostgreSQL/);
  });

  test("any substantive prompt gets the memories that fit it, never its own capture; a prompt about something else gets nothing", () => {
    const store = newStore();
    const repo = project();
    saveMany(store, [
      { content: "Background jobs moved from Sidekiq to BullMQ with Redis.", type: "decision", project: "github.com/acme/shop", entities: ["bullmq", "redis"] },
      { content: "The login workflow logs each step to the audit table.", type: "fact", project: "github.com/acme/shop" },
    ]);
    // not a question about earlier work, but about something memsync knows: the jobs memory
    const asked = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "Add a nightly job queue worker that retries the invoice export" });
    assert.match(asked.ctx!, /BullMQ/);
    assert.doesNotMatch(asked.ctx!, /login workflow/);
    // a decision stated now is captured, and not handed back as context in the same prompt
    const stated = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Temporal for the billing workflows because retries need durable state" });
    assert.doesNotMatch(stated.ctx ?? "", /Temporal/);
    assert.equal(memsyncJson(["--store", store, "list"]).total, 3);
    // nothing meaningful in common ("log", "work" are no match for "login", "workflow"), or too little to go on
    for (const prompt of ["I need to log my hours for work this week", "yes, go on"]) {
      assert.equal(hook(store, "UserPromptSubmit", { cwd: repo, prompt }).ctx, undefined, prompt);
    }
  });

  test("context stays under Claude Code's 10,000 characters however much there is", () => {
    const store = newStore();
    const repo = project();
    const long = "x".repeat(3000);
    saveMany(
      store,
      Array.from({ length: 30 }, (_, i) => ({ content: `Decision ${i}: we chose option ${i} ${long}`, type: "decision", project: "github.com/acme/shop", decision: { what: `option ${i} ${long}`, why: long } })),
    );
    const start = hook(store, "SessionStart", { cwd: repo, source: "startup" });
    assert.ok(start.ctx!.length > 1000);
    const asked = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "Remind me which option we chose last time" });
    assert.ok(asked.ctx!.length < 10_000);
  });

  test("never breaks the session: bad input, an unknown event, an unusable store all exit 0 with a systemMessage", () => {
    const store = newStore();
    assert.match(hook(store, "Stop", "not json").reply.systemMessage, /^memsync: the hook input was not Claude Code.s hook JSON/);
    assert.match(hook(store, "Frobnicate", {}).reply.systemMessage, /^memsync: unknown hook event "Frobnicate"/);
    const broken = path.join(tempDir(), "broken");
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, ".meta.json"), "{ this is not json");
    const r = hook(broken, "UserPromptSubmit", { cwd: tempDir(), prompt: "We decided to use Redis for caching because it is fast" });
    assert.match(r.reply.systemMessage, /^memsync: /);
    assert.equal(fs.readFileSync(path.join(broken, ".meta.json"), "utf8"), "{ this is not json");
    // no store yet: session start is quiet, a prompt worth keeping makes the store
    const fresh = path.join(tempDir(), "fresh");
    assert.deepEqual(hook(fresh, "SessionStart", { cwd: project(), source: "startup" }).reply, { suppressOutput: true });
    hook(fresh, "UserPromptSubmit", { cwd: project(), prompt: "Should we use MongoDB here?" });
    assert.ok(!fs.existsSync(fresh), "a prompt with nothing to keep makes no store");
    hook(fresh, "UserPromptSubmit", { cwd: project(), prompt: "I chose Redis over Memcached for caching" });
    assert.equal(memsyncJson(["--store", fresh, "list"]).total, 1);
  });

  test("PreCompact commits pending changes; Stop and SessionEnd sync within their bound, at most every few minutes for Stop", async () => {
    const root = tempDir();
    const bare = path.join(root, "hub.git");
    assert.equal(git(root, "init", "-q", "--bare", bare).status, 0);
    const store = newStore();
    assert.equal(memsync(["--store", store, "remote", "set", bare]).code, 0);
    const repo = project();
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Redis for caching because it is fast" });
    hook(store, "PreCompact", { cwd: repo, trigger: "auto" });
    assert.match(git(store, "log", "--format=%s").stdout, /^capture: /);
    const started = Date.now();
    assert.deepEqual(hook(store, "Stop", { cwd: repo, stop_hook_active: false }).reply, { suppressOutput: true });
    assert.ok(Date.now() - started < 10_000);
    // the hook waits a few seconds; on a slow machine the sync finishes in the background
    await until(() => /^capture: /.test(git(bare, "log", "--format=%s", "main").stdout), "the Stop sync reached the remote");
    // another turn right after: no second sync
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We chose Kafka over RabbitMQ for the event bus" });
    hook(store, "Stop", { cwd: repo });
    assert.doesNotMatch(git(bare, "log", "--format=%s", "main").stdout, /Kafka|2 new/);
    hook(store, "SessionEnd", { cwd: repo, reason: "exit" });
    await until(() => memsyncJson(["--store", store, "status"]).unpushed_commits === 0, "SessionEnd synced");
    // a remote that is gone: said so, nothing lost
    fs.rmSync(bare, { recursive: true, force: true });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Vitest because it is fast" });
    const gone = hook(store, "SessionEnd", { cwd: repo, reason: "exit" });
    assert.match(gone.reply.systemMessage, /^memsync: sync failed \(.*\); your memories are kept and the next sync retries$/);
    assert.equal(memsyncJson(["--store", store, "list"]).total, 3);
  });
});

describe("the assistant's decisions and subagents", () => {
  test("Stop holds the explicit decisions of the assistant's last message; the next prompt stores them if it accepts, drops them if not; SubagentStart gets the project's decisions", () => {
    const store = newStore();
    const repo = project();
    const message = "Done. I switched the unit tests from Jest to Vitest, and all 42 pass. I'd recommend also moving the e2e tests to Playwright.";
    assert.deepEqual(hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Redis for caching because it is fast" }).reply, { suppressOutput: true });
    hook(store, "Stop", { cwd: repo, stop_hook_active: false, last_assistant_message: message });
    assert.equal(memsyncJson(["--store", store, "list"]).total, 1, "nothing stored before the user answers");
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "ok, sounds good" });
    const stored = memsyncJson(["--store", store, "list"]).memories;
    assert.equal(stored.length, 2);
    const vitest = stored.find((m: { content: string }) => /Vitest/.test(m.content));
    assert.equal(vitest.type, "decision");
    assert.equal(vitest.meta.source, "claude-code:Stop");
    assert.ok(vitest.entities.includes("vitest"));
    assert.doesNotMatch(JSON.stringify(stored), /Playwright/, "a suggestion is never stored");
    // a subagent's decision the user answers with something else: dropped
    hook(store, "SubagentStop", { cwd: repo, agent_type: "general-purpose", last_assistant_message: "We decided to use MongoDB for the audit log." });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "no, keep it in Postgres" });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "ok" });
    assert.doesNotMatch(JSON.stringify(memsyncJson(["--store", store, "list"]).memories), /MongoDB/);
    // a session id that is not a plain token never becomes a file name
    hook(store, "Stop", { cwd: repo, session_id: "../../escape", last_assistant_message: "We decided to use Kafka for events." });
    assert.ok(!fs.existsSync(path.join(store, "..", "escape.json")));
    const sub = hook(store, "SubagentStart", { cwd: repo, agent_id: "a1", agent_type: "Explore" });
    assert.equal(sub.reply.hookSpecificOutput.hookEventName, "SubagentStart");
    assert.match(sub.ctx!, /^## Recent Project Decisions \(github\.com\/acme\/shop\)\n- \[Decision\] /);
    assert.match(sub.ctx!, /Vitest/);
    assert.deepEqual(hook(store, "SubagentStart", { cwd: project("https://github.com/acme/empty.git"), agent_type: "Explore" }).reply, { suppressOutput: true });
  });

  test("the assistant's decision a prompt accepts is stored, not handed back as that prompt's context; what else fits still is", () => {
    const store = newStore();
    const repo = project();
    saveMany(store, [{ content: "The cart tests need the Redis container running (docker compose up redis).", type: "fact", project: "github.com/acme/shop" }]);
    hook(store, "Stop", { cwd: repo, session_id: "s-accept", last_assistant_message: "Done. I switched the cart tests from Jest to Vitest, because Vitest runs the suite in 4s instead of 40s." });
    const next = hook(store, "UserPromptSubmit", { cwd: repo, session_id: "s-accept", prompt: "great, go ahead and run the cart tests with vitest now" });
    const stored = memsyncJson(["--store", store, "list"]).memories;
    assert.ok(stored.some((m: { content: string; meta: { source: string } }) => /Vitest/.test(m.content) && m.meta.source === "claude-code:Stop"), "accepted and stored");
    assert.match(next.ctx ?? "", /Redis container/, "the prompt still gets what fits it");
    assert.doesNotMatch(next.ctx ?? "", /Jest to Vitest/, "not what the assistant just said");
  });

  test("a subagent of a project with no decisions gets the global rules only, not the project's latest facts", () => {
    const store = newStore();
    const repo = project();
    saveMany(store, [
      { content: "The build fails on arm64 because sharp has no prebuilt binary; installing libvips-dev fixed it.", type: "solution", project: "github.com/acme/shop" },
      { content: "Always pin exact dependency versions", type: "preference", scope: "global", confidence: 0.9, decision: { what: "pin exact dependency versions", why: "reproducible builds" } },
    ]);
    const sub = hook(store, "SubagentStart", { cwd: repo, agent_id: "a2", agent_type: "Plan" }).ctx!;
    assert.match(sub, /^## Global Best Practices\n- \[Global rule\] pin exact dependency versions/);
    assert.doesNotMatch(sub, /libvips|Recent Project/);
    // the session itself still starts with what is known of the project
    assert.match(hook(store, "SessionStart", { cwd: repo, source: "startup" }).ctx!, /no decisions yet\)\n- \[Solution\][^\n]*libvips/);
  });

  test("a session outside any repository (no project) still starts with the user's global rules, and so does its subagent", () => {
    const store = newStore();
    const folder = tempDir();
    saveMany(store, [
      { content: "Use PostgreSQL for orders", type: "decision", project: "github.com/acme/shop", confidence: 0.9 },
      { content: "Always pin exact dependency versions", type: "preference", scope: "global", confidence: 0.9, decision: { what: "pin exact dependency versions", why: "reproducible builds" } },
    ]);
    for (const event of ["SessionStart", "SubagentStart"]) {
      const ctx = hook(store, event, { cwd: folder, source: "startup", agent_type: "Explore" }, { CLAUDE_PROJECT_DIR: folder }).ctx!;
      assert.match(ctx, /^## Global Best Practices\n- \[Global rule\] pin exact dependency versions/, event);
      assert.doesNotMatch(ctx, /PostgreSQL/, event);
    }
  });
});

describe("MEMORY.md tier", () => {
  test("export memory-md writes the project's confident decisions into Claude Code's file for it, keeping the user's lines", () => {
    const home = tempDir();
    const store = newStore();
    const repo = project();
    const env = { HOME: home };
    const save = (fields: Record<string, unknown>) => memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify(fields) }).memory.id as string;
    save({ content: "Use PostgreSQL", type: "decision", project: "github.com/acme/shop", confidence: 0.9, decision: { what: "Use PostgreSQL for analytics", why: "JSONB support" } });
    save({ content: "Maybe try Deno", type: "decision", project: "github.com/acme/shop", confidence: 0.4 });
    save({ content: "Use MySQL", type: "decision", project: "github.com/acme/other", confidence: 0.95 });
    const dir = path.join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "MEMORY.md"), "# Notes\n\n- run tests with npm test\n");
    const out = memsyncJson(["--store", store, "export", "memory-md"], { env, cwd: repo });
    assert.equal(out.file, path.join(dir, "MEMORY.md"));
    assert.equal(out.written, 1);
    const text = fs.readFileSync(out.file, "utf8");
    assert.ok(text.startsWith("# Notes\n\n- run tests with npm test\n<!-- memsync:begin"));
    assert.match(text, /- \[Decision\] Use PostgreSQL for analytics — because JSONB support \(/);
    assert.doesNotMatch(text, /Deno|MySQL/);
    // again: the same file, no duplicate
    assert.equal(memsyncJson(["--store", store, "export", "memory-md"], { env, cwd: repo }).changed, false);
    // the Stop hook keeps it current when installed with --memory-md
    save({ content: "Use Redis", type: "decision", project: "github.com/acme/shop", confidence: 0.8, decision: { what: "Use Redis for caching", why: null } });
    hook(store, "Stop", { cwd: repo }, env, ["--memory-md"]);
    assert.match(fs.readFileSync(out.file, "utf8"), /Use Redis for caching[^\n]*\n- \[Decision\] Use PostgreSQL/);
  });

  test("a captured decision or preference updates MEMORY.md without a flag; preferences and global rules are in it; a prompt that stores none leaves it alone", () => {
    const home = tempDir();
    const store = newStore();
    const repo = project();
    const env = { HOME: home };
    const file = path.join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory", "MEMORY.md");
    memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify({ content: "Always pin dependencies", type: "preference", scope: "global", confidence: 0.9, decision: { what: "pin dependency versions", why: "reproducible builds" } }) });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Redis for caching because it is fast" }, env);
    const first = fs.readFileSync(file, "utf8");
    assert.match(first, /- \[Decision\] Redis for caching — because it is fast/);
    assert.match(first, /- \[Global rule\] pin dependency versions — because reproducible builds/);
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "I prefer named exports over default exports in TypeScript modules" }, env);
    assert.match(fs.readFileSync(file, "utf8"), /- \[Preference\] named exports/);
    const before = fs.statSync(file).mtimeMs;
    fs.utimesSync(file, new Date(0), new Date(0));
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "Should we use MongoDB here?" }, env);
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "The worker keeps crashing when the queue is empty" }, env);
    assert.equal(fs.statSync(file).mtimeMs, 0, `not rewritten (was ${before})`);
    // session start: each line labelled with its type and entities, the global rules after, within 3,000
    const start = hook(store, "SessionStart", { cwd: repo, source: "startup" }, env);
    assert.match(start.ctx!, /^## Recent Project Decisions \(github\.com\/acme\/shop\)\n/);
    assert.match(start.ctx!, /\n- \[Preference\] named exports[^\n]*\{[^}]*named-exports[^}]*\} \[/);
    assert.match(start.ctx!, /\n- \[Decision\] Redis for caching \(because: it is fast\) \{redis[^}]*\} \[/);
    assert.match(start.ctx!, /\n## Global Best Practices\n- \[Global rule\] pin dependency versions/);
    assert.doesNotMatch(start.ctx!, /crashing/, "a problem is not a decision");
    assert.ok(start.ctx!.length <= 3000);
  });

  test("a MEMORY.md that cannot be written is said in systemMessage, also when the prompt gets context", () => {
    const home = tempDir();
    const store = newStore();
    const repo = project();
    const env = { HOME: home };
    // the memory folder is a file: the section cannot be written
    const dir = path.join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "memory"), "not a folder");
    saveMany(store, [{ content: "The billing worker retries failed invoices three times.", type: "fact", project: "github.com/acme/shop" }]);
    const r = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided the billing worker uses exponential backoff for failed invoices because Stripe rate-limits retries." }, env);
    assert.match(r.ctx ?? "", /retries failed invoices/, "the context is given");
    assert.match(r.reply.systemMessage ?? "", /MEMORY\.md not updated/, "and the user told");
    assert.ok(memsyncJson(["--store", store, "list"]).memories.some((m: { content: string }) => /exponential backoff/.test(m.content)), "the decision is stored");
  });

  test("a decision replaced by a newer one (supersedes) leaves MEMORY.md, the session start and a subagent's context; it is back when the newer is archived", () => {
    const home = tempDir();
    const store = newStore();
    const repo = project();
    const env = { HOME: home };
    const file = path.join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory", "MEMORY.md");
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We're going with Postgres 16 for the order data because we need transactions across orders and inventory." }, env);
    assert.match(fs.readFileSync(file, "utf8"), /Postgres 16 for the order data/);
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We're switching the order data from Postgres to CockroachDB, since we need multi-region writes." }, env);
    const [newer, older] = memsyncJson(["--store", store, "list"]).memories;
    assert.match(newer.content, /CockroachDB/);
    assert.equal(memsyncJson(["--store", store, "get", newer.id, "--json"]).found[0].outgoing.filter((r: any) => r.relation_type === "supersedes" && r.to_memory_id === older.id).length, 1, "the capture relates the two");
    // yesterday's answer is not handed over as a current decision
    const md = fs.readFileSync(file, "utf8");
    assert.match(md, /CockroachDB/);
    assert.doesNotMatch(md, /Postgres 16/);
    for (const event of ["SessionStart", "SubagentStart"]) {
      const ctx = hook(store, event, { cwd: repo, source: "startup", agent_type: "Explore" }, env).ctx!;
      assert.match(ctx, /CockroachDB/, event);
      assert.doesNotMatch(ctx, /Postgres 16/, event);
    }
    // the replacement archived: the older decision is current again
    memsync(["--store", store, "archive", newer.id]);
    assert.match(hook(store, "SessionStart", { cwd: repo, source: "startup" }, env).ctx!, /Postgres 16/);
    memsyncJson(["--store", store, "export", "memory-md"], { env, cwd: repo });
    assert.match(fs.readFileSync(file, "utf8"), /Postgres 16/);
  });
});
