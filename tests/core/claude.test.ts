import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BEGIN, END, MAX_BYTES, MAX_LINES, splitSection, writeSection } from "../../src/core/claude/memory-md.ts";
import { encodeProjectPath, projectDirName } from "../../src/core/claude/paths.ts";
import { addHooks, isMemsyncHook, type JsonObject, removeHooks } from "../../src/core/claude/settings.ts";

// Claude Code's files as memsync writes into them: project folder names, settings.json hooks,
// and memsync's section of MEMORY.md.

describe("Claude Code project folder names", () => {
  test("every character but ASCII letters and digits becomes -", () => {
    assert.equal(encodeProjectPath("/home/me/my.app_x"), "-home-me-my-app-x");
    assert.equal(encodeProjectPath("/Users/me/Open Source/proj"), "-Users-me-Open-Source-proj");
    assert.equal(encodeProjectPath("C:\\git\\cc-plus"), "C--git-cc-plus");
    assert.equal(encodeProjectPath("/home/me/.config"), "-home-me--config");
    assert.equal(encodeProjectPath("/d/Проект"), "-d-------");
    assert.deepEqual(projectDirName("/short"), { name: "-short", exact: true });
    const long = projectDirName(`/${"a".repeat(300)}`);
    assert.equal(long.exact, false);
    assert.equal(long.name.length, 200);
  });
});

const ours = (event: string) => ({ event, command: `/opt/bin/memsync hook ${event}`, timeout: 10 });

describe("settings.json hooks", () => {
  test("memsync's commands are recognised, others are not", () => {
    for (const c of ["memsync hook Stop", "/usr/local/bin/memsync hook SessionStart", "'/path with space/memsync' hook Stop", "memsync --store /x hook Stop", "memsync --store '/a b' hook PreCompact", "/x/memsync-edge hook Stop"]) {
      assert.ok(isMemsyncHook(c), c);
    }
    for (const c of ["echo memsync", "memsyncer hook Stop", "/bin/other hook Stop", 42, null]) assert.ok(!isMemsyncHook(c), String(c));
    // the mark, whatever the binary is called; this very binary (self), marked or not
    assert.ok(isMemsyncHook("/home/u/bin/ms --store /s hook Stop --memory-md --memsync-hook"));
    assert.ok(!isMemsyncHook("/home/u/bin/ms hook Stop"));
    assert.ok(isMemsyncHook("/home/u/bin/ms hook Stop", "/home/u/bin/ms"));
    assert.ok(!isMemsyncHook("/home/u/bin/ms-other hook Stop", "/home/u/bin/ms"));
    assert.ok(!isMemsyncHook("/home/u/bin/ms --memsync-hook", "/home/u/bin/ms"), "no hook event: not a hook command");
  });

  test("install adds one entry per event and keeps every other setting and hook", () => {
    const user: JsonObject = {
      model: "opus",
      hooks: {
        Stop: [{ matcher: "", hooks: [{ type: "command", command: "say done" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }] }],
      },
    };
    const { settings, added, replaced } = addHooks(user, [ours("Stop"), ours("SessionStart")]);
    assert.equal(added, 2);
    assert.equal(replaced, 0);
    assert.equal(settings.model, "opus");
    const hooks = settings.hooks as Record<string, { hooks: { command: string }[] }[]>;
    assert.deepEqual(hooks.PreToolUse, (user.hooks as JsonObject).PreToolUse);
    assert.deepEqual(hooks.Stop!.map((g) => g.hooks[0]!.command), ["say done", "/opt/bin/memsync hook Stop"]);
    assert.equal(hooks.SessionStart!.length, 1);
    // the input was not changed
    assert.equal(((user.hooks as JsonObject).Stop as unknown[]).length, 1);
    // again: replaced, not doubled
    const again = addHooks(settings, [ours("Stop"), ours("SessionStart")]);
    assert.equal(again.replaced, 2);
    assert.deepEqual(again.settings, settings);
  });

  test("uninstall removes only memsync's entries and the groups and events it emptied", () => {
    const mixed: JsonObject = {
      hooks: {
        Stop: [{ matcher: "", hooks: [{ type: "command", command: "say done" }, { type: "command", command: "memsync hook Stop" }] }],
        SessionStart: [{ matcher: "", hooks: [{ type: "command", command: "memsync hook SessionStart" }] }],
        Notification: [],
      },
      env: { A: "1" },
    };
    const { settings, removed } = removeHooks(mixed);
    assert.equal(removed, 2);
    assert.deepEqual(settings, { hooks: { Stop: [{ matcher: "", hooks: [{ type: "command", command: "say done" }] }], Notification: [] }, env: { A: "1" } });
    const onlyOurs = removeHooks(addHooks({ theme: "dark" }, [ours("Stop")]).settings);
    assert.deepEqual(onlyOurs.settings, { theme: "dark" });
    assert.deepEqual(removeHooks({ x: 1 }), { settings: { x: 1 }, removed: 0 });
  });
});

