import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, memsyncAsync } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";
import { hub, machine } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// A repository whose refs name objects it lacks: status and doctor say so, doctor --repair takes
// the objects back from the remote without touching local commits, and says what no one has.

const objectFile = (gitdir: string, oid: string) => path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2));

/** Remove a loose object (making it writable first: objects are read-only files). */
function deleteObject(gitdir: string, oid: string): void {
  const f = objectFile(gitdir, oid);
  assert.ok(fs.existsSync(f), `${oid} is a loose object in ${gitdir}`);
  fs.rmSync(f, { force: true });
}

function fsckClean(gitdir: string): void {
  const r = git(gitdir, "fsck", "--strict", "--no-dangling");
  assert.equal(r.status, 0, r.stdout + r.stderr);
}

describe("missing git objects: found by status and doctor, restored by doctor --repair", () => {
  test("a tree and a blob deleted from a clone come back from a local-path remote; a local-only commit stays", async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    for (const t of ["one", "two", "three"]) await memsyncJson(["--store", a, "save", `memory ${t}`]);
    await memsyncJson(["--store", a, "sync"]);
    const b = path.join(h.root, "b");
    assert.equal((await memsync(["clone", h.bare, b])).code, 0);
    // a commit only b has
    const local = (await memsyncJson(["--store", b, "save", "only on b"])).memory.id as string;
    await memsyncJson(["--store", b, "commit"]);
    const head = git(b, "rev-parse", "HEAD").stdout.trim();
    const memoriesTree = git(b, "rev-parse", "origin/main:memories").stdout.trim();
    const blob = git(b, "ls-tree", "origin/main", "memories/").stdout.trim().split("\n")[0]!.split(/\s+/)[2]!;
    // (a clone from a local path copies objects as loose files)
    deleteObject(path.join(b, ".git"), memoriesTree);
    deleteObject(path.join(b, ".git"), blob);

    const st = await memsyncJson(["--store", b, "status"]);
    assert.equal(st.health, "degraded");
    assert.match(st.reasons.join("; "), new RegExp(`git objects? (is|are) missing: .*${memoriesTree.slice(0, 8)}.*doctor --repair`));
    assert.ok(st.git_objects.missing.some((m: { oid: string }) => m.oid === memoriesTree));

    const dr = await memsync(["--store", b, "doctor"]);
    assert.equal(dr.code, 6);
    assert.match(dr.stdout, /FAIL\s+git objects: .*missing/);

    const fixed = await memsync(["--store", b, "doctor", "--repair", "--json"]);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    const out = JSON.parse(fixed.stdout);
    assert.ok(out.repair.local.restored >= 2, JSON.stringify(out.repair));
    fsckClean(path.join(b, ".git"));
    assert.equal(git(b, "rev-parse", "HEAD").stdout.trim(), head, "the local commit is still the tip");
    assert.equal((await memsyncJson(["--store", b, "status"])).health, "healthy");
    assert.equal((await memsyncJson(["--store", b, "get", local])).found[0].memory.content, "only on b");
    assert.equal((await memsyncJson(["--store", b, "sync"])).push.pushed, true);
    fsckClean(h.bare);
  });

  test("sync that meets a missing object restores it from the remote and goes on", async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    await memsyncJson(["--store", a, "save", "first"]);
    await memsyncJson(["--store", a, "sync"]);
    const b = path.join(h.root, "b");
    assert.equal((await memsync(["clone", h.bare, b])).code, 0);
    deleteObject(path.join(b, ".git"), git(b, "rev-parse", "HEAD:memories").stdout.trim());
    await memsyncJson(["--store", a, "save", "second"]);
    await memsyncJson(["--store", a, "sync"]);
    await memsyncJson(["--store", b, "save", "from b"]);
    const r = await memsync(["--store", b, "sync"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /repaired: 1 missing git object restored/);
    fsckClean(path.join(b, ".git"));
    fsckClean(h.bare);
    assert.equal((await memsyncJson(["--store", b, "list"])).total, 3);
  });

  test("a remote-tracking ref cut short (a kill while it was written): reported, removed by --repair, written again by the next sync", async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    await memsyncJson(["--store", a, "save", "first"]);
    await memsyncJson(["--store", a, "sync"]);
    fs.writeFileSync(path.join(a, ".git/refs/remotes/origin/main"), "");
    const st = await memsyncJson(["--store", a, "status"]);
    assert.equal(st.health, "degraded");
    assert.match(st.reasons.join("; "), /refs\/remotes\/origin\/main names no commit/);
    assert.equal((await memsync(["--store", a, "doctor", "--repair"])).code, 0);
    assert.equal((await memsyncJson(["--store", a, "sync"])).pull.mode, "up-to-date");
    assert.equal(git(a, "rev-parse", "origin/main").stdout.trim(), git(a, "rev-parse", "HEAD").stdout.trim());
    assert.equal((await memsyncJson(["--store", a, "status"])).health, "healthy");
  });

  test("an object nobody has: doctor --repair says exactly what is lost, changes nothing, exits 7", async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    await memsyncJson(["--store", a, "save", "shared"]);
    await memsyncJson(["--store", a, "sync"]);
    await memsyncJson(["--store", a, "save", "never pushed"]);
    await memsyncJson(["--store", a, "commit"]);
    const head = git(a, "rev-parse", "HEAD").stdout.trim();
    const blob = git(a, "diff-tree", "-r", "--no-commit-id", "HEAD").stdout.trim().split("\n").find((l) => l.includes("memories/"))!.split(/\s+/)[3]!;
    deleteObject(path.join(a, ".git"), blob);
    const r = await memsync(["--store", a, "doctor", "--repair"]);
    assert.equal(r.code, 7, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`lost objects: 1 .*blob memories/.* of commit ${head.slice(0, 8)} \\(${blob.slice(0, 8)}\\)`));
    assert.equal(git(a, "rev-parse", "HEAD").stdout.trim(), head);
    assert.equal(fs.existsSync(objectFile(path.join(a, ".git"), blob)), false);
  });

  test("a remote on a local path that lacks an object (left by an older memsync) is reported and restored from the store", async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    await memsyncJson(["--store", a, "save", "pushed"]);
    await memsyncJson(["--store", a, "sync"]);
    const tree = git(h.bare, "rev-parse", "main^{tree}").stdout.trim();
    deleteObject(h.bare, tree);
    const dr = await memsync(["--store", a, "doctor"]);
    assert.equal(dr.code, 6);
    assert.match(dr.stdout, /FAIL\s+remote objects .*root tree of commit/);
    assert.equal((await memsync(["--store", a, "doctor", "--repair"])).code, 0);
    fsckClean(h.bare);
    const c = path.join(h.root, "c");
    assert.equal((await memsync(["clone", h.bare, c])).code, 0);
  });

  test("over HTTP: a fresh fetch of the remote gives back what the clone lost", async () => {
    const { root } = hub();
    const server = await startGitHttpServer(root, "tok");
    const env = { MEMSYNC_GIT_TOKEN: "tok" };
    try {
      const a = machine(root, "a", server.url("hub.git"));
      await memsyncJson(["--store", a, "save", "over http"]);
      assert.equal((await memsyncAsync(["--store", a, "sync"], { env })).code, 0);
      // a's objects were written loose by its own commits: delete the memories tree
      const tree = git(a, "rev-parse", "HEAD:memories").stdout.trim();
      deleteObject(path.join(a, ".git"), tree);
      assert.equal((await memsyncJson(["--store", a, "status"])).health, "degraded");
      const r = await memsyncAsync(["--store", a, "doctor", "--repair"], { env });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /repair \(this store\): 1 object restored from http/);
      fsckClean(path.join(a, ".git"));
      assert.equal((await memsyncAsync(["--store", a, "sync"], { env })).code, 0);
    } finally {
      await server.close();
    }
  });
});
