import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, initStore, memsyncAsync, tempDir } from "../helpers/env.ts";
import { cortexgraphSource } from "../helpers/cortexgraph-source.ts";

// Issue 16's packed history, on the compiled binary and native git: memsync packs what it commits
// (before the issue every object was loose: 456 MB against a native clone's 48 MB at 50k), and
// `memsync repack --all` leaves one pack that `git fsck --strict` and `git verify-pack` accept.
// The first test's yardstick is native git's own pack of the same objects stored whole (`repack
// -F --window=0`): a commit's pack holds whole objects deflated at level 1, and an import's
// records have one version each, so it measures the packing alone.
//
// A busy store is another matter: every write commits, and each commit writes a new version of
// every folder it touched (a flat folder of a few hundred records is a tree of ~15 KB), so whole
// versions were most of its history (a chaos clone: 268 MB against 11 MB once native git had
// deltified it). `repack` stores each version as a delta against a recent version of the same
// path (sync/repack.ts, sync/delta-encode.ts): measured against native git's own
// `repack -a -d -f`.

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const quick = binaryThenInProcess();

/** Bytes on disk (allocated blocks, as `du` counts them) of everything under dir. */
function diskBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? diskBytes(p) : fs.lstatSync(p).blocks * 512;
  }
  return total;
}

function gitOk(cwd: string, ...args: string[]): string {
  const r = git(cwd, ...args);
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function countObjects(repo: string): { loose: number; packs: number } {
  const out = gitOk(repo, "count-objects", "-v");
  return { loose: Number(out.match(/^count: (\d+)$/m)![1]), packs: Number(out.match(/^packs: (\d+)$/m)![1]) };
}

describe("history size against native git", () => {
  test("an imported store plus everyday commits: .git within 1.5x of native git's whole-object clone; repacked: one pack, no larger, fsck --strict and verify-pack clean", { timeout: 300_000 }, async () => {
    const store = initStore();
    const imported = await memsyncAsync(["--store", store, "import", "cortexgraph", cortexgraphSource(1500)]);
    assert.equal(imported.code, 0, imported.stderr);
    // everyday use: one memory per commit, each commit's few objects written loose
    for (let i = 0; i < 6; i++) {
      const s = await memsyncAsync(["--store", store, "save", `everyday note ${i} about the retry budget of the billing worker`]);
      assert.equal(s.code, 0, s.stderr);
      const c = await memsyncAsync(["--store", store, "commit"]);
      assert.equal(c.code, 0, c.stderr);
    }
    assert.equal(gitOk(store, "status", "--porcelain"), "");

    const native = path.join(tempDir(), "native");
    gitOk(path.dirname(native), "clone", "-q", "--no-local", store, native);
    gitOk(native, "repack", "-a", "-d", "-F", "-q", "--window=0"); // every object whole, as memsync stores them
    const nativeBytes = diskBytes(path.join(native, ".git"));
    const ratio = (dir: string) => diskBytes(path.join(dir, ".git")) / nativeBytes;
    const asCommitted = ratio(store);
    assert.ok(countObjects(store).loose < 200, `the import's objects are packed: ${JSON.stringify(countObjects(store))}`);
    assert.ok(asCommitted <= 1.5, `.git as committed is ${asCommitted.toFixed(2)}x a native clone's`);

    const r = await memsyncAsync(["--store", store, "repack", "--all"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(countObjects(store), { loose: 0, packs: 1 });
    gitOk(store, "fsck", "--strict");
    const pack = fs.readdirSync(path.join(store, ".git", "objects", "pack")).find((n) => n.endsWith(".idx"))!;
    gitOk(store, "verify-pack", path.join(".git", "objects", "pack", pack));
    const repacked = ratio(store);
    assert.ok(repacked <= Math.min(asCommitted, 1.5), `.git after repack is ${repacked.toFixed(2)}x a native clone's (${asCommitted.toFixed(2)}x before)`);
    // the same history, object for object
    const all = (repo: string) => gitOk(repo, "cat-file", "--batch-all-objects", "--batch-check").split("\n").sort().join("\n");
    assert.equal(all(store), all(native));
  });

  test("a busy store (a commit for every use and edit): repacked with deltas, .git within 1.5x of native git's delta-compressed repack; every object, fsck --strict, a native clone", { timeout: 300_000 }, async () => {
    const store = initStore();
    const imported = await memsyncAsync(["--store", store, "import", "cortexgraph", cortexgraphSource(300)]);
    assert.equal(imported.code, 0, imported.stderr);
    const ids = (await quick.memsyncJson(["--store", store, "list", "--limit", "300"])).memories.map((m: { id: string }) => m.id) as string[];
    assert.ok(ids.length >= 200, `${ids.length} memories`);
    for (let round = 0; round < 240; round++) {
      const args = round % 6 === 5 ? ["update", ids[(round * 7) % ids.length]!, "--content", `edited in round ${round}: the retry budget of the billing worker is ${round} ms`] : ["touch", ids[(round * 13) % ids.length]!, ids[(round * 29 + 3) % ids.length]!];
      const r = await quick.memsync(["--store", store, ...args]);
      assert.equal(r.code, 0, r.stderr);
      const c = await quick.memsync(["--store", store, "commit"]);
      assert.equal(c.code, 0, c.stderr);
    }
    assert.equal(gitOk(store, "status", "--porcelain"), "");
    const before = gitOk(store, "cat-file", "--batch-all-objects", "--batch-check");

    const native = path.join(tempDir(), "native");
    gitOk(path.dirname(native), "clone", "-q", "--no-local", store, native);
    gitOk(native, "repack", "-a", "-d", "-f", "-q"); // git's own deltas (window 10, depth 50)
    const nativeBytes = diskBytes(path.join(native, ".git", "objects"));
    const wholeBytes = diskBytes(path.join(store, ".git", "objects"));

    const r = await memsyncAsync(["--store", store, "repack", "--all"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(countObjects(store), { loose: 0, packs: 1 });
    gitOk(store, "fsck", "--strict");
    const pack = fs.readdirSync(path.join(store, ".git", "objects", "pack")).find((n) => n.endsWith(".idx"))!;
    const verify = gitOk(store, "verify-pack", "-v", path.join(".git", "objects", "pack", pack));
    const deltas = verify.split("\n").filter((l) => /^[0-9a-f]{40} (tree|blob) +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l)).length;
    assert.ok(deltas > 300, `versions stored as deltas: ${deltas}`);
    const after = diskBytes(path.join(store, ".git", "objects"));
    assert.ok(after <= 1.5 * nativeBytes, `objects after repack ${after} bytes: ${(after / nativeBytes).toFixed(2)}x native git's ${nativeBytes} (${(wholeBytes / nativeBytes).toFixed(2)}x before)`);
    assert.ok(after * 3 <= wholeBytes, `a third or less of the whole versions' ${wholeBytes} bytes: ${after}`);
    // the same objects (fsck --strict read each one and checked its id), a clone, memsync's reads
    assert.equal(gitOk(store, "cat-file", "--batch-all-objects", "--batch-check"), before); // fsck --strict checked each one's hash
    const clone = path.join(tempDir(), "clone");
    gitOk(path.dirname(clone), "clone", "-q", "--no-local", store, clone);
    gitOk(clone, "fsck", "--strict");
    const status = await quick.memsyncJson(["--store", store, "status"]);
    assert.equal(status.health, "healthy", JSON.stringify(status.reasons));
    const edited = ids[(5 * 7) % ids.length]!;
    const got = await quick.memsyncJson(["--store", store, "get", edited]);
    assert.match(got.found[0].memory.content, /^edited in round \d+/);
  });
});
