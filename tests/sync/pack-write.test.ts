import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import git_ from "isomorphic-git";
import { PACK_THRESHOLD } from "../../src/sync/commit.ts";
import { commitContent, treeContent } from "../../src/sync/loose-objects.ts";
import { writePack } from "../../src/sync/pack-write.ts";
import { objectId } from "../../src/sync/sha1.ts";
import { git, memsync, memsyncAsync, memsyncJson, snapshot, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// A commit of many new objects writes them as one pack (src/sync/pack-write.ts): native git must
// read it as its own (verify-pack, fsck --strict, cat-file, clone), isomorphic-git too, and a
// store committed that way must still push to a bare remote and over smart HTTP.

const enc = new TextEncoder();

describe("pack writer", () => {
  test("a pack of blobs, trees and a commit: verify-pack, fsck --strict, cat-file, clone and isomorphic-git read it", { timeout: 60_000 }, async () => {
    const repo = path.join(tempDir(), "r");
    assert.equal(git(tempDir(), "init", "-q", "-b", "main", repo).status, 0);
    const gitdir = path.join(repo, ".git");
    // sizes across the header's 4-bit and 7-bit boundaries, an empty blob, a large one
    const texts = ["", "x", "a".repeat(15), "b".repeat(16), "c".repeat(2047), "d".repeat(2048), `${"e".repeat(300_000)}\n`, ...Array.from({ length: 40 }, (_, i) => `{"n": ${i}}\n`)];
    const blobs = texts.map((t, i) => ({ name: `f${String(i).padStart(2, "0")}.json`, content: enc.encode(t), oid: objectId("blob", enc.encode(t)) }));
    const inner = treeContent(blobs.slice(0, 10).map((b) => ({ mode: "100644", path: b.name, oid: b.oid, type: "blob" as const })));
    const innerOid = objectId("tree", inner);
    const root = treeContent([...blobs.slice(10).map((b) => ({ mode: "100644", path: b.name, oid: b.oid, type: "blob" as const })), { mode: "040000", path: "sub", oid: innerOid, type: "tree" as const }]);
    const rootOid = objectId("tree", root);
    const commit = commitContent({ tree: rootOid, parents: [], author: { name: "memsync", email: "memsync@test", timestamp: 1700000000 }, message: "packed" });
    const commitOid = objectId("commit", commit);
    const objects = [...blobs.map((b) => ({ oid: b.oid, type: "blob" as const, content: b.content })), { oid: innerOid, type: "tree" as const, content: inner }, { oid: rootOid, type: "tree" as const, content: root }, { oid: commitOid, type: "commit" as const, content: commit }];
    // the same content twice (two files, one blob) is one object in the pack
    const unique = [...new Map(objects.map((o) => [o.oid, o])).values()];
    // what a killed writer left: old ones are cleared, a fresh one (a writer at work) is not
    const packDir = path.join(gitdir, "objects/pack");
    fs.mkdirSync(packDir, { recursive: true });
    const old = new Date(Date.now() - 10 * 60_000);
    for (const f of ["tmp_pack_1_x.idx", "pack-0000000000000000000000000000000000000000.pack"]) {
      fs.writeFileSync(path.join(packDir, f), "left");
      fs.utimesSync(path.join(packDir, f), old, old);
    }
    fs.writeFileSync(path.join(packDir, "tmp_pack_2_y.pack"), "in progress");
    const name = writePack(gitdir, unique);
    assert.ok(fs.existsSync(path.join(packDir, "tmp_pack_2_y.pack")), "a fresh temp file is left to its writer");
    fs.rmSync(path.join(packDir, "tmp_pack_2_y.pack"));
    const idx = path.join(gitdir, "objects/pack", `${name}.idx`);
    const verify = spawnSync("git", ["verify-pack", "-v", idx], { encoding: "utf8" });
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, new RegExp(`non delta: ${unique.length} objects`));
    assert.deepEqual(fs.readdirSync(path.join(gitdir, "objects/pack")).sort(), [`${name}.idx`, `${name}.pack`], "no temp file left");
    fs.writeFileSync(path.join(gitdir, "refs/heads/main"), `${commitOid}\n`);
    const fsck = git(repo, "fsck", "--strict", "--no-dangling");
    assert.equal(fsck.status, 0, fsck.stderr);
    assert.equal(git(repo, "cat-file", "-t", commitOid).stdout.trim(), "commit");
    for (const b of blobs) assert.equal(git(repo, "cat-file", "-s", b.oid).stdout.trim(), String(b.content.length));
    assert.equal(git(repo, "cat-file", "-p", blobs[6]!.oid).stdout, texts[6]);
    const clone = path.join(tempDir(), "c");
    assert.equal(git(tempDir(), "clone", "-q", repo, clone).status, 0);
    assert.equal(fs.readFileSync(path.join(clone, "sub", "f05.json"), "utf8"), texts[5]);
    assert.equal(fs.readFileSync(path.join(clone, "sub", "f06.json"), "utf8"), texts[6]);
    assert.equal(fs.readFileSync(path.join(clone, "f10.json"), "utf8"), texts[10]);
    // isomorphic-git reads objects out of it
    const read = await git_.readBlob({ fs, gitdir, oid: blobs[6]!.oid });
    assert.equal(new TextDecoder().decode(read.blob), texts[6]);
    const log = await git_.log({ fs, gitdir, ref: "main" });
    assert.equal(log[0]?.commit.message, "packed\n");
  });

  test(`a commit of ${PACK_THRESHOLD}+ files is one pack; the store stays clean for git and syncs to a bare remote and over smart HTTP`, { timeout: 240_000 }, async () => {
    const root = tempDir();
    const n = PACK_THRESHOLD + 20;
    const src = path.join(root, "src");
    fs.mkdirSync(src);
    const id = (i: number) => `0190a000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    fs.writeFileSync(
      path.join(src, "memories.jsonl"),
      Array.from({ length: n }, (_, i) => JSON.stringify({ id: id(i), content: `packed memory number ${i}`, meta: { tags: ["pack"] }, created_at: 1700000000 + i, last_used: 1700000000 + i, use_count: 0, strength: 1.0, status: "active" })).join("\n") + "\n",
    );
    const packsOf = (store: string) => fs.readdirSync(path.join(store, ".git/objects/pack")).filter((f) => f.endsWith(".idx"));
    /** A store holding the import, committed (by the import itself: nothing is left to commit). */
    const imported = (name: string) => {
      const store = path.join(root, name);
      assert.equal(memsync(["init", store]).code, 0);
      const out = memsyncJson(["--store", store, "import", "cortexgraph", src]);
      assert.equal(out.memories.imported, n);
      assert.match(out.commit, /^[0-9a-f]{40}$/);
      assert.equal(memsyncJson(["--store", store, "commit"]).commits.length, 0);
      return store;
    };
    const records = (d: string) => [...snapshot(d, (rel) => rel === ".git" || rel === ".memsync")].map(([k, v]) => `${k} ${v}`).sort();

    const store = imported("store");
    assert.equal(packsOf(store).length, 1, "the commit's objects are one pack");
    assert.equal(git(store, "count-objects", "-v").stdout.match(/^in-pack: (\d+)$/m)![1], String(n + 4), "n record blobs, .meta.json's blob, two trees, one commit");
    assert.equal(git(store, "fsck", "--strict").status, 0);
    assert.equal(git(store, "status", "--porcelain").stdout, "", "native git sees a clean store");
    // a later small commit stays loose
    memsyncJson(["--store", store, "save", "one more"]);
    memsyncJson(["--store", store, "commit"]);
    assert.equal(packsOf(store).length, 1);

    // to a bare remote on a path, and back by a clone
    const bare = path.join(root, "hub.git");
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", bare).status, 0);
    assert.equal(git(store, "config", "remote.origin.url", bare).status, 0);
    assert.equal(git(store, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*").status, 0);
    assert.equal(memsync(["--store", store, "sync"]).code, 0);
    assert.equal(git(bare, "fsck", "--strict").status, 0);
    const cloned = path.join(root, "cloned");
    assert.equal(memsync(["clone", bare, cloned]).code, 0);
    assert.deepEqual(records(cloned), records(store));

    // over smart HTTP (native git http-backend)
    const other = imported("other");
    const httpRoot = tempDir();
    assert.equal(git(httpRoot, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const server = await startGitHttpServer(httpRoot);
    try {
      assert.equal(memsync(["--store", other, "remote", "set", server.url("hub.git"), "--insecure-http"]).code, 0);
      const pushed = await memsyncAsync(["--store", other, "sync"]);
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.equal(git(path.join(httpRoot, "hub.git"), "fsck", "--strict").status, 0);
      const viaHttp = path.join(root, "via-http");
      const c = await memsyncAsync(["clone", server.url("hub.git"), viaHttp, "--insecure-http"]);
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(records(viaHttp), records(other));
    } finally {
      await server.close();
    }
  });
});
