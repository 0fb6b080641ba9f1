import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsync, tempDir } from "../helpers/env.ts";
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
