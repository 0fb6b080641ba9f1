import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncAsync, memsyncJson, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// What an HTTP sync sends and receives must be what is new, never the whole history: a fetch
// while local commits are unpushed, and the push of a merge, once each carried every object of
// the history (isomorphic-git named only the unpushed local branch as "have", and its push walked
// from the merge to the root), so a sync's cost grew with the history until, in the chaos suite,
// one ran past its 300 s. Counted exactly: the objects in the pack each side received against
// `git rev-list --objects new ^old`.

/** Packs in a folder (names). */
const packs = (gitdir: string) => new Set(fs.readdirSync(path.join(gitdir, "objects/pack")).filter((n) => n.endsWith(".idx")));

/** Objects in the packs that appeared since `before` (git show-index reads an .idx on stdin). */
function objectsInNewPacks(gitdir: string, before: Set<string>): number {
  let n = 0;
  for (const idx of packs(gitdir)) {
    if (before.has(idx)) continue;
    const r = spawnSync("git", ["show-index"], { input: fs.readFileSync(path.join(gitdir, "objects/pack", idx)), encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    n += r.stdout.trim().split("\n").filter(Boolean).length;
  }
  return n;
}

const newObjects = (dir: string, tip: string, old: string) => git(dir, "rev-list", "--objects", tip, `^${old}`).stdout.trim().split("\n").filter(Boolean).length;

describe("HTTP sync transfers only what is new", () => {
  test("a fetch with unpushed local commits, and the push of a merge, carry the new objects only", async () => {
    const root = tempDir();
    const hub = path.join(root, "hub.git");
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    // every push the hub receives stays a pack of its own, so it can be counted
    assert.equal(git(hub, "config", "receive.unpackLimit", "1").status, 0);
    assert.equal(git(hub, "config", "gc.auto", "0").status, 0);
    const server = await startGitHttpServer(root);
    try {
      const a = path.join(root, "a");
      assert.equal(memsync(["init", a]).code, 0);
      assert.equal(memsync(["--store", a, "remote", "set", server.url("hub.git"), "--insecure-http"]).code, 0);
      // a history where old versions of files outnumber the current ones
      const ids = [0, 1, 2, 3, 4, 5].map((i) => memsyncJson(["--store", a, "save", `memory ${i} with a history of uses`]).memory.id as string);
      for (let round = 0; round < 4; round++) {
        assert.equal(memsync(["--store", a, "touch", ...ids]).code, 0);
        assert.equal(memsync(["--store", a, "commit"]).code, 0);
      }
      assert.equal((await memsyncAsync(["--store", a, "sync"])).code, 0);
      const b = path.join(root, "b");
      const cloned = await memsyncAsync(["clone", server.url("hub.git"), b, "--insecure-http"]);
      assert.equal(cloned.code, 0, cloned.stderr);
      // b: a local commit the hub has not got; a: the hub moves on
      memsyncJson(["--store", b, "save", "made on b, not pushed yet"]);
      assert.equal(memsync(["--store", b, "commit"]).code, 0);
      assert.equal(memsync(["--store", a, "touch", ids[0]!]).code, 0);
      assert.equal((await memsyncAsync(["--store", a, "sync"])).code, 0);

      const bGit = path.join(b, ".git");
      const tracked = git(b, "rev-parse", "refs/remotes/origin/main").stdout.trim();
      const hubBefore = git(hub, "rev-parse", "main").stdout.trim();
      const bPacks = packs(bGit);
      const hubPacks = packs(hub);
      const synced = await memsyncAsync(["--store", b, "sync", "--json"]);
      assert.equal(synced.code, 0, synced.stderr);
      assert.equal(JSON.parse(synced.stdout).pull.mode, "merge");

      // the fetch: exactly what the hub had that b's last fetch had not brought
      const fetched = objectsInNewPacks(bGit, bPacks);
      assert.equal(fetched, newObjects(b, hubBefore, tracked), "objects fetched");
      // the push: exactly what b had that the hub had not (b's commit, the merge, their trees and blobs)
      const head = git(b, "rev-parse", "main").stdout.trim();
      assert.equal(git(hub, "rev-parse", "main").stdout.trim(), head);
      const pushed = objectsInNewPacks(hub, hubPacks);
      assert.equal(pushed, newObjects(b, head, hubBefore), "objects pushed");
      assert.equal(git(hub, "fsck", "--strict", "--no-dangling").status, 0);
    } finally {
      await server.close();
    }
  });
});
