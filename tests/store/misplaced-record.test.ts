import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { isMisplacedRecordPath, lookupPaths } from "../../src/store/layout.ts";
import { binaryThenInProcess, git } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// A record file moved by hand into a shard folder that is not its own (memories/ab/<id ending
// in other digits>.json) is committed and indexed where it is (tests/sync/moved-by-hand): `get`,
// `update` and `delete` by id must find it there too, as search and list already did.

const { memsyncJson, memsync } = binaryThenInProcess();

const pastRacyWindow = () => new Promise((r) => setTimeout(r, 2200));

describe("a record in a shard folder not its own", () => {
  test("only a shard folder of the record's kind, not its own, with the record's own file name, counts", () => {
    const id = "01a21cd9-889d-770d-aeed-317365ebf1f4";
    assert.equal(isMisplacedRecordPath("memory", id, `memories/ab/${id}.json`), true);
    assert.equal(isMisplacedRecordPath("memory", id, `.memsync/local/memories/0c/${id}.json`), true);
    assert.equal(isMisplacedRecordPath("memory", id, `memories/f4/${id}.json`), false, "its own shard");
    assert.equal(isMisplacedRecordPath("memory", id, `memories/${id}.json`), false, "flat");
    assert.equal(isMisplacedRecordPath("memory", id, `relations/ab/${id}.json`), false, "another kind's folder");
    assert.equal(isMisplacedRecordPath("memory", id, `memories/zz/${id}.json`), false, "not a shard folder");
    assert.equal(isMisplacedRecordPath("memory", id, `memories/ab/cd/${id}.json`), false, "deeper");
    assert.equal(isMisplacedRecordPath("memory", id, `memories/ab/${id.replace(/4$/, "5")}.json`), false, "another id's file");
    assert.equal(isMisplacedRecordPath("memory", "../../etc", "memories/ab/x.json"), false, "not an id");
    assert.deepEqual(lookupPaths("memory", id, `memories/ab/${id}.json`).at(-1), `memories/ab/${id}.json`);
    assert.ok(!lookupPaths("memory", id, `memories/../../${id}.json`).some((p) => p.includes("..")), "an odd index path is never looked at");
  });

  test("get, update and delete find it where the index found it; the update stays there and is committed", { timeout: 120_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const id = (await memsyncJson(["--store", a, "save", "the nightly export runs at 02:00 UTC"])).memory.id as string;
    const other = (await memsyncJson(["--store", a, "save", "exports are gzip-compressed CSV files"])).memory.id as string;
    await memsyncJson(["--store", a, "sync"]);

    const wrong = id.slice(-2) === "ab" ? "cd" : "ab";
    const flat = path.join(a, "memories", `${id}.json`);
    const moved = path.join(a, "memories", wrong, `${id}.json`);
    const flatOrShard = fs.existsSync(flat) ? flat : path.join(a, "memories", id.slice(-2), `${id}.json`);
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.renameSync(flatOrShard, moved);
    await memsyncJson(["--store", a, "status"]); // a full look: the index takes the file where it is
    await pastRacyWindow();
    await memsyncJson(["--store", a, "list"]); // and trusts that folder now

    // the binary's first get (a settled index may answer it), then the in-process one (the Store's path)
    for (const run of ["binary", "in-process"]) {
      const got = await memsyncJson(["--store", a, "get", id]);
      assert.equal(got.found.length, 1, `${run}: ${JSON.stringify(got)}`);
      assert.equal(got.found[0].memory.content, "the nightly export runs at 02:00 UTC");
      assert.equal(got.found[0].path, `memories/${wrong}/${id}.json`, run);
    }

    const updated = await memsync(["--store", a, "update", id, "--content", "the nightly export runs at 03:00 UTC"]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(JSON.parse(fs.readFileSync(moved, "utf8")).content, "the nightly export runs at 03:00 UTC", "updated where it is");
    assert.ok(!fs.existsSync(flat) && !fs.existsSync(path.join(a, "memories", id.slice(-2), `${id}.json`)), "no second copy made");
    await memsyncJson(["--store", a, "sync"]);
    assert.match(git(h.bare, "show", `main:memories/${wrong}/${id}.json`).stdout, /03:00 UTC/);
    assert.equal(git(a, "status", "--porcelain").stdout, "");

    const deleted = await memsync(["--store", a, "delete", id]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.ok(!fs.existsSync(moved), "deleted where it was");
    const after = await memsyncJson(["--store", a, "get", other]);
    assert.equal(after.found.length, 1, "the other memory untouched");
    git(a, "fsck", "--strict");
  });
});
