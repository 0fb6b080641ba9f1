import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, tempDir } from "../helpers/env.ts";
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
