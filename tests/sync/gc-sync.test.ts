import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { EDGE_BIN, git, memsync, memsyncJson, tempDir, readMemoryFile } from "../helpers/env.ts";

// gc on the main machine while an edge machine (the edge build) used the same memory: the use
// wins, the memory comes back on both after sync. Real processes, real git, a local bare repo.

const DAY = 86_400;
const MAIN = { MEMSYNC_MACHINE: "laptop" };
const EDGE = { MEMSYNC_MACHINE: "vps" };

function machine(root: string, bare: string, name: string, env: Record<string, string>, command?: string[]): string {
  const dir = path.join(root, name);
  assert.equal(memsync(["init", dir], { env, command }).code, 0);
  assert.equal(memsync(["--store", dir, "remote", "set", bare], { env, command }).code, 0);
  return dir;
}

const read = readMemoryFile;

describe("gc and sync", () => {
  test("a memory gc'd on main while the edge machine touched it comes back on both; one that nobody used stays gone", () => {
    const root = tempDir();
    const bare = path.join(root, "hub.git");
    assert.equal(git(root, "init", "-q", "--bare", bare).status, 0);
    const main = machine(root, bare, "main", MAIN);
    const edgeCmd = { command: [EDGE_BIN], env: EDGE };
    const edge = machine(root, bare, "edge", EDGE, [EDGE_BIN]);
    const old = Math.floor(Date.now() / 1000) - 90 * DAY;
    const saveOld = (content: string) =>
      memsyncJson(["--store", main, "save", "--input", "-"], { env: MAIN, input: JSON.stringify({ content, created_at: old, last_used: old }) }).memory.id as string;
    const used = saveOld("faded on main, but the VPS agent still needs it");
    const unused = saveOld("faded everywhere");
    const keeper = memsyncJson(["--store", main, "save", "a fresh memory"], { env: MAIN }).memory.id as string;
    const rel = memsyncJson(["--store", main, "relate", keeper, used], { env: MAIN }).relation.id as string;
    memsyncJson(["--store", main, "sync"], { env: MAIN });
    memsyncJson(["--store", edge, "sync"], edgeCmd);
    assert.ok(read(edge, used));

    // meanwhile: the edge agent uses one of them; main's gc takes both
    memsyncJson(["--store", edge, "touch", used], edgeCmd);
    const gc = memsyncJson(["--store", main, "gc"], { env: MAIN });
    assert.deepEqual(gc.removed.sort(), [used, unused].sort());
    assert.deepEqual(gc.relations_removed, [rel]);

    memsyncJson(["--store", main, "sync"], { env: MAIN });
    memsyncJson(["--store", edge, "sync"], edgeCmd);
    memsyncJson(["--store", main, "sync"], { env: MAIN });
    for (const dir of [main, edge]) {
      const back = read(dir, used);
      assert.ok(back, `the used memory is back on ${path.basename(dir)}`);
      assert.equal(back.use_count, 1);
      assert.ok(back.last_used > old);
      assert.equal(read(dir, unused), null, "the one nobody used stays deleted");
      assert.ok(read(dir, keeper));
      assert.deepEqual(memsyncJson(["--store", dir, "get", used], { env: MAIN }).found[0].incoming.map((r: { id: string }) => r.id), [rel], "with its relation");
      assert.equal(git(dir, "status", "--porcelain").stdout, "", "native git sees a clean store");
    }
    // back and freshly used: the next gc leaves it alone
    assert.equal(memsyncJson(["--store", main, "gc", "--dry-run"], { env: MAIN }).candidates.length, 0);
    // the edge machine may score, never gc
    assert.equal(memsync(["--store", edge, "gc"], edgeCmd).code, 6);
    assert.equal(memsyncJson(["--store", edge, "score", used], edgeCmd).scores[0].use_count, 1);
  });
});
