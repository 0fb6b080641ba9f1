import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { checkConnectivityCached } from "../../src/sync/connectivity-cache.ts";
import { git, tempDir } from "../helpers/env.ts";

// status remembers a whole object check while nothing an object lives in has changed: the
// remembered verdict must never hide an object that went away, and is not kept for a state that
// changed within the racy window.

/** A repository with two commits of loose objects. */
function repo(): { dir: string; gitdir: string; local: string } {
  const dir = path.join(tempDir(), "r");
  assert.equal(git(tempDir(), "init", "-q", "-b", "main", dir).status, 0);
  for (const [k, v] of [["a.json", "1"], ["b.json", "2"]]) {
    fs.mkdirSync(path.join(dir, "memories"), { recursive: true });
    fs.writeFileSync(path.join(dir, "memories", k!), `${v}\n`);
    git(dir, "add", ".");
    assert.equal(git(dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", k!).status, 0);
  }
  const gitdir = path.join(dir, ".git");
  const local = path.join(dir, ".memsync");
  fs.mkdirSync(local);
  return { dir, gitdir, local };
}

/** A clock this far past now: every time in the repository is then outside the racy window. */
const later = (ms: number) => () => Date.now() + ms;

describe("the remembered object check", () => {
  test("a whole verdict is remembered, and an object deleted afterwards is still found missing", async () => {
    const { dir, gitdir, local } = repo();
    const first = await checkConnectivityCached(gitdir, local, later(5000));
    assert.deepEqual(first.missing, []);
    assert.ok(first.trees >= 2 && first.blobs >= 2);
    assert.ok(fs.existsSync(path.join(local, "objects-checked.json")), "remembered");
    // while nothing changed, the saved verdict is what the check gives (marked here to tell it from a walk)
    const saved = path.join(local, "objects-checked.json");
    const kept = JSON.parse(fs.readFileSync(saved, "utf8"));
    fs.writeFileSync(saved, JSON.stringify({ ...kept, result: { ...kept.result, trees: 12345 } }));
    assert.equal((await checkConnectivityCached(gitdir, local, later(5000))).trees, 12345);

    const tree = git(dir, "rev-parse", "HEAD:memories").stdout.trim();
    fs.rmSync(path.join(gitdir, "objects", tree.slice(0, 2), tree.slice(2)), { force: true });
    const after = await checkConnectivityCached(gitdir, local, later(5000));
    assert.ok(after.missing.some((m) => m.oid === tree), JSON.stringify(after.missing));
    // a degraded verdict is not remembered: the next check walks again
    assert.ok((await checkConnectivityCached(gitdir, local, later(5000))).missing.some((m) => m.oid === tree), "a degraded verdict is never remembered");
  });

  test("a pack file removed means a new walk", async () => {
    const { dir, gitdir, local } = repo();
    assert.equal(git(dir, "repack", "-adq").status, 0);
    const whole = await checkConnectivityCached(gitdir, local, later(5000));
    assert.ok(fs.existsSync(path.join(local, "objects-checked.json")), "remembered");
    assert.deepEqual(whole.missing, []);
    const pack = fs.readdirSync(path.join(gitdir, "objects", "pack")).find((p) => p.endsWith(".pack"))!;
    fs.rmSync(path.join(gitdir, "objects", "pack", pack));
    const gone = await checkConnectivityCached(gitdir, local, later(5000));
    assert.ok(gone.missing.length > 0 || gone.broken_packs.length > 0, "the pack's loss is seen");
  });

  test("a state changed within the racy window is not remembered", async () => {
    const { gitdir, local } = repo();
    // a clock at the moment the newest object folder changed: inside the window
    const objects = path.join(gitdir, "objects");
    const newest = Math.max(...fs.readdirSync(objects).map((n) => fs.statSync(path.join(objects, n)).mtimeMs));
    assert.deepEqual((await checkConnectivityCached(gitdir, local, () => newest)).missing, []);
    assert.equal(fs.existsSync(path.join(local, "objects-checked.json")), false);
  });
});
