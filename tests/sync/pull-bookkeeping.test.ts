import assert from "node:assert/strict";
import { Database } from "bun:sqlite";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsyncAsync, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// What a pull reports and records. `pull --json`'s commits_in is the number of commits the pull
// brought into the branch, the same over a remote on a local path (where objects are copied one
// by one) and over smart HTTP (native `git http-backend`): checked against `git rev-list --count`
// in the pulling store. And the pull takes the files its checkout wrote into the index itself
// (absorb), looking only at the folders it wrote into: checked in the pulling store's index right
// after the pull, before any other command could refresh it; shard folders the index did not know
// yet are recorded with their files (through their top folder).

async function ok(args: string[]): Promise<string> {
  const r = await memsyncAsync(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A bare hub and the paths of two stores beside it (not made yet). */
function hubAndTwoStores(): { root: string; hub: string; a: string; b: string } {
  const root = tempDir();
  assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
  return { root, hub: path.join(root, "hub.git"), a: path.join(root, "a"), b: path.join(root, "b") };
}

/**
 * Two stores on one hub (`url`), in step; then for each n: `a` makes n commits (one save each:
 * each save is committed on its own) and pushes, `b` pulls.
 */
async function commitsInAfter(a: string, b: string, url: string, counts: number[]): Promise<void> {
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
    const { hub, a, b } = hubAndTwoStores();
    await commitsInAfter(a, b, hub, [1, 3]);
  });

  test("counts the same commits over smart HTTP (1 commit, then 3)", async () => {
    const { root, a, b } = hubAndTwoStores();
    const server = await startGitHttpServer(root);
    try {
      await commitsInAfter(a, b, server.url("hub.git"), [1, 3]);
    } finally {
      await server.close();
    }
  });

  test("a merge counts only the remote's side", async () => {
    const { hub, a, b } = hubAndTwoStores();
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

describe("pull: absorb of the checkout's folders", () => {
  test("files written into shard folders new to the index are indexed by the pull itself", async () => {
    const { root, hub, a, b } = hubAndTwoStores();
    await ok(["init", a]);
    // every new record sharded (memories/<xx>/<id>.json): the threshold is in the shared settings
    const metaPath = path.join(a, ".meta.json");
    const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
    meta.settings.shard_threshold = 1;
    fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    assert.equal(git(a, "commit", "-qam", "shard every record").status, 0);
    await ok(["--store", a, "remote", "set", hub]);
    await ok(["--store", a, "save", "the first record"]);
    await ok(["--store", a, "sync"]);
    assert.equal(git(root, "clone", "-q", hub, b).status, 0);
    await ok(["--store", b, "status"]); // b's index, over what the clone holds
    await ok(["--store", b, "remote", "set", hub]);

    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(JSON.parse(await ok(["--store", a, "save", `pulled record ${i}`, "--json"])).memory.id);
    await ok(["--store", a, "sync"]);
    const written = ids.map((id) => `memories/${id.slice(-2)}/${id}.json`);
    for (const p of written) assert.ok(fs.existsSync(path.join(a, p)), `${p} is sharded in a`);
    const index = () => new Database(path.join(b, ".memsync/index.db"), { readonly: true });
    const before = index();
    const knownBefore = new Set((before.query("SELECT path FROM dirs").all() as { path: string }[]).map((r) => r.path));
    before.close();
    const newShards = [...new Set(written.map((p) => path.dirname(p)))].filter((d) => !knownBefore.has(d));
    assert.ok(newShards.length > 0, "the pull writes into at least one shard folder b's index does not know");

    const pulled = JSON.parse(await ok(["--store", b, "pull", "--json"])).pull;
    assert.equal(pulled.memories_added, 4);
    const after = index();
    const files = new Map((after.query("SELECT path, ino FROM files").all() as { path: string; ino: number }[]).map((r) => [r.path, r.ino]));
    const dirs = new Set((after.query("SELECT path FROM dirs").all() as { path: string }[]).map((r) => r.path));
    const memories = new Set((after.query("SELECT id FROM memories").all() as { id: string }[]).map((r) => r.id));
    after.close();
    for (const p of written) assert.equal(files.get(p), fs.statSync(path.join(b, p)).ino, `${p} indexed by the pull, as it is on disk`);
    for (const id of ids) assert.ok(memories.has(id), `memory ${id} in the index after the pull`);
    for (const d of newShards) assert.ok(dirs.has(d), `shard folder ${d} recorded by the pull`);

  });
});
