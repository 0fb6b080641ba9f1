import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { commitsOnlyFrom } from "../../src/sync/http-push.ts";
import { readObjectFrom, referencesOf } from "../../src/sync/objects.ts";
import { copyObjects, objectsOnlyFrom } from "../../src/sync/push-objects.ts";
import { git, tempDir } from "../helpers/env.ts";

// What a push sends (src/sync/push-objects.ts): each new commit's trees compared with its parents'
// path by path. Checked against native git's `rev-list --objects new ^old` and by `git fsck` of
// the remote the objects were copied into.

function write(dir: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

function commitAll(dir: string, message: string): string {
  assert.equal(git(dir, "add", "-A").status, 0);
  assert.equal(git(dir, "commit", "-qm", message).status, 0);
  return git(dir, "rev-parse", "HEAD").stdout.trim();
}

/** A working repository with sharded folders, pushed to a bare remote; then local commits: edits, a new folder, a removal, and a merge of a side branch. */
function scenario(): { dir: string; gitdir: string; remote: string; old: string; tip: string } {
  const root = tempDir();
  const dir = path.join(root, "w");
  assert.equal(git(root, "init", "-q", "-b", "main", dir).status, 0);
  for (let i = 0; i < 60; i++) write(dir, `memories/${(i % 6).toString(16).padStart(2, "0")}/m${i}.json`, `{"n":${i}}\n`);
  write(dir, ".meta.json", "{}\n");
  // names whose order in a tree is git's, not a plain string order ("x.json" before the folder "x")
  write(dir, "x/in.json", "in\n");
  write(dir, "x.json", "x\n");
  write(dir, "x0.json", "x0\n");
  const old = commitAll(dir, "base");
  const remote = path.join(root, "hub.git");
  assert.equal(git(root, "clone", "-q", "--bare", dir, remote).status, 0);
  write(dir, "memories/02/m2.json", `{"n":"two"}\n`);
  write(dir, "x/in.json", "in, changed\n");
  write(dir, "x-y.json", "new\n");
  write(dir, "é.json", "accent\n");
  fs.rmSync(path.join(dir, "x0.json"));
  commitAll(dir, "edit one");
  assert.equal(git(dir, "checkout", "-qb", "side").status, 0);
  write(dir, "memories/0a/new.json", `{"n":"new"}\n`);
  fs.rmSync(path.join(dir, "memories/05/m5.json"));
  commitAll(dir, "side: a new folder, a removal");
  assert.equal(git(dir, "checkout", "-q", "main").status, 0);
  write(dir, "memories/03/m3.json", `{"n":"three"}\n`);
  commitAll(dir, "edit another");
  assert.equal(git(dir, "merge", "-q", "--no-edit", "side").status, 0);
  write(dir, "relations/r1.json", `{"r":1}\n`);
  const tip = commitAll(dir, "after the merge");
  return { dir, gitdir: path.join(dir, ".git"), remote, old, tip };
}

describe("the objects a push sends", () => {
  test("exactly what native git counts as new, each after everything it names; the remote is whole once they are copied", async () => {
    const s = scenario();
    const { commits } = await commitsOnlyFrom(s.gitdir, s.tip, s.old);
    assert.equal(commits.length, 5);
    const objects = await objectsOnlyFrom(s.gitdir, commits);
    const native = git(s.dir, "rev-list", "--objects", s.tip, `^${s.old}`).stdout.trim().split("\n").map((l) => l.split(" ")[0]!);
    assert.deepEqual(objects.map((o) => o.oid).sort(), native.sort());
    // the order: nothing named before it is written (what the remote already has aside)
    const written = new Set<string>();
    const remoteHas = (oid: string) => git(s.remote, "cat-file", "-e", oid).status === 0;
    for (const o of objects) {
      const obj = (await readObjectFrom(s.gitdir, o.oid))!;
      for (const child of referencesOf({ oid: o.oid, kind: o.type, path: "", commit: null }, obj)) {
        assert.ok(written.has(child.oid) || remoteHas(child.oid), `${o.type} ${o.oid} comes before ${child.oid}`);
      }
      written.add(o.oid);
    }
    assert.equal(await copyObjects(s.gitdir, s.remote, objects), objects.length);
    assert.equal(git(s.remote, "update-ref", "refs/heads/main", s.tip, s.old).status, 0);
    const fsck = git(s.remote, "fsck", "--strict", "--no-progress");
    assert.equal(fsck.status, 0, fsck.stdout + fsck.stderr);
    assert.equal(await copyObjects(s.gitdir, s.remote, objects), 0, "what the remote has is not written again");
  });

  test("to an empty remote: the whole history", async () => {
    const s = scenario();
    const { commits } = await commitsOnlyFrom(s.gitdir, s.tip, null);
    const objects = await objectsOnlyFrom(s.gitdir, commits);
    const native = git(s.dir, "rev-list", "--objects", s.tip).stdout.trim().split("\n").map((l) => l.split(" ")[0]!);
    assert.deepEqual(objects.map((o) => o.oid).sort(), native.sort());
  });
});
