import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { commitContent, hashObject, parseTree, readLooseObject, writeCommitObject, writeLooseObject, writeTreeObject } from "../../src/sync/loose-objects.ts";
import { git, tempDir } from "../helpers/env.ts";

// memsync writes blobs and trees itself (src/sync/loose-objects.ts): native git must read them as
// its own, with the same ids.

describe("loose objects", () => {
  test("blobs and trees get git's ids, in git's entry order, and pass fsck", async () => {
    const repo = path.join(tempDir(), "r");
    assert.equal(git(tempDir(), "init", "-q", repo).status, 0);
    const gitdir = path.join(repo, ".git");
    const blob = await writeLooseObject(gitdir, "blob", new TextEncoder().encode('{"id": "x"}\n'));
    fs.writeFileSync(path.join(repo, "f.json"), '{"id": "x"}\n');
    assert.equal(blob, git(repo, "hash-object", "f.json").stdout.trim());
    const inner = await writeTreeObject(gitdir, [{ mode: "100644", path: "x.json", oid: blob, type: "blob" }]);
    // "a-b" < "a.json" < "a/" (a folder sorts as if its name ended in "/"), whatever order given
    const entries = [
      { mode: "040000", path: "a", oid: inner, type: "tree" as const },
      { mode: "100644", path: "a.json", oid: blob, type: "blob" as const },
      { mode: "100644", path: "a-b", oid: blob, type: "blob" as const },
      { mode: "100644", path: "Z", oid: blob, type: "blob" as const },
    ];
    const ours = await writeTreeObject(gitdir, entries);
    const listing = [`100644 blob ${blob}\tZ`, `100644 blob ${blob}\ta-b`, `100644 blob ${blob}\ta.json`, `040000 tree ${inner}\ta`].join("\n");
    const native = spawnSync("git", ["mktree"], { cwd: repo, input: `${listing}\n`, encoding: "utf8" }).stdout.trim();
    assert.equal(ours, native);
    assert.equal(git(repo, "ls-tree", ours).stdout, `${listing}\n`);
    assert.equal(await writeTreeObject(gitdir, [...entries].reverse()), ours, "the order given does not matter");
    // read back: the loose file inflates to the same entries, in git's order
    const back = readLooseObject(gitdir, native);
    assert.equal(back?.type, "tree");
    assert.deepEqual(
      parseTree(back!.content).map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.path}`),
      listing.split("\n"),
    );
    assert.equal(readLooseObject(gitdir, "0".repeat(40)), null);
    assert.equal(await writeTreeObject(gitdir, []), "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "the empty tree");
    assert.equal(git(repo, "fsck", "--strict", "--unreachable", "--no-dangling").status, 0);
  });

  test("commit objects: the same bytes and id as git commit-tree, written whole (temp file renamed)", async () => {
    const repo = path.join(tempDir(), "r");
    assert.equal(git(tempDir(), "init", "-q", repo).status, 0);
    const gitdir = path.join(repo, ".git");
    const blob = await writeLooseObject(gitdir, "blob", new TextEncoder().encode("x\n"));
    const tree = await writeTreeObject(gitdir, [{ mode: "100644", path: "x", oid: blob, type: "blob" }]);
    const env = { ...process.env, GIT_AUTHOR_NAME: "memsync", GIT_AUTHOR_EMAIL: "memsync@laptop", GIT_AUTHOR_DATE: "@1700000000 +0000", GIT_COMMITTER_NAME: "memsync", GIT_COMMITTER_EMAIL: "memsync@laptop", GIT_COMMITTER_DATE: "@1700000000 +0000" };
    const commitTree = (...args: string[]) => spawnSync("git", ["commit-tree", ...args], { cwd: repo, env, encoding: "utf8" }).stdout.trim();
    const first = await writeCommitObject(gitdir, { tree, parents: [], author: { name: "memsync", email: "memsync@laptop", timestamp: 1700000000 }, message: "save: 1234abcd a note" });
    assert.equal(first, commitTree(tree, "-m", "save: 1234abcd a note"));
    const other = commitTree(tree, "-m", "another root");
    const second = await writeCommitObject(gitdir, { tree, parents: [first, other], author: { name: "memsync", email: "memsync@laptop", timestamp: 1700000000 }, message: "merge: 2 changes from the remote\n\n" });
    assert.equal(second, commitTree(tree, "-p", first, "-p", other, "-m", "merge: 2 changes from the remote"));
    assert.equal(await hashObject("commit", commitContent({ tree, parents: [first, other], author: { name: "memsync", email: "memsync@laptop", timestamp: 1700000000 }, message: "merge: 2 changes from the remote" })), second);
    // a name cannot break the header
    const odd = await writeCommitObject(gitdir, { tree, parents: [], author: { name: "a <b>\nc", email: "x@y", timestamp: 1 }, message: "m" });
    assert.match(git(repo, "cat-file", "-p", odd).stdout, /^author a bc <x@y> 1 \+0000$/m);
    assert.equal(git(repo, "fsck", "--strict", "--no-dangling").status, 0);
    assert.deepEqual(fs.readdirSync(path.join(gitdir, "objects", first.slice(0, 2))).filter((n) => n.startsWith("tmp_")), [], "no temp file left");
  });
});
