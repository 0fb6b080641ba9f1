import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { parseTree, readLooseObject, writeLooseObject, writeTreeObject } from "../../src/sync/loose-objects.ts";
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
});

