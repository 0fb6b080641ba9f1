import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memsync, memsyncJson, newStore } from "../helpers/env.ts";

// memsync history ID: the commits that touched a memory's record file, newest first.

describe("history", () => {
  test("lists the commits that touched a memory, newest first; a short id works; other memories' commits are not listed", () => {
    const store = newStore();
    const run = (...a: string[]) => memsync(["--store", store, ...a]);
    const id = memsyncJson(["--store", store, "save", "Use cursor pagination for the orders API"]).memory.id as string;
    const other = memsyncJson(["--store", store, "save", "Another memory"]).memory.id as string;
    assert.match(run("history", id).stdout, /^no commit touched/);
    assert.equal(run("update", id, "--content", "Use keyset pagination for the orders API").code, 0);
    assert.equal(run("update", other, "--content", "Another memory, edited").code, 0);
    assert.equal(run("commit").code, 0);
    const out = memsyncJson(["--store", store, "history", id.slice(-8)]);
    assert.equal(out.id, id);
    assert.deepEqual(out.commits.map((c: { change: string }) => c.change), ["changed", "added"]);
    assert.match(out.commits[0].message, /^update: /);
    assert.match(out.commits[1].message, /^save: /);
    const text = run("history", id).stdout.trim().split("\n");
    assert.equal(text.length, 2);
    assert.match(text[0]!, /^[0-9a-f]{10} {2}\d{4}-\d\d-\d\dT.* {2}changed {2}update: /);
    assert.equal(memsyncJson(["--store", store, "history", id, "--limit", "1"]).commits.length, 1);
    const bad = run("history", "../etc");
    assert.notEqual(bad.code, 0);
  });
});
