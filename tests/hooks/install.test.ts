import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, git, memsync, memsyncJson, tempDir } from "../helpers/env.ts";

// `memsync hooks install|uninstall`: memsync's entries in Claude Code's settings.json, and nothing
// else of the user's touched.

const EVENTS = ["SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd", "SubagentStart", "SubagentStop"];

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
    assert.equal(out.added, EVENTS.length);
    const s = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.equal(s.model, "opus");
    assert.deepEqual(s.permissions, mine.permissions);
    assert.deepEqual(s.hooks.PreToolUse, mine.hooks.PreToolUse);
    for (const e of EVENTS) {
      const ours = s.hooks[e].flatMap((g: { hooks: { command: string }[] }) => g.hooks).filter((h: { command: string }) => h.command.includes(" hook "));
      assert.equal(ours.length, 1, e);
      assert.equal(ours[0].command, `${BIN} hook ${e} --memsync-hook`);
      assert.ok(ours[0].timeout > 0);
    }
    assert.equal(s.hooks.Stop[0].hooks[0].command, "notify-send done");
    // installing again replaces, never doubles
    assert.equal(memsyncJson(["hooks", "install"], { env }).replaced, EVENTS.length);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).hooks.SessionStart.length, 1);
    const removed = memsyncJson(["hooks", "uninstall"], { env });
    assert.equal(removed.removed, EVENTS.length);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), mine);
    assert.match(memsync(["hooks", "uninstall"], { env }).stdout, /^no memsync hooks in /);
  });

  test("--warm: the prompt hook asks the warm server and SessionStart starts one; the other events as before; install without it takes it off", () => {
    const home = tempDir();
    const env = { HOME: home };
    memsyncJson(["hooks", "install", "--warm"], { env });
    const file = path.join(home, ".claude", "settings.json");
    const commands = () => Object.fromEntries(EVENTS.map((e) => [e, JSON.parse(fs.readFileSync(file, "utf8")).hooks[e][0].hooks[0].command]));
    for (const [e, command] of Object.entries(commands())) {
      assert.equal(command, `${BIN} hook ${e}${e === "UserPromptSubmit" || e === "SessionStart" ? " --warm" : ""} --memsync-hook`, e);
    }
    memsyncJson(["hooks", "install"], { env });
    for (const [e, command] of Object.entries(commands())) assert.equal(command, `${BIN} hook ${e} --memsync-hook`, e);
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
    assert.equal(s.hooks.Stop[0].hooks[0].command, `memsync --store ${store} hook Stop --memsync-hook`);
    assert.equal(memsyncJson(["hooks", "uninstall", "--project"], { cwd: sub }).removed, EVENTS.length);
    assert.deepEqual(JSON.parse(fs.readFileSync(out.file, "utf8")), {});
  });

  test("a copy of the binary under another name (ms) installed twice keeps one entry per event, and uninstall removes them", () => {
    const home = tempDir();
    const copy = path.join(tempDir(), "ms");
    fs.copyFileSync(BIN, copy);
    fs.chmodSync(copy, 0o755);
    const file = path.join(home, ".claude", "settings.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // the user's own hook whose command also says "hook Stop" is not memsync's
    const mine = { hooks: { Stop: [{ matcher: "", hooks: [{ type: "command", command: "/usr/bin/other hook Stop" }] }] } };
    fs.writeFileSync(file, JSON.stringify(mine));
    const env = { HOME: home };
    const run = (args: string[]) => memsync(args, { env, command: [copy] });
    assert.equal(run(["hooks", "install"]).code, 0);
    const written = fs.readFileSync(file, "utf8");
    const mtime = fs.statSync(file).mtimeMs;
    const second = run(["hooks", "install", "--json"]);
    assert.equal(JSON.parse(second.stdout).replaced, EVENTS.length);
    assert.equal(JSON.parse(second.stdout).unchanged, true, "the same hooks again: nothing to change");
    assert.match(run(["hooks", "install"]).stdout, /^memsync hooks already installed in /, "a third install says so, not \"updated\"");
    assert.equal(fs.readFileSync(file, "utf8"), written, "the file is left as it was");
    assert.equal(fs.statSync(file).mtimeMs, mtime, "not even rewritten");
    const s = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const e of EVENTS) {
      const commands = s.hooks[e].flatMap((g: { hooks: { command: string }[] }) => g.hooks).map((h: { command: string }) => h.command);
      assert.deepEqual(commands.filter((c: string) => c.startsWith(copy)), [`${copy} hook ${e} --memsync-hook`], e);
    }
    // an entry an older install made without the mark, naming this binary, is recognised too
    s.hooks.PreCompact.push({ matcher: "", hooks: [{ type: "command", command: `${copy} hook PreCompact` }] });
    fs.writeFileSync(file, JSON.stringify(s));
    assert.equal(JSON.parse(run(["hooks", "uninstall", "--json"]).stdout).removed, EVENTS.length + 1);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), mine);
    // the hook itself runs with the mark (it is ignored)
    const payload = { hook_event_name: "SessionStart", session_id: "s1", cwd: tempDir(), source: "startup" };
    const hook = memsync(["--store", tempDir(), "hook", "SessionStart", "--memsync-hook"], { env, command: [copy], input: JSON.stringify(payload) });
    assert.equal(hook.code, 0);
    assert.doesNotMatch(hook.stdout, /systemMessage/);
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
