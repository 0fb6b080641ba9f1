import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { getSettled } from "../../src/ops/get-settled.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { trusted } from "../../src/store/racy.ts";
import { filesUnder, git, memsync, tempDir } from "../helpers/env.ts";
import { relatedPair } from "../helpers/related-pair.ts";

// A store copied with cp -a (or a backup restored with its times) has every record file at a new
// inode with its old mtime and size. The first status of the copy compares those files' bytes with
// the index and moves their rows to the new inodes (refresh.ts Plan.moved): it must not re-index
// the copy and journal every file as an edit made outside memsync (a 16.5 MB journal entry at 10k,
// "uncommitted changes" one more), and a copied file whose bytes differ is still such an edit.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const envOf = (store: string) => {
  const dir = tempDir("memsync-copied-status-");
  return opsEnvOf({ store, vars: {}, cwd: dir, home: dir, hostName: "host", user: "tester" });
};

const under = (store: string, top: string) => filesUnder(path.join(store, top)).map((f) => (path.isAbsolute(f) ? f : path.join(store, top, f)));

async function pastRacyWindow(store: string) {
  const paths = ["memories", "relations"].flatMap((top) => [path.join(store, top), ...under(store, top)]);
  while (!paths.every((p) => trusted(Math.floor(fs.statSync(p).mtimeMs), Date.now()))) await sleep(20);
}

const status = (store: string) => {
  const r = memsync(["--store", store, "status", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { uncommitted_changes: number };
};

/** A settled store copied with cp -a, and its uncommitted changes before the copy. */
async function copied() {
  const pair = relatedPair();
  await pastRacyWindow(pair.store);
  const pending = status(pair.store).uncommitted_changes;
  assert.equal(status(pair.store).uncommitted_changes, pending, "the original is settled: a second status finds nothing");
  const copy = path.join(tempDir("memsync-copy-"), "store");
  const cp = spawnSync("cp", ["-a", pair.store, copy], { encoding: "utf8" });
  assert.equal(cp.status, 0, cp.stderr);
  return { ...pair, copy, pending };
}

describe("status of a copied store", () => {
  test("moves the rows to the new inodes: nothing journaled, and a get after it takes the settled read", async () => {
    const { a, copy, pending } = await copied();
    assert.equal(getSettled(envOf(copy), [a]), null, "the copy's rows hold the original's inodes (the premise)");
    assert.equal(status(copy).uncommitted_changes, pending, "no file of the copy journaled as an outside edit");
    assert.equal(status(copy).uncommitted_changes, pending);
    assert.ok(getSettled(envOf(copy), [a]), "the rows hold the copy's inodes");
    const got = JSON.parse(memsync(["--store", copy, "get", a, "--json"]).stdout);
    assert.ok(JSON.stringify(got).includes("Use cursor pagination for list endpoints"));
    // the copy commits what the original would: its pending saves, every record file in git after
    assert.equal(memsync(["--store", copy, "commit"]).code, 0);
    assert.equal(status(copy).uncommitted_changes, 0);
    assert.equal(git(copy, "status", "--porcelain").stdout.trim(), "", "nothing left uncommitted in the working tree");
  });

  test("a copied file whose bytes differ (same size, mtime put back) is still an outside edit", async () => {
    const { a, copy, pending } = await copied();
    const file = under(copy, "memories").find((f) => f.endsWith(`${a}.json`))!;
    const before = fs.statSync(file);
    const text = fs.readFileSync(file, "utf8");
    const edited = text.replace("cursor pagination", "keyset pagination");
    assert.equal(edited.length, text.length);
    fs.writeFileSync(file, edited);
    fs.utimesSync(file, before.atime, before.mtime);
    assert.equal(status(copy).uncommitted_changes, pending + 1, "the edit is journaled");
    const got = JSON.parse(memsync(["--store", copy, "get", a, "--json"]).stdout);
    assert.ok(JSON.stringify(got).includes("Use keyset pagination for list endpoints"), "and indexed");
  });
});
