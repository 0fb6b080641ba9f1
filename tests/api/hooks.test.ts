import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, git, memsync, memsyncJson, newStore, tempDir } from "../helpers/env.ts";
import { hub } from "../helpers/hub.ts";
import { post, withServer } from "../helpers/server.ts";

// Headless capture: `POST /v1/hooks/{event}` takes Claude Code's hook payloads and answers the
// hook JSON `memsync hook EVENT` prints (the same code); `hooks install --http URL` points Claude
// Code's http hooks at it.

const payload = (event: string, extra: Record<string, unknown>) => ({
  session_id: "sess-http",
  transcript_path: "/home/agent/.claude/projects/x/sess-http.jsonl",
  cwd: "/home/agent/work/shop",
  permission_mode: "default",
  hook_event_name: event,
  ...extra,
});

describe("memsync serve: the hook route", () => {
  test("UserPromptSubmit captures (project from ?project=) and recalls; SessionStart gives the project's decisions; bad input is a systemMessage", async () => {
    const store = newStore();
    await withServer(store, async (s) => {
      const hook = (event: string, extra: Record<string, unknown>, q = "?project=github.com/acme/shop") => post(`${s.url}/v1/hooks/${event}${q}`, payload(event, extra));
      const said = await hook("UserPromptSubmit", { prompt: "Let's use PostgreSQL for the analytics DB because we need JSONB and vector support" });
      assert.equal(said.status, 200);
      assert.deepEqual(said.body, { suppressOutput: true });
      const [m] = memsyncJson(["--store", store, "list"]).memories;
      assert.equal(m.type, "decision");
      assert.equal(m.project, "github.com/acme/shop");
      assert.equal(m.captured_by.session, "sess-http");
      const asked = await hook("UserPromptSubmit", { prompt: "What did we decide about the analytics database?" });
      assert.equal(asked.body.hookSpecificOutput.hookEventName, "UserPromptSubmit");
      assert.match(asked.body.hookSpecificOutput.additionalContext, /PostgreSQL for the analytics DB/);
      const start = await hook("SessionStart", { source: "startup" });
      assert.match(start.body.hookSpecificOutput.additionalContext, /^## Recent Project Decisions \(github\.com\/acme\/shop\)/);
      assert.deepEqual((await hook("PreCompact", { trigger: "auto" })).body, { suppressOutput: true });
      assert.deepEqual((await hook("Stop", { stop_hook_active: false })).body, { suppressOutput: true }); // no remote: nothing to sync
      assert.match((await post(`${s.url}/v1/hooks/Stop`, "not json")).body.systemMessage, /^memsync: the hook input was not Claude Code.s hook JSON/);
      assert.match((await hook("Nope", {})).body.systemMessage, /^memsync: unknown hook event/);
      // the same payload through the command gives the same answer
      const cli = memsync(["--store", store, "hook", "UserPromptSubmit"], { input: JSON.stringify(payload("UserPromptSubmit", { prompt: "What did we decide about the analytics database?", cwd: tempDir() })) });
      assert.equal(JSON.parse(cli.stdout).hookSpecificOutput.hookEventName, "UserPromptSubmit");
      assert.equal(memsyncJson(["--store", store, "list"]).total, 1, "questions are not stored");
    });
  });

  test("Stop and SessionEnd start the server's own sync (one at a time), seen in health", async () => {
    const store = newStore();
    const { bare } = hub();
    assert.equal(memsync(["--store", store, "remote", "set", bare]).code, 0);
    await withServer(store, async (s) => {
      await post(`${s.url}/v1/hooks/UserPromptSubmit?project=p`, payload("UserPromptSubmit", { prompt: "We decided to use Redis for sessions because it is fast" }));
      assert.deepEqual((await post(`${s.url}/v1/hooks/SessionEnd`, payload("SessionEnd", { reason: "exit" }))).body, { suppressOutput: true });
      for (const t = Date.now(); ; ) {
        const h = (await fetch(`${s.url}/v1/health`).then((r) => r.json())) as any;
        if (h.sync.last?.ok) break;
        assert.ok(Date.now() - t < 30_000, `no sync within 30 s: ${JSON.stringify(h.sync)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    });
  });

  test("hooks install --http URL: type http entries with the token from MEMSYNC_API_TOKEN, SessionStart a command; uninstall removes them", () => {
    const home = tempDir();
    const file = path.join(home, ".claude", "settings.json");
    const out = memsyncJson(["hooks", "install", "--http", "https://mem.example.com/"], { env: { HOME: home } });
    assert.equal(out.file, file);
    const s = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.equal(s.hooks.SessionStart[0].hooks[0].type, "command");
    assert.equal(s.hooks.SessionStart[0].hooks[0].command, `${BIN} hook SessionStart --memsync-hook`);
    assert.equal(s.hooks.SubagentStart[0].hooks[0].type, "command");
    for (const e of ["UserPromptSubmit", "PreCompact", "Stop", "SessionEnd", "SubagentStop"]) {
      const [h] = s.hooks[e][0].hooks;
      assert.deepEqual({ ...h, timeout: 0 }, {
        type: "http",
        url: `https://mem.example.com/v1/hooks/${e}`,
        timeout: 0,
        headers: { Authorization: "Bearer $MEMSYNC_API_TOKEN" },
        allowedEnvVars: ["MEMSYNC_API_TOKEN"],
      });
    }
    // installing again replaces (command or http), never doubles; uninstall removes both kinds
    assert.equal(memsyncJson(["hooks", "install"], { env: { HOME: home } }).replaced, 7);
    assert.equal(memsyncJson(["hooks", "install", "--http", "http://127.0.0.1:7457"], { env: { HOME: home } }).replaced, 7);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).hooks.Stop.length, 1);
    assert.equal(memsyncJson(["hooks", "uninstall"], { env: { HOME: home } }).removed, 7);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), {});
    // a repository's shared settings name its project on the server
    const repo = tempDir();
    assert.equal(git(repo, "init", "-q").status, 0);
    assert.equal(git(repo, "remote", "add", "origin", "https://github.com/acme/shop.git").status, 0);
    const shared = memsyncJson(["hooks", "install", "--project", "--http", "https://mem.example.com"], { cwd: repo });
    const url = new URL(JSON.parse(fs.readFileSync(shared.file, "utf8")).hooks.UserPromptSubmit[0].hooks[0].url);
    assert.equal(url.pathname, "/v1/hooks/UserPromptSubmit");
    assert.equal(url.searchParams.get("project"), "github.com/acme/shop");
    const bad = memsync(["hooks", "install", "--http", "https://user:pw@mem.example.com"], { env: { HOME: home } });
    assert.equal(bad.code, 4);
    assert.ok(!bad.stderr.includes("pw@"));
  });
});
