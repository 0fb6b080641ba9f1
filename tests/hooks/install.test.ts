import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, git, memsync, memsyncJson, tempDir } from "../helpers/env.ts";

// `memsync hooks install|uninstall`: memsync's entries in Claude Code's settings.json, and nothing
// else of the user's touched.

const EVENTS = ["SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"];

describe("memsync hooks install / uninstall", () => {
  test("user scope: this binary for every event, the user's settings and hooks kept; uninstall removes only ours", () => {
    const home = tempDir();
    const file = path.join(home, ".claude", "settings.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const mine = {
      model: "opus",
      permissions: { allow: ["Bash(ls)"] },
      hooks: { Stop: [{ matcher: "", hooks: [{ type: "command", command: "notify-send done" }] }], PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }] },
    };
    fs.writeFileSync(file, JSON.stringify(mine, null, 4));
    const env = { HOME: home };
    const out = memsyncJson(["hooks", "install"], { env });
    assert.equal(out.file, file);
    assert.equal(out.added, 5);
    const s = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.equal(s.model, "opus");
    assert.deepEqual(s.permissions, mine.permissions);
    assert.deepEqual(s.hooks.PreToolUse, mine.hooks.PreToolUse);
    for (const e of EVENTS) {
      const ours = s.hooks[e].flatMap((g: { hooks: { command: string }[] }) => g.hooks).filter((h: { command: string }) => h.command.includes(" hook "));
      assert.equal(ours.length, 1, e);
      assert.equal(ours[0].command, `${BIN} hook ${e}`);
      assert.ok(ours[0].timeout > 0);
    }
    assert.equal(s.hooks.Stop[0].hooks[0].command, "notify-send done");
    // installing again replaces, never doubles
    assert.equal(memsyncJson(["hooks", "install"], { env }).replaced, 5);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).hooks.SessionStart.length, 1);
    const removed = memsyncJson(["hooks", "uninstall"], { env });
    assert.equal(removed.removed, 5);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), mine);
    assert.match(memsync(["hooks", "uninstall"], { env }).stdout, /^no memsync hooks in /);
  });

  test("project scope: .claude/settings.json at the repository root, running memsync from PATH, with the store named when given", () => {
    const repo = tempDir();
    assert.equal(git(repo, "init", "-q").status, 0);
    const sub = path.join(repo, "src", "deep");
    fs.mkdirSync(sub, { recursive: true });
    const store = path.join(tempDir(), "store");
    const out = memsyncJson(["hooks", "install", "--project", "--store", store], { cwd: sub });
    assert.equal(out.file, path.join(repo, ".claude", "settings.json"));
    const s = JSON.parse(fs.readFileSync(out.file, "utf8"));
    assert.equal(s.hooks.Stop[0].hooks[0].command, `memsync --store ${store} hook Stop`);
    assert.equal(memsyncJson(["hooks", "uninstall", "--project"], { cwd: sub }).removed, 5);
    assert.deepEqual(JSON.parse(fs.readFileSync(out.file, "utf8")), {});
  });

  test("a settings file that is not JSON is refused (exit 4) and left as it is; bad usage is exit 2", () => {
    const home = tempDir();
    const file = path.join(home, ".claude", "settings.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "{ not json");
    const r = memsync(["hooks", "install"], { env: { HOME: home } });
    assert.equal(r.code, 4);
    assert.match(r.stderr, /^memsync: .*settings\.json is not valid JSON .*nothing was changed\n$/);
    assert.equal(fs.readFileSync(file, "utf8"), "{ not json");
    assert.equal(memsync(["hooks", "frobnicate"], { env: { HOME: home } }).code, 2);
    assert.equal(memsync(["hooks", "install", "--project", "--user"], { env: { HOME: home } }).code, 2);
  });
});