const decision = (n: number, what = `Use tool ${n} for job ${n}`) => ({ id: `0190a000-0000-7000-8000-${String(n).padStart(12, "0")}`, what, why: `reason ${n}`, at: 1_790_000_000 + n * 60 });

describe("MEMORY.md section", () => {
  test("the user's lines before and after the section survive byte for byte, and a rewrite replaces it", () => {
    const user = "# My notes\n\nKeep answers short.\n";
    const first = writeSection(user, [decision(1), decision(2)]);
    assert.equal(first.written, 2);
    assert.ok(first.text.startsWith(user));
    assert.match(first.text, /Use tool 2 for job 2 — because reason 2 \(\d{4}-\d\d-\d\d, memsync 00000002\)\n- \[Decision\] Use tool 1/);
    const withTail = `${first.text}\nMore notes of mine.\n`;
    const second = writeSection(withTail, [decision(3)]);
    assert.equal(second.text.split(BEGIN).length, 2, "one section");
    assert.ok(second.text.startsWith(user));
    assert.ok(second.text.endsWith(`${END}\n\nMore notes of mine.\n`));
    assert.doesNotMatch(second.text, /tool 1/);
    const { before, after } = splitSection(second.text);
    assert.equal(before + after, `${user}\nMore notes of mine.\n`);
  });

  test("no duplicates, nothing the user already wrote, newest first", () => {
    const user = "- We use tool 5 for job 5 here.\n";
    const out = writeSection(user, [decision(4), decision(5), { ...decision(6), what: "use  TOOL 4 for job 4!" }, decision(7)]);
    assert.equal(out.written, 2);
    assert.match(out.text, /Use tool 7 for job 7[^\n]*\n- \[Decision\] use TOOL 4 for job 4!/);
    assert.doesNotMatch(out.text, /Use tool 5 for job 5/);
    assert.equal(out.text.match(/tool 4 for job 4/gi)!.length, 1);
  });

  test("the whole file stays within Claude Code's load limit of 200 lines and 25 KB", () => {
    const many = Array.from({ length: 500 }, (_, i) => decision(i + 1, `Decision number ${i + 1}: ${"x".repeat(i % 3 === 0 ? 300 : 20)}`));
    for (const userLines of [0, 50, 195, 260]) {
      const user = Array.from({ length: userLines }, (_, i) => `user line ${i}`).join("\n") + (userLines ? "\n" : "");
      const out = writeSection(user, many);
      const lines = out.text.split("\n").length - 1;
      if (userLines < MAX_LINES - 3) {
        assert.ok(lines <= MAX_LINES, `${lines} lines`);
        assert.ok(new TextEncoder().encode(out.text).length <= MAX_BYTES);
        assert.ok(out.written > 0);
      } else {
        assert.equal(out.written, 0, "no room: no section");
        assert.equal(out.text, user);
      }
      assert.equal(out.written + out.left_out, 500);
    }
  });

  test("no decisions: no section, and an old one is removed", () => {
    assert.equal(writeSection("mine\n", []).text, "mine\n");
    const had = writeSection("mine\n", [decision(1)]).text;
    assert.equal(writeSection(had, []).text, "mine\n");
  });
});
