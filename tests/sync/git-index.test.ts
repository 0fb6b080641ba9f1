import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { unmergedIndexPaths, updateGitIndex } from "../../src/sync/git-index.ts";
import { writeLooseObject } from "../../src/sync/loose-objects.ts";
import { git, tempDir } from "../helpers/env.ts";

// git's index as memsync updates it (src/sync/git-index.ts), read back by native git.

function repo(): { dir: string; gitdir: string } {
  const dir = path.join(tempDir(), "r");
  assert.equal(git(tempDir(), "init", "-q", dir).status, 0);
  for (const f of ["a.json", "b.json", "m/c.json"]) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), `${f}\n`);
  }
  assert.equal(git(dir, "add", "-A").status, 0);
  assert.equal(git(dir, "commit", "-qm", "one").status, 0);
  return { dir, gitdir: path.join(dir, ".git") };
}

async function put(r: { dir: string; gitdir: string }, rel: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(r.dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(r.dir, rel), text);
  return { oid: await writeLooseObject(r.gitdir, "blob", new TextEncoder().encode(text)), size: Buffer.byteLength(text) };
}

const staged = (dir: string) => git(dir, "ls-files", "-s").stdout;

describe("git's index, updated by memsync", () => {
  test("entries set and removed in one atomic replacement; native git reads it and sees the files clean", async () => {
    const r = repo();
    const b = await put(r, "b.json", "b changed\n");
    const d = await put(r, "m/d.json", "new\n");
    fs.rmSync(path.join(r.dir, "a.json"));
    await updateGitIndex(r.gitdir, new Map([["b.json", b], ["m/d.json", d], ["a.json", null]]));
    assert.deepEqual(git(r.dir, "ls-files").stdout.trim().split("\n"), ["b.json", "m/c.json", "m/d.json"]);
    assert.match(staged(r.dir), new RegExp(`100644 ${d.oid} 0\tm/d.json`));
    assert.equal(git(r.dir, "diff", "--quiet").status, 0, "the files equal the index");
    assert.deepEqual(fs.readdirSync(r.gitdir).filter((n) => n.startsWith("memsync-") || n === "index.lock"), [], "no lock or temp left");
  });

  test("a version 3 index (an intent-to-add entry) keeps its entries; a missing index is created", async () => {
    const r = repo();
    fs.writeFileSync(path.join(r.dir, "later.json"), "later\n");
    assert.equal(git(r.dir, "add", "-N", "later.json").status, 0);
    assert.equal(fs.readFileSync(path.join(r.gitdir, "index")).readUInt32BE(4), 3);
    const e = await put(r, "e.json", "e\n");
    await updateGitIndex(r.gitdir, new Map([["e.json", e]]));
    assert.deepEqual(git(r.dir, "ls-files").stdout.trim().split("\n"), ["a.json", "b.json", "e.json", "later.json", "m/c.json"]);
    assert.match(git(r.dir, "status", "--porcelain").stdout, /^ A later.json$/m, "still intent-to-add");
    fs.rmSync(path.join(r.gitdir, "index"));
    await updateGitIndex(r.gitdir, new Map([["e.json", e]]));
    assert.equal(staged(r.dir), `100644 ${e.oid} 0\te.json\n`);
  });

  test("a lock left by a killed memsync is taken over; git's own lock is waited for, then refused with what to do", async () => {
    const r = repo();
    const e = await put(r, "e.json", "e\n");
    // what a kill between taking the lock and renaming it leaves: index.lock, and memsync's temp sharing its inode
    const tmp = path.join(r.gitdir, "memsync-index-999-x.tmp");
    fs.copyFileSync(path.join(r.gitdir, "index"), tmp);
    fs.linkSync(tmp, path.join(r.gitdir, "index.lock"));
    await updateGitIndex(r.gitdir, new Map([["e.json", e]]));
    assert.match(staged(r.dir), /\te\.json$/m);
    assert.equal(fs.existsSync(path.join(r.gitdir, "index.lock")), false);
    assert.equal(fs.existsSync(tmp), false);
    // a lock of git's: not ours to remove
    fs.writeFileSync(path.join(r.gitdir, "index.lock"), "");
    const before = fs.readFileSync(path.join(r.gitdir, "index"));
    const f = await put(r, "f.json", "f\n");
    await assert.rejects(updateGitIndex(r.gitdir, new Map([["f.json", f]]), 200), (err: Error & { code?: string }) => err.code === "unavailable" && /index is locked/.test(err.message));
    assert.deepEqual(fs.readFileSync(path.join(r.gitdir, "index")), before);
    assert.equal(fs.existsSync(path.join(r.gitdir, "index.lock")), true);
    // released within the wait: taken then
    setTimeout(() => fs.rmSync(path.join(r.gitdir, "index.lock")), 100);
    await updateGitIndex(r.gitdir, new Map([["f.json", f]]), 2_000);
    assert.match(staged(r.dir), /\tf\.json$/m);
  });

  test("unresolved conflicts are found; a version 4 index is refused, not rewritten", async () => {
    const r = repo();
    assert.equal(git(r.dir, "checkout", "-qb", "side").status, 0);
    fs.writeFileSync(path.join(r.dir, "a.json"), "side\n");
    assert.equal(git(r.dir, "commit", "-qam", "side").status, 0);
    assert.equal(git(r.dir, "checkout", "-q", "-").status, 0);
    fs.writeFileSync(path.join(r.dir, "a.json"), "main\n");
    assert.equal(git(r.dir, "commit", "-qam", "main").status, 0);
    assert.notEqual(git(r.dir, "merge", "side").status, 0);
    assert.deepEqual(unmergedIndexPaths(r.gitdir), ["a.json"]);
    assert.equal(git(r.dir, "merge", "--abort").status, 0);
    assert.deepEqual(unmergedIndexPaths(r.gitdir), []);
    assert.equal(git(r.dir, "update-index", "--index-version", "4").status, 0);
    const before = fs.readFileSync(path.join(r.gitdir, "index"));
    const e = await put(r, "e.json", "e\n");
    await assert.rejects(updateGitIndex(r.gitdir, new Map([["e.json", e]])), /index-version 2/);
    assert.deepEqual(fs.readFileSync(path.join(r.gitdir, "index")), before);
  });
});
