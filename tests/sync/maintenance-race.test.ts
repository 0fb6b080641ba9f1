import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { EDGE_BIN, git, memsync, memsyncAsync, memsyncJson, tempDir } from "../helpers/env.ts";

// Maintenance on the main machine racing usage on an edge machine: two clones of one bare
// repository, real processes (the edge one is the edge build), real git. What the edge used while
// main consolidated or split must land on the successors, on both machines.

const MAIN = { MEMSYNC_MACHINE: "main" };
const EDGE = { MEMSYNC_MACHINE: "edge" };
const onMain = (args: string[]) => memsyncJson(args, { env: MAIN });
const onEdge = (args: string[]) => memsyncJson(args, { env: EDGE, command: [EDGE_BIN] });

function read(dir: string, id: string): any {
  const p = [path.join(dir, "memories", `${id}.json`), path.join(dir, "memories", id.slice(-2), `${id}.json`)].find((x) => fs.existsSync(x));
  return p ? JSON.parse(fs.readFileSync(p, "utf8")) : null;
}

/** A hub, the main machine's store (with the given memories, synced), and the edge machine's clone of it. */
function setup(notes: string[][]): { main: string; edge: string; bare: string; ids: string[] } {
  const root = tempDir();
  const bare = path.join(root, "hub.git");
  assert.equal(git(root, "init", "-q", "--bare", bare).status, 0);
  const main = path.join(root, "main");
  assert.equal(memsync(["init", main], { env: MAIN }).code, 0);
  onMain(["--store", main, "remote", "set", bare]);
  const ids = notes.map((args) => onMain(["--store", main, "save", ...args]).memory.id as string);
  onMain(["--store", main, "touch", ids[0]!]);
  onMain(["--store", main, "sync"]);
  const edge = path.join(root, "edge");
  const cloned = memsync(["clone", bare, edge], { env: EDGE, command: [EDGE_BIN] });
  assert.equal(cloned.code, 0, cloned.stderr);
  return { main, edge, bare, ids };
}

function syncBoth(main: string, edge: string): void {
  onMain(["--store", main, "sync"]);
  onEdge(["--store", edge, "sync"]);
  onMain(["--store", main, "sync"]);
}

describe("maintenance racing an edge machine's usage", () => {
  test("consolidate on main while the edge touches a source: the touch lands on the new memory on both machines", async () => {
    const { main, edge, bare, ids } = setup([
      ["Use cursor pagination for list endpoints in the public API; page size defaults to 50"],
      ["For list endpoints in the public API use cursor pagination, with a default page size of 50"],
      ["Public API list endpoints: cursor pagination, page size default 50"],
    ]);
    const before = ids.map((id) => read(main, id).use_count as number).reduce((a, b) => a + b, 0);
    // at the same time: main merges the three, the edge uses one of them twice
    const [consolidated, touched] = await Promise.all([
      memsyncAsync(["--store", main, "consolidate", "--apply", "--json"], { env: MAIN }),
      memsyncAsync(["--store", edge, "touch", ids[1]!, "--json"], { env: EDGE, command: [EDGE_BIN] }).then(async (first) => {
        assert.equal(first.code, 0, first.stderr);
        return memsyncAsync(["--store", edge, "touch", ids[1]!, "--json"], { env: EDGE, command: [EDGE_BIN] });
      }),
    ]);
    assert.equal(consolidated.code, 0, consolidated.stderr);
    assert.equal(touched.code, 0, touched.stderr);
    const into = JSON.parse(consolidated.stdout).applied[0].into as string;
    syncBoth(main, edge);
    for (const dir of [main, edge]) {
      assert.equal(read(dir, into).use_count, before + 2, `${dir}: the edge's two uses moved to the new memory`);
      for (const id of ids) assert.equal(read(dir, id), null, `${dir}: source ${id} stays removed`);
      assert.equal(git(dir, "status", "--porcelain").stdout, "");
      assert.equal(memsyncJson(["--store", dir, "status"]).health, "healthy");
    }
    assert.equal(git(bare, "fsck", "--strict").status, 0);
  });

  test("split on main while the edge touches the original: every part gets the touch on both machines", async () => {
    const { main, edge, ids } = setup([["We moved session storage to Redis. Cache keys include the tenant id and the API version."]]);
    const x = ids[0]!;
    const uses = read(main, x).use_count as number;
    const [split, touched] = await Promise.all([
      memsyncAsync(["--store", main, "split", x, "--part", "We moved session storage to Redis.", "--part", "Cache keys include the tenant id and the API version.", "--json"], { env: MAIN }),
      memsyncAsync(["--store", edge, "touch", x, "--json"], { env: EDGE, command: [EDGE_BIN] }),
    ]);
    assert.equal(split.code, 0, split.stderr);
    assert.equal(touched.code, 0, touched.stderr);
    const parts = JSON.parse(split.stdout).parts.map((p: any) => p.id) as string[];
    syncBoth(main, edge);
    for (const dir of [main, edge]) {
      assert.equal(read(dir, x), null, `${dir}: the original stays removed`);
      for (const p of parts) assert.equal(read(dir, p).use_count, uses + 1, `${dir}: part ${p} has the edge's use`);
      assert.equal(git(dir, "status", "--porcelain").stdout, "");
    }
  });

  test("the edge build cannot run maintenance at all", () => {
    const { edge, ids } = setup([["a note"], ["another note"]]);
    for (const args of [["consolidate", "--apply"], ["split", ids[0]!, "--part", "a", "--part", "b"]]) {
      const r = memsync(["--store", edge, ...args], { env: EDGE, command: [EDGE_BIN] });
      assert.equal(r.code, 6);
      assert.match(r.stderr, /edge build/);
    }
  });
});
