import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

const sync = async (dir: string) => await memsyncJson(["--store", dir, "sync"]);
const save = async (dir: string, text: string) => (await memsyncJson(["--store", dir, "save", text])).memory.id as string;
const pastRacyWindow = () => new Promise((r) => setTimeout(r, 2200));

// A record file moved by hand into a shard folder the index did not know yet: the refresh saw
// its old path gone (journaled) and indexed the new one silently, so the next commit took the
// deletion alone, the push removed the memory from the remote and every other machine's pull
// deleted it. A file the index lacks in a new shard under a known top folder is an edit made
// outside memsync, like one in a known folder.

describe("records moved or added by hand in a shard folder new to the index", () => {
  test("a memory moved into a new shard folder is committed at its new path and reaches another machine", { timeout: 120_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const kept = await save(a, "the billing service stores money as integer cents");
    const moved = await save(a, "deploys go out on weekdays before 3pm only");
    await sync(a);
    await pastRacyWindow();
    await memsyncJson(["--store", a, "list"]); // the index trusts its folders now

    const shard = path.join(a, "memories", moved.slice(-2));
    fs.mkdirSync(shard);
    fs.renameSync(path.join(a, "memories", `${moved}.json`), path.join(shard, `${moved}.json`));
    await sync(a);

    const tracked = git(a, "ls-files", "memories").stdout.trim().split("\n").sort();
    assert.deepEqual(tracked, [`memories/${kept}.json`, `memories/${moved.slice(-2)}/${moved}.json`].sort());
    assert.equal(git(a, "status", "--porcelain").stdout, "", "nothing left untracked");
    assert.match(git(h.bare, "ls-tree", "-r", "--name-only", "main").stdout, new RegExp(`memories/${moved.slice(-2)}/${moved}\\.json`));

    const b = path.join(h.root, "b");
    assert.equal((await memsync(["clone", h.bare, b])).code, 0);
    const got = await memsyncJson(["--store", b, "get", moved]);
    assert.equal(got.found[0].memory.content, "deploys go out on weekdays before 3pm only");
    git(b, "fsck", "--strict");
  });

  test("a record file written by hand into a new shard folder is committed", { timeout: 120_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const id = await save(a, "the queue consumer retries three times with jitter");
    await sync(a);
    await pastRacyWindow();
    await memsyncJson(["--store", a, "list"]);

    // a copy of the record under another id (its shard: the last two hex digits), as a person or another tool would add one
    const other = `${id.slice(0, -4)}ffff` === id ? `${id.slice(0, -4)}eeee` : `${id.slice(0, -4)}ffff`;
    const rec = JSON.parse(fs.readFileSync(path.join(a, "memories", `${id}.json`), "utf8"));
    rec.id = other;
    rec.content = "a note added by hand in a new shard folder";
    const shard = path.join(a, "memories", other.slice(-2));
    fs.mkdirSync(shard, { recursive: true });
    fs.writeFileSync(path.join(shard, `${other}.json`), `${JSON.stringify(rec, null, 2)}\n`);
    await sync(a);

    assert.match(git(h.bare, "ls-tree", "-r", "--name-only", "main").stdout, new RegExp(`${other}\\.json`));
    assert.equal(git(a, "status", "--porcelain").stdout, "", "nothing left untracked");
  });
});
