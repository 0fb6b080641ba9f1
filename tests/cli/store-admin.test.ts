import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// init, status, reindex, help: the store as a whole.


describe("init", () => {
  test("makes a git working tree with .meta.json, .gitattributes and .gitignore that native git accepts", async () => {
    const dir = path.join(tempDir(), "s");
    const out = await memsyncJson(["init", dir]);
    assert.equal(out.already_initialized, false);
    assert.deepEqual(out.created.sort(), [".gitattributes", ".gitignore", ".meta.json"]);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, ".meta.json"), "utf8"));
    assert.equal(meta.storage_version, 2);
    assert.deepEqual(Object.keys(meta).slice(0, 6), ["storage_version", "created_at", "machine_id", "last_gc_at", "last_consolidation_at", "migrated_from"]);
    assert.match(fs.readFileSync(path.join(dir, ".gitattributes"), "utf8"), /memories\/\*\* merge=memsync/);
    assert.match(fs.readFileSync(path.join(dir, ".gitignore"), "utf8"), /^\.memsync\/$/m);
    assert.equal(git(dir, "fsck", "--strict").status, 0);
    const log = git(dir, "log", "--format=%s", "--name-only");
    assert.match(log.stdout, /^init: memsync store/);
    assert.match(log.stdout, /\.meta\.json/);
    const clone = path.join(tempDir(), "clone");
    assert.equal(spawnSync("git", ["clone", "-q", dir, clone]).status, 0);
    assert.ok(fs.existsSync(path.join(clone, ".meta.json")));
    // machine-local state is ignored by git
    await memsyncJson(["--store", dir, "save", "hello"]);
    assert.equal(git(dir, "check-ignore", "-q", ".memsync/index.db").status, 0);
    assert.doesNotMatch(git(dir, "status", "--porcelain").stdout, /\.memsync/);
  });

  test("is safe to run again and leaves an existing store as it is", async () => {
    const dir = newStore();
    const id = (await memsyncJson(["--store", dir, "save", "keep me"])).memory.id;
    const meta = fs.readFileSync(path.join(dir, ".meta.json"));
    const again = await memsyncJson(["init", dir]);
    assert.equal(again.already_initialized, true);
    assert.deepEqual(again.created, []);
    assert.deepEqual(fs.readFileSync(path.join(dir, ".meta.json")), meta);
    assert.equal((await memsyncJson(["--store", dir, "get", id])).found.length, 1);
  });

  test("--no-git makes a store without a repository; a file in the way is refused", async () => {
    const dir = path.join(tempDir(), "plain");
    await memsyncJson(["init", dir, "--no-git"]);
    assert.equal(fs.existsSync(path.join(dir, ".git")), false);
    assert.equal((await memsyncJson(["--store", dir, "save", "works"])).memory.content, "works");
    const file = path.join(tempDir(), "file");
    fs.writeFileSync(file, "x");
    assert.equal((await memsync(["init", file])).code, 4);
  });
});

describe("status and reindex", () => {
  test("status counts memories by status and type and says healthy", async () => {
    const store = newStore();
    const a = (await memsyncJson(["--store", store, "save", "a", "--type", "decision"])).memory.id;
    const b = (await memsyncJson(["--store", store, "save", "b"])).memory.id;
    await memsyncJson(["--store", store, "save", "c"]);
    await memsyncJson(["--store", store, "relate", a, b]);
    await memsyncJson(["--store", store, "archive", b]);
    const s = await memsyncJson(["--store", store, "status"]);
    assert.equal(s.health, "healthy");
    assert.deepEqual(s.reasons, []);
    assert.deepEqual(s.memories, { total: 3, by_status: { active: 2, archived: 1 }, by_type: { decision: 1, fact: 2 } });
    assert.equal(s.relations.total, 1);
    assert.equal(s.layout.new_records_sharded, false);
    const human = await memsync(["--store", store, "status"]);
    assert.match(human.stdout, /health: healthy/);
  });

  test("an edit made in place behind memsync's back: get sees it at once, search after a full refresh (status)", async () => {
    const store = newStore();
    const id = (await memsyncJson(["--store", store, "save", "original words"])).memory.id;
    // past the racy window, the index trusts the folder and the file as they are
    await new Promise((r) => setTimeout(r, 2300));
    assert.equal((await memsyncJson(["--store", store, "search", "original"])).total, 1);
    const file = path.join(store, "memories", `${id}.json`);
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    m.content = "edited by hand in an editor";
    fs.writeFileSync(file, `${JSON.stringify(m, null, 2)}\n`); // in place: same inode, folder mtime unchanged
    assert.equal((await memsyncJson(["--store", store, "get", id])).found[0].memory.content, "edited by hand in an editor", "get checks the file itself");
    await memsyncJson(["--store", store, "status"]);
    assert.equal((await memsyncJson(["--store", store, "search", "editor"])).total, 1);
    assert.equal((await memsyncJson(["--store", store, "search", "original"])).total, 0);
  });

  test("reindex rebuilds the derived index from the files", async () => {
    const store = newStore();
    for (let i = 0; i < 5; i++) await memsyncJson(["--store", store, "save", `note ${i} about kafka`]);
    const before = await memsyncJson(["--store", store, "search", "kafka"]);
    fs.rmSync(path.join(store, ".memsync/index.db"));
    const r = await memsyncJson(["--store", store, "reindex"]);
    assert.equal(r.memories, 5);
    const after = await memsyncJson(["--store", store, "search", "kafka"]);
    assert.deepEqual(after.hits.map((h: any) => h.memory.id).sort(), before.hits.map((h: any) => h.memory.id).sort());
  });
});

describe("help and version", () => {
  test("--help works for every command and lists exit codes", async () => {
    const top = await memsync(["--help"]);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /Exit codes/);
    const commands = ["init", "save", "remember", "capture", "get", "open", "update", "touch", "archive", "delete", "relate", "unrelate", "list", "search", "status", "reindex"];
    for (const c of commands) {
      const r = await memsync([c, "--help"]);
      assert.equal(r.code, 0, c);
      assert.match(r.stdout, /Usage:/, c);
    }
    assert.match((await memsync(["--version"])).stdout, /^memsync \d+\.\d+\.\d+, bun \d/);
    assert.equal((await memsync([])).code, 2);
  });
});
