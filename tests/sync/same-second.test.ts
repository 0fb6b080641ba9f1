import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, memsyncAsync, readMemoryFile, tempDir } from "../helpers/env.ts";
import { type Hub, hub, machine, synced } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

const sync = async (dir: string) => await memsyncJson(["--store", dir, "sync"]);

// Uses on several machines in the same second (issue 9, item 1): with an absolute use_count both
// files came out byte for byte the same, git saw nothing to merge, and a use was lost. Every
// clone here runs under one MEMSYNC_MACHINE name (the helpers' default), so only the checkout's
// own replica id keeps their streams apart. Real processes, a real bare remote.

const clone = (h: Hub, name: string) => machine(h.root, name, h.bare);
const memoryPath = (dir: string, id: string) =>
  [path.join(dir, "memories", `${id}.json`), path.join(dir, "memories", id.slice(-2), `${id}.json`)].find((p) => fs.existsSync(p))!;

/** Touch x on every clone at once; the number of touches acknowledged (exit 0). */
async function touchAll(dirs: readonly string[], x: string): Promise<number> {
  const runs = await Promise.all(dirs.map((d) => memsyncAsync(["--store", d, "touch", x])));
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  return runs.filter((r) => r.code === 0).length;
}

describe("uses of one memory on several machines in the same second", () => {
  test("two clones touch at once: both uses survive the syncs, and the clones end byte for byte alike", { timeout: 120_000 }, async () => {
    const h = hub();
    const a = clone(h, "a");
    const b = clone(h, "b");
    const x = (await memsyncJson(["--store", a, "save", "a memory both machines use"])).memory.id as string;
    await memsyncJson(["--store", a, "touch", x]);
    await sync(a);
    await sync(b);
    const earlier = readMemoryFile(b, x).use_count as number;
    assert.equal(earlier, 1);

    // start both together until one pair lands in the same second (nearly always the first)
    let acknowledged = 0;
    let sameSecond = false;
    for (let attempt = 0; attempt < 5 && !sameSecond; attempt++) {
      acknowledged += await touchAll([a, b], x);
      const [ma, mb] = [readMemoryFile(a, x), readMemoryFile(b, x)];
      sameSecond = ma.last_used === mb.last_used && ma.use_count === mb.use_count;
    }
    assert.ok(sameSecond, "the two touches landed in the same second");
    const replicas = [a, b].map((d) => JSON.parse(fs.readFileSync(path.join(d, ".memsync", "machine.json"), "utf8")).replica as string);
    assert.notEqual(replicas[0], replicas[1], "one machine name, two checkouts: two replica ids");
    // what an absolute count wrote identically now differs: each clone counted on its own stream
    assert.notEqual(fs.readFileSync(memoryPath(a, x), "utf8"), fs.readFileSync(memoryPath(b, x), "utf8"));

    for (const d of [a, b, a, b]) await sync(d);
    for (const d of [a, b]) assert.equal(readMemoryFile(d, x).use_count, earlier + acknowledged, `${d}: every acknowledged use`);
    assert.equal(fs.readFileSync(memoryPath(a, x), "utf8"), fs.readFileSync(memoryPath(b, x), "utf8"));
    assert.deepEqual(synced(a), synced(b), "the clones hold the same files");
    const counters = readMemoryFile(a, x).counters.use_count as Record<string, number>;
    assert.deepEqual(Object.keys(counters).sort(), [...replicas].sort(), "one stream per checkout (the first touch was a's)");
    assert.equal((await memsyncJson(["--store", b, "get", x])).found[0].memory.use_count, earlier + acknowledged, "memsync reads the merged count");
    for (const d of [a, b]) assert.equal(git(d, "status", "--porcelain").stdout, "", "native git sees a clean store");
  });

  test("three clones touching several times each, syncing between rounds: use_count is the number of acknowledged touches", { timeout: 180_000 }, async () => {
    const h = hub();
    const dirs = ["a", "b", "c"].map((n) => clone(h, n));
    const [a] = dirs as [string];
    const x = (await memsyncJson(["--store", a, "save", "a memory three machines use"])).memory.id as string;
    const y = (await memsyncJson(["--store", a, "save", "a second memory, touched on one machine only"])).memory.id as string;
    for (const d of dirs) await sync(d);

    let acknowledged = 0;
    for (let round = 0; round < 2; round++) {
      // all three start from the same file: an absolute count would write it identically three times
      acknowledged += await touchAll(dirs, x);
      if (round === 1) acknowledged += await touchAll(dirs, x); // twice before a sync
      for (const d of [...dirs, ...dirs.slice(0, 2)]) await sync(d);
      for (const d of dirs) assert.equal(readMemoryFile(d, x).use_count, acknowledged, `round ${round}: every clone has every use`);
    }
    await memsyncJson(["--store", dirs[1]!, "touch", y]);
    for (let pass = 0; pass < 2; pass++) for (const d of dirs) await sync(d);

    const want = synced(dirs[0]!);
    for (const d of dirs) {
      assert.equal(readMemoryFile(d, x).use_count, acknowledged, `${d}: use_count = acknowledged touches`);
      assert.equal(readMemoryFile(d, y).use_count, 1);
      assert.deepEqual(synced(d), want, `${d}: byte for byte the same files`);
    }
    assert.equal(acknowledged, 3 * 3);
    assert.equal(git(h.bare, "fsck", "--strict").status, 0);
  });

  test("a store folder copied by hand counts on a stream of its own", async () => {
    const a = path.join(tempDir(), "a");
    assert.equal((await memsync(["init", a])).code, 0);
    const x = (await memsyncJson(["--store", a, "save", "a memory in a copied folder"])).memory.id as string;
    await memsyncJson(["--store", a, "touch", x]);
    const b = path.join(path.dirname(a), "b");
    fs.cpSync(a, b, { recursive: true });
    await memsyncJson(["--store", b, "touch", x]);
    await memsyncJson(["--store", a, "touch", x]);
    const streams = (d: string) => Object.keys(readMemoryFile(d, x).counters.use_count).sort();
    assert.equal(streams(a).length, 1);
    assert.equal(streams(b).length, 2, "the copy's touch went to a new stream");
    assert.ok(streams(b).includes(streams(a)[0]!));
  });
});
