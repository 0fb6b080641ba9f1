import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncAsync, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";
import { hub } from "../helpers/hub.ts";

// What a new user with two or three machines sharing one remote found (audit25sync), through the
// compiled binary and native git; each test failed on 1df4888's binary.

describe("audit25sync: a clone that fails leaves nothing behind", () => {
  test("an unreachable remote: exit 6, no folder left, and the same clone works once the remote is there", () => {
    const h = hub();
    const dir = path.join(tempDir(), "nested", "b");
    const gone = memsync(["clone", "http://127.0.0.1:1/hub.git", dir, "--insecure-http"]);
    assert.equal(gone.code, 6, gone.stderr);
    assert.match(gone.stderr, /^memsync: the remote cannot be reached/);
    assert.equal(fs.existsSync(path.dirname(dir)), false, "the folders the clone made are gone");
    // an empty folder given by the user stays, empty
    const empty = tempDir();
    assert.equal(memsync(["clone", "http://127.0.0.1:1/hub.git", empty, "--insecure-http"]).code, 6);
    assert.deepEqual(fs.readdirSync(empty), []);
    const ok = memsync(["clone", h.bare, dir]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(fs.existsSync(path.join(dir, ".meta.json")));
  });
});

describe("audit25sync: history lists every machine's commits to a memory", () => {
  test("after a merge, both sides' edits are listed on both machines, as git log -- FILE lists them", () => {
    const h = hub();
    const a = path.join(h.root, "a");
    const b = path.join(h.root, "b");
    const run = (store: string, ...args: string[]) => {
      const r = memsync(["--store", store, ...args], { env: { MEMSYNC_MACHINE: path.basename(store) } });
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    };
    assert.equal(memsync(["init", a]).code, 0);
    run(a, "remote", "set", h.bare);
    const id = JSON.parse(run(a, "save", "We use PostgreSQL for the main database", "--json")).memory.id as string;
    run(a, "sync");
    assert.equal(memsync(["clone", h.bare, b]).code, 0);
    run(a, "update", id, "--content", "We use PostgreSQL 16 for the main database");
    run(b, "touch", id);
    run(a, "sync");
    run(b, "sync"); // b merges: a's update is on the merge's second parent
    run(a, "sync"); // a fast-forwards to b's merge: its own update is on the second parent now
    const file = `memories/${id}.json`;
    const native = git(a, "log", "--format=%H", "--", file).stdout.trim().split("\n");
    assert.equal(native.length, 4, "save, touch, update, merge");
    for (const store of [a, b]) {
      const listed = JSON.parse(run(store, "history", id, "--json")).commits as { oid: string; message: string }[];
      // the same commits (their order within one second may differ from git's)
      assert.deepEqual(listed.map((c) => c.oid).sort(), [...native].sort(), `${path.basename(store)}: ${listed.map((c) => c.message).join(" | ")}`);
      assert.equal(listed[0]!.oid, native[0], "the merge first");
      assert.ok(listed.some((c) => /^update: .*PostgreSQL 16/.test(c.message)), "a's edit is listed");
      assert.ok(listed.some((c) => /^touch: /.test(c.message)), "b's use is listed");
    }
  });
});

describe("audit25sync: an HTTP remote made by `git init --bare` whose HEAD names master", () => {
  test("the second sync, a clone and a doctor --repair fetch main all the same, as native git does", async () => {
    const root = tempDir();
    // what git before 3.0 makes by default: HEAD names master, which memsync's push never creates
    assert.equal(git(root, "init", "-q", "--bare", "-b", "master", "hub.git").status, 0);
    const server = await startGitHttpServer(root);
    // (the server runs in this process: every memsync run while it serves is asynchronous)
    const ok = async (args: string[]) => {
      const r = await memsyncAsync(args);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    };
    try {
      const url = server.url("hub.git");
      const a = path.join(root, "a");
      const b = path.join(root, "b");
      await ok(["init", a]);
      await ok(["--store", a, "remote", "set", url, "--insecure-http"]);
      await ok(["--store", a, "save", "first, pushed to the empty remote"]);
      await ok(["--store", a, "sync"]);
      await ok(["--store", a, "save", "second, after the remote has main"]);
      await ok(["--store", a, "sync"]);
      await ok(["clone", url, b, "--insecure-http"]);
      assert.equal(JSON.parse(await ok(["--store", b, "list", "--json"])).total, 2);
      // b's own save pushed, then its blob lost here: doctor --repair fetches it from the remote
      const id = JSON.parse(await ok(["--store", b, "save", "third, from b", "--json"])).memory.id as string;
      await ok(["--store", b, "sync"]);
      const blob = git(b, "rev-parse", `HEAD:memories/${id}.json`).stdout.trim();
      fs.rmSync(path.join(b, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
      await ok(["--store", b, "doctor", "--repair"]);
      assert.equal(git(b, "fsck", "--strict").status, 0);
      assert.equal(git(path.join(root, "hub.git"), "fsck", "--strict").status, 0);
    } finally {
      await server.close();
    }
  });
});

describe("audit25sync: status after a pull killed mid-checkout", () => {
  test("says the checkout is unfinished until the next sync finishes it", () => {
    const h = hub();
    const a = path.join(h.root, "a");
    const b = path.join(h.root, "b");
    assert.equal(memsync(["init", a]).code, 0);
    assert.equal(memsync(["--store", a, "remote", "set", h.bare]).code, 0);
    assert.equal(memsync(["--store", a, "sync"]).code, 0);
    assert.equal(memsync(["clone", h.bare, b]).code, 0);
    for (const n of [1, 2, 3]) assert.equal(memsync(["--store", b, "save", `pulled memory ${n}`]).code, 0);
    assert.equal(memsync(["--store", b, "sync"]).code, 0);
    const killed = memsync(["--store", a, "sync"], { env: { MEMSYNC_FAULT: "checkout-file:2" } });
    assert.notEqual(killed.code, 0, "killed after the second file");
    const half = memsync(["--store", a, "status"]);
    assert.match(half.stdout, /^health: degraded \(.*a pull's checkout is unfinished.*the next sync, pull, push or commit finishes it/m, half.stdout);
    assert.equal(memsync(["--store", a, "sync"]).code, 0);
    assert.match(memsync(["--store", a, "status"]).stdout, /^health: healthy$/m);
  });
});
