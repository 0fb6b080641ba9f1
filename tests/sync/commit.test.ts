import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// memsync commit: history built from the journal of known changes, checked with native git.

const log = (dir: string) => git(dir, "log", "--format=%s").stdout.trim().split("\n");
const save = async (store: string, text: string) => (await memsyncJson(["--store", store, "save", text])).memory.id as string;

describe("memsync commit", () => {
  test("one commit per operation, with plain messages; native git agrees with the files", async () => {
    const s = newStore();
    const a = await save(s, "Use PostgreSQL for the analytics database because of JSONB");
    const b = await save(s, "Redis for session caching");
    const c = await save(s, "Cursor pagination");
    const out = await memsyncJson(["--store", s, "commit"]);
    assert.deepEqual(out.commits.map((x: { message: string }) => x.message), [
      `save: ${a.slice(-8)} Use PostgreSQL for the analytics database because of JSONB`,
      `save: ${b.slice(-8)} Redis for session caching`,
      `save: ${c.slice(-8)} Cursor pagination`,
    ]);
    await memsyncJson(["--store", s, "touch", a, b]);
    await memsyncJson(["--store", s, "touch", c]);
    await memsyncJson(["--store", s, "relate", a, b]);
    await memsyncJson(["--store", s, "relate", c, a]);
    const second = (await memsyncJson(["--store", s, "commit"])).commits;
    // one commit per operation, consecutive touches too (each tree is the store as that touch left it)
    assert.deepEqual(second.map((x: { message: string }) => x.message), ["touch: 2 memories", "touch: 1 memory", `relate: ${a.slice(-8)} related ${b.slice(-8)}`, `relate: ${c.slice(-8)} related ${a.slice(-8)}`]);
    // a multi-file operation is exactly one commit
    const del = await memsyncJson(["--store", s, "delete", a]);
    assert.equal(del.relations_removed.length, 2);
    const third = (await memsyncJson(["--store", s, "commit"])).commits;
    assert.equal(third.length, 1);
    assert.equal(third[0].message, "delete: 1 memory and 2 relations");
    assert.equal(third[0].paths.length, 3);
    assert.equal(log(s)[0], "delete: 1 memory and 2 relations");
    assert.equal(git(s, "fsck", "--strict").status, 0);
    assert.equal(git(s, "status", "--porcelain").stdout, "", "git's index is kept in step: the store is clean to native git");
    const clone = path.join(tempDir(), "clone");
    assert.equal(git(path.dirname(clone), "clone", "-q", s, clone).status, 0);
    for (const id of [b, c]) {
      assert.equal(fs.readFileSync(path.join(clone, "memories", `${id}.json`), "utf8"), fs.readFileSync(path.join(s, "memories", `${id}.json`), "utf8"));
    }
    assert.equal(fs.existsSync(path.join(clone, "memories", `${a}.json`)), false);
    assert.deepEqual((await memsyncJson(["--store", s, "commit"])).commits, [], "nothing left to commit");
  });

  test("a memory file changed by another tool is committed by the next commit", async () => {
    const s = newStore();
    const a = await save(s, "original");
    await memsyncJson(["--store", s, "commit"]);
    const file = path.join(s, "memories", `${a}.json`);
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    m.content = "changed by another tool";
    fs.writeFileSync(`${file}.new`, `${JSON.stringify(m, null, 2)}\n`);
    fs.renameSync(`${file}.new`, file); // the way editors and git write files
    const out = (await memsyncJson(["--store", s, "commit"])).commits;
    assert.equal(out.length, 1);
    assert.equal(out[0].message, "edit: 1 file changed outside memsync");
    assert.equal(git(s, "show", `HEAD:memories/${a}.json`).stdout.includes("changed by another tool"), true);
  });

  test("an edit saved in place (same file, folder mtime unchanged) is committed too", async () => {
    const s = newStore();
    const a = await save(s, "before the editor");
    await memsyncJson(["--store", s, "commit"]);
    await new Promise((r) => setTimeout(r, 2200)); // past every racy window: the index trusts the folder
    await memsyncJson(["--store", s, "list"]);
    const file = path.join(s, "memories", `${a}.json`);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("before the editor", "saved in place by an editor"));
    const out = (await memsyncJson(["--store", s, "commit"])).commits;
    assert.equal(out.length, 1);
    assert.match(git(s, "show", `HEAD:memories/${a}.json`).stdout, /saved in place by an editor/);
  });

  test("after the index is lost, a commit compares every file and misses nothing", async () => {
    const s = newStore();
    const a = await save(s, "before");
    await memsyncJson(["--store", s, "commit"]);
    fs.rmSync(path.join(s, ".memsync/index.db"));
    const file = path.join(s, "memories", `${a}.json`);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("before", "edited while no index existed"));
    const out = await memsyncJson(["--store", s, "commit"]);
    assert.equal(out.full_compare, true);
    assert.deepEqual(out.commits.map((c: { paths: string[] }) => c.paths), [[`memories/${a}.json`]]);
    assert.equal(git(s, "status", "--porcelain").stdout, "");
  });

  test("an index made over empty record folders: its commit still takes what history has and the disk lost, and nothing written since twice", async () => {
    const s = newStore();
    const a = await save(s, "committed, then removed by hand while no index existed");
    await memsyncJson(["--store", s, "commit"]);
    fs.rmSync(path.join(s, ".memsync/index.db"));
    fs.rmSync(path.join(s, "memories", `${a}.json`));
    // the next command makes the index over empty folders (the light rescan), then writes
    const b = await save(s, "written after the new index");
    const journal = fs.readFileSync(path.join(s, ".memsync/journal.jsonl"), "utf8");
    assert.match(journal, /"op":"rescan","message":"index made with no record files"/);
    const out = await memsyncJson(["--store", s, "commit"]);
    assert.equal(out.full_compare, true);
    assert.deepEqual(out.commits.map((c: { paths: string[] }) => c.paths), [[`memories/${b}.json`], [`memories/${a}.json`]], "the save, then the removal found by the compare");
    assert.equal(git(s, "status", "--porcelain").stdout, "");
    assert.equal(git(s, "cat-file", "-e", `HEAD:memories/${a}.json`).status === 0, false);
  });

  test("a native clone of a store is a working store; its first save follows the store's layout", async () => {
    const s = newStore();
    const metaPath = path.join(s, ".meta.json");
    const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
    meta.settings.shard_threshold = 3;
    fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    for (const t of ["one", "two", "three"]) await save(s, t);
    await memsyncJson(["--store", s, "commit"]);
    const clone = path.join(tempDir(), "clone");
    assert.equal(git(path.dirname(clone), "clone", "-q", s, clone).status, 0);
    const out = await memsyncJson(["--store", clone, "save", "first save in the clone"]);
    assert.match(out.path, /^memories\/[0-9a-f]{2}\//, "sharded: the clone already holds the threshold's count");
    assert.equal((await memsyncJson(["--store", clone, "list"])).total, 4);
    const c = await memsyncJson(["--store", clone, "commit"]);
    assert.deepEqual(c.commits.map((x: { paths: string[] }) => x.paths), [[out.path]]);
  });

  test("history says what happened: each operation its own commit, holding the files as it left them", async () => {
    const s = newStore();
    const file = (rev: string, id: string) => JSON.parse(git(s, "show", `${rev}:memories/${id}.json`).stdout);
    // save, touch, update, then one commit: three commits, each with that step's file
    const id = await save(s, "first text");
    await memsyncJson(["--store", s, "touch", id]);
    await memsyncJson(["--store", s, "update", id, "--content", "second text"]);
    assert.deepEqual((await memsyncJson(["--store", s, "commit"])).commits.map((c: { message: string }) => c.message), [
      `save: ${id.slice(-8)} first text`,
      "touch: 1 memory",
      `update: ${id.slice(-8)} second text`,
    ]);
    assert.deepEqual([file("HEAD~2", id).content, file("HEAD~2", id).use_count], ["first text", 0]);
    assert.deepEqual([file("HEAD~1", id).content, file("HEAD~1", id).use_count], ["first text", 1]);
    assert.deepEqual([file("HEAD", id).content, file("HEAD", id).use_count], ["second text", 1]);

    // a touch not yet committed, then consolidate: the sources go in the consolidate commit
    const a = await save(s, "Use cursor pagination for list endpoints in the public API; page size defaults to 50");
    const b = await save(s, "For list endpoints in the public API use cursor pagination, with a default page size of 50");
    await memsyncJson(["--store", s, "commit"]);
    await memsyncJson(["--store", s, "touch", a]);
    const merged = (await memsyncJson(["--store", s, "consolidate", "--apply"])).applied[0];
    assert.deepEqual([...merged.sources].sort(), [a, b].sort());
    const c1 = (await memsyncJson(["--store", s, "commit"])).commits.map((c: { message: string }) => c.message);
    assert.deepEqual(c1, ["touch: 1 memory", `consolidate: merge ${merged.sources.map((x: string) => x.slice(-8)).join(", ")} into ${merged.into.slice(-8)}`]);
    assert.equal(file("HEAD~1", a).use_count, 1, "the touch commit holds the touched source, still there");

    // the same for split
    const whole = await save(s, "Deploys go out on Tuesdays only. The billing worker retries three times.");
    await memsyncJson(["--store", s, "commit"]);
    await memsyncJson(["--store", s, "touch", whole]);
    const parts = (await memsyncJson(["--store", s, "split", whole, "--part", "Deploys go out on Tuesdays only.", "--part", "The billing worker retries three times."])).parts.map((p: { id: string }) => p.id);
    const c2 = (await memsyncJson(["--store", s, "commit"])).commits.map((c: { message: string }) => c.message);
    assert.deepEqual(c2, ["touch: 1 memory", `split: decompose ${whole.slice(-8)} into 2 atomic memories (${parts.map((x: string) => x.slice(-8)).join(", ")})`]);
    assert.equal(file("HEAD~1", whole).use_count, 1);

    // git names the commits that removed memories: consolidate's and split's, nothing else (a
    // part much like the original shows as a rename unless renames are off)
    const removedBy = (...args: string[]) => git(s, "log", "--diff-filter=D", "--format=%s", ...args).stdout.trim().split("\n").map((l) => l.split(":")[0]);
    assert.ok(removedBy("--", "memories/").includes("consolidate"));
    assert.ok(!removedBy("--", "memories/").includes("touch"));
    assert.deepEqual(removedBy("--no-renames", "--", "memories/"), ["split", "consolidate"]);
    assert.equal(git(s, "fsck", "--strict").status, 0);
    assert.equal(git(s, "status", "--porcelain").stdout, "");
  });

  test("a store without git is refused with a clear error", async () => {
    const dir = path.join(tempDir(), "nogit");
    await memsyncJson(["init", dir, "--no-git"]);
    await save(dir, "x");
    const r = await memsync(["--store", dir, "commit"]);
    assert.equal(r.code, 6);
    assert.match(r.stderr, /not a git repository/);
  });
});
