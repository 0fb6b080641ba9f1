import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, initStore, memsync, memsyncJson, snapshot, tempDir } from "../helpers/env.ts";

// A new user's audit of the binary (audit21): each test is a finding, run through the compiled
// binary as a process, that failed before its fix.

const skipVolatile = (rel: string) => rel.endsWith("-wal") || rel.endsWith("-shm");

describe("audit21: found by a new user", () => {
  test("export refuses a path that reaches into the store through a symbolic link", () => {
    const dir = tempDir();
    const store = initStore(path.join(dir, "store"));
    memsyncJson(["--store", store, "save", "a team note about the release train"]);
    memsyncJson(["--store", store, "save", "a private note", "--scope", "local"]);
    memsyncJson(["--store", store, "commit"]);
    // a link from outside to the record folder, and one to the store itself
    fs.symlinkSync(path.join(store, "memories"), path.join(dir, "into-records"));
    fs.symlinkSync(store, path.join(dir, "store-link"));
    const before = snapshot(store, skipVolatile);
    for (const args of [
      ["export", "jsonl", path.join(dir, "into-records", "backup.jsonl")],
      ["export", "cortexgraph", path.join(dir, "store-link", "memories")],
      ["export", "markdown", path.join(dir, "store-link", "notes")],
      ["export", "mcp-memory", path.join(dir, "into-records", "new", "memory.jsonl")],
    ]) {
      const r = memsync(["--store", store, ...args]);
      assert.equal(r.code, 4, `${args.join(" ")} -> ${r.code}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^memsync: export: .* is inside the store/);
    }
    assert.deepEqual(snapshot(store, skipVolatile), before, "nothing was written into the store");
    // the local memory never reached a file git would commit
    assert.equal(git(store, "status", "--porcelain").stdout.trim(), "");
    // a real folder outside still works
    const ok = memsync(["--store", store, "export", "jsonl", path.join(dir, "backup.jsonl")]);
    assert.equal(ok.code, 0, ok.stderr);
  });

  test("promote refuses a vault inside the store, by its path or through a link", () => {
    const dir = tempDir();
    const store = initStore(path.join(dir, "store"));
    const id = memsyncJson(["--store", store, "save", "a note worth keeping for the long term"]).memory.id;
    memsyncJson(["--store", store, "commit"]);
    fs.symlinkSync(path.join(store, "memories"), path.join(dir, "vault-link"));
    const before = snapshot(store, skipVolatile);
    for (const vault of [path.join(store, "memories"), store, path.join(dir, "vault-link"), path.join(dir, "vault-link", "notes")]) {
      const r = memsync(["--store", store, "promote", id, "--vault", vault]);
      assert.equal(r.code, 4, `promote --vault ${vault} -> ${r.code}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^memsync: promote: .* is inside the store/);
    }
    assert.deepEqual(snapshot(store, skipVolatile), before, "no note written, the memory not promoted, no role taken");
    const ok = memsync(["--store", store, "promote", id, "--vault", path.join(dir, "vault")]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(fs.readdirSync(path.join(dir, "vault")).length, 1);
  });

  test("an option's value is kept as typed: the parser no longer makes \"\" 0, \"007\" 7 or \"0x10\" 16", () => {
    const store = initStore();
    const m = memsyncJson(["--store", store, "save", "a note with odd labels", "--tag", "007", "-t", "0x10,1e3", "--project", "007"]).memory;
    assert.deepEqual(m.meta.tags, ["007", "0x10", "1e3"]);
    assert.equal(m.project, "007");
    const n = memsyncJson(["--store", store, "save", "another note", "--tag=0010", "--entity", "0x1F"]).memory;
    assert.deepEqual(n.meta.tags, ["0010"]);
    assert.deepEqual(n.entities, ["0x1F"]);
    // an empty value is refused as empty, not as "0", and nothing is saved
    const before = memsyncJson(["--store", store, "list"]).memories.length;
    for (const [flag, message] of [
      ["--importance", /--importance must be one of low, medium, high, critical, got ""/],
      ["--type", /--type must be one of .*, got ""/],
      ["--scope", /--scope must be one of .*, got ""/],
    ] as const) {
      const r = memsync(["--store", store, "save", "x", flag, ""]);
      assert.equal(r.code, 4, `${flag} "" -> ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    const limit = memsync(["--store", store, "list", "--limit", ""]);
    assert.equal(limit.code, 4, limit.stderr);
    assert.match(limit.stderr, /--limit must be an integer .* got ""/);
    assert.equal(memsyncJson(["--store", store, "list"]).memories.length, before);
    // numbers still read as numbers
    assert.equal(memsyncJson(["--store", store, "list", "--limit", "01"]).memories.length, 1);
    assert.equal(memsyncJson(["--store", store, "save", "confident", "--confidence", "0.50"]).memory.confidence, 0.5);
    assert.equal(memsyncJson(["--store", store, "search", "odd", "--tag", "007"]).total, 1);
  });

  test("an import that read nothing does not say the store already holds it all", () => {
    const dir = tempDir();
    const store = initStore(path.join(dir, "store"));
    const notBackup = path.join(dir, "memory.jsonl");
    fs.writeFileSync(notBackup, '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}\n');
    const r = memsync(["--store", store, "import", "jsonl", notBackup]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /not a memsync backup, nothing read/);
    assert.doesNotMatch(r.stdout, /already holds/);
    assert.match(r.stdout, /nothing imported: no record of the source could be read/);
    const empty = path.join(dir, "empty.jsonl");
    fs.writeFileSync(empty, "");
    const e = memsync(["--store", store, "import", "cortexgraph", empty]);
    assert.equal(e.code, 0, e.stderr);
    assert.doesNotMatch(e.stdout, /already holds/);
  });

  test("relate names the two memories it related (it printed 'related undefined -related-> undefined')", () => {
    const store = initStore();
    const a = memsyncJson(["--store", store, "save", "We use Redis for session storage"]).memory.id;
    const b = memsyncJson(["--store", store, "save", "Sessions expire after 30 minutes"]).memory.id;
    const r = memsync(["--store", store, "relate", a.slice(-8), b.slice(-8), "--type", "supports"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^related ${a} -supports-> ${b}  \\(relation [0-9a-f-]{36}\\)\n$`));
  });

  test("settings with a key named like an object's own property is refused, not an internal error", () => {
    const store = initStore();
    memsyncJson(["--store", store, "settings", "forget_threshold", "0.05"]); // settle: a write made once (its lock file), the same value
    const before = snapshot(store, skipVolatile);
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const r = memsync(["--store", store, "settings", key, "1"]);
      assert.equal(r.code, 4, `settings ${key} 1 -> ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^memsync: unknown setting "${key}"; the settings are: layout`));
    }
    assert.deepEqual(snapshot(store, skipVolatile), before);
  });

  test("hooks install names every event it installs; hook's help lists them", () => {
    const dir = tempDir();
    git(dir, "init", "-q");
    const r = memsync(["hooks", "install", "--project"], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const settings = JSON.parse(fs.readFileSync(path.join(dir, ".claude", "settings.json"), "utf8"));
    const events = Object.keys(settings.hooks);
    assert.equal(events.length, 7);
    assert.match(r.stdout, new RegExp(`\\(${events.length} events: ${events.join(", ")}\\)`));
    const http = memsync(["hooks", "install", "--project", "--http", "http://127.0.0.1:7457"], { cwd: dir });
    assert.equal(http.code, 0, http.stderr);
    const after = JSON.parse(fs.readFileSync(path.join(dir, ".claude", "settings.json"), "utf8"));
    const posted = events.filter((e) => after.hooks[e][0].hooks[0].type === "http");
    const commands = events.filter((e) => after.hooks[e][0].hooks[0].type === "command");
    assert.match(http.stdout, new RegExp(`\\(${posted.join(", ")} post to http://127.0.0.1:7457`));
    assert.match(http.stdout, new RegExp(`; ${commands.join(" and ")} run memsync`));
    const help = memsync(["hook", "--help"]);
    for (const e of events) assert.match(help.stdout, new RegExp(`\\b${e}\\b`), `hook --help names ${e}`);
  });

  test("a wrong type is named with the right article and number", () => {
    const store = initStore();
    const s = memsync(["--store", store, "save", "--input", "-"], { input: '{"content": "x", "meta": []}' });
    assert.equal(s.code, 4, s.stderr);
    assert.match(s.stderr, /meta must be an object/);
    // "at least 1 character" (not "characters"): tests/core/model.test.ts
  });
});
