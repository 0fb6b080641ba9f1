import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsyncAsync, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// `pull --json`'s commits_in is the number of commits the pull brought into the branch, the same
// over a remote on a local path (where objects are copied one by one) and over smart HTTP
// (native `git http-backend`): checked against `git rev-list --count` in the pulling store.

async function ok(args: string[]): Promise<string> {
  const r = await memsyncAsync(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/**
 * Two stores on one hub (`url`), in step; then for each n: `a` makes n commits (one save each:
 * each save is committed on its own) and pushes, `b` pulls.
 */
async function commitsInAfter(root: string, url: string, counts: number[]): Promise<void> {
  const a = path.join(root, "a");
  const b = path.join(root, "b");
  for (const dir of [a, b]) {
    await ok(["init", dir]);
    await ok(["--store", dir, "remote", "set", url, "--insecure-http"]);
  }
  await ok(["--store", a, "save", "the first memory, so the hub has a branch"]);
  await ok(["--store", a, "sync"]);
  await ok(["--store", b, "sync"]);
  await ok(["--store", a, "sync"]); // (b's first sync merged its own first commit: a takes it)
  for (const n of counts) {
    const before = git(b, "rev-parse", "HEAD").stdout.trim();
    for (let i = 0; i < n; i++) await ok(["--store", a, "save", `memory ${i} of ${n}`]);
    await ok(["--store", a, "push"]);
    const pulled = JSON.parse(await ok(["--store", b, "pull", "--json"])).pull;
    const brought = Number(git(b, "rev-list", "--count", `${before}..HEAD`).stdout.trim());
    assert.equal(brought, n, "the pushing store made exactly this many commits");
    assert.equal(pulled.mode, "fast-forward");
    assert.equal(pulled.commits_in, n, `a pull of ${n} commit(s) over ${url}`);
    assert.equal(pulled.memories_added, n);
  }
  // nothing new: up to date, nothing brought in
  const again = JSON.parse(await ok(["--store", b, "pull", "--json"])).pull;
  assert.equal(again.mode, "up-to-date");
  assert.equal(again.commits_in, 0);
}

describe("pull --json: commits_in", () => {
  test("counts commits, not objects, on a remote on a local path (1 commit, then 3)", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    await commitsInAfter(root, path.join(root, "hub.git"), [1, 3]);
  });

  test("counts the same commits over smart HTTP (1 commit, then 3)", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(root);
    try {
      await commitsInAfter(root, server.url("hub.git"), [1, 3]);
    } finally {
      await server.close();
    }
  });

  test("a merge counts only the remote's side", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const hub = path.join(root, "hub.git");
    const a = path.join(root, "a");
    const b = path.join(root, "b");
    for (const dir of [a, b]) {
      await ok(["init", dir]);
      await ok(["--store", dir, "remote", "set", hub]);
    }
    await ok(["--store", a, "save", "shared start"]);
    await ok(["--store", a, "sync"]);
    await ok(["--store", b, "sync"]);
    await ok(["--store", a, "sync"]);
    const before = git(b, "rev-parse", "HEAD").stdout.trim();
    for (let i = 0; i < 2; i++) await ok(["--store", a, "save", `a's memory ${i}`]);
    await ok(["--store", a, "push"]);
    await ok(["--store", b, "save", "b's own memory"]);
    const pulled = JSON.parse(await ok(["--store", b, "pull", "--json"])).pull;
    assert.equal(pulled.mode, "merge");
    assert.equal(pulled.commits_in, 2);
    // the merge's second parent brought a's two commits; b's own commit is not counted
    assert.equal(Number(git(b, "rev-list", "--count", `${before}..HEAD^2`).stdout.trim()), 2);
  });
});
