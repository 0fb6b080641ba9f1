import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { getByIds } from "../../src/ops/get.ts";
import { getSettled } from "../../src/ops/get-settled.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { trusted } from "../../src/store/racy.ts";
import { BIN, filesUnder, hasCommand, memsync, tempDir } from "../helpers/env.ts";
import { relatedPair } from "../helpers/related-pair.ts";

// A store copied with its index (cp -a, a backup restored) has every record file at a new inode
// with its old mtime and size: the index's rows no longer prove a file unchanged by its stat. The
// first read that compares a memory's bytes with the indexed ones records the new inode, so the
// next plain get takes the settled read (ops/get-settled.ts) instead of the Store's path on every
// run; a file whose bytes differ is read from disk and its row left alone.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function envOf(store: string) {
  const dir = tempDir("memsync-copied-");
  return opsEnvOf({ store, vars: {}, cwd: dir, home: dir, hostName: "host", user: "tester" });
}

/** Every record folder and file past its racy window as racy.ts draws it (100 ms, 2 s for an mtime on a whole second). */
async function pastRacyWindow(store: string) {
  const paths = ["memories", "relations"].flatMap((top) => {
    const abs = path.join(store, top);
    return [abs, ...filesUnder(abs).map((f) => (path.isAbsolute(f) ? f : path.join(abs, f))), ...fs.readdirSync(abs, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(abs, e.name))];
  });
  while (!paths.every((p) => trusted(Math.floor(fs.statSync(p).mtimeMs), Date.now()))) await sleep(20);
}

/** A settled store (its index trusts every folder and file), copied with cp -a: the copy's index holds the original's inodes. */
async function copiedPair() {
  const pair = relatedPair();
  await pastRacyWindow(pair.store);
  memsync(["--store", pair.store, "get", pair.a]); // records the folders, trusted
  assert.ok(getSettled(envOf(pair.store), [pair.a]), "the original store is settled (the premise)");
  const copy = path.join(tempDir("memsync-copy-"), "store");
  const cp = spawnSync("cp", ["-a", pair.store, copy], { encoding: "utf8" });
  assert.equal(cp.status, 0, cp.stderr);
  return { ...pair, copy, env: envOf(copy) };
}

const memoryFile = (store: string, id: string) =>
  filesUnder(path.join(store, "memories"))
    .map((f) => (path.isAbsolute(f) ? f : path.join(store, "memories", f)))
    .find((f) => f.endsWith(`${id}.json`))!;

/** Path stat calls (statx and its kin) of one memsync process, counted by strace. */
function pathStats(store: string, args: string[]): { stats: number; stdout: string } {
  const out = path.join(tempDir(), "strace.txt");
  const r = spawnSync("strace", ["-f", "-qq", "-c", "-e", "trace=%stat", "-o", out, BIN, "--store", store, ...args], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  let stats = 0;
  for (const line of fs.readFileSync(out, "utf8").split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (/stat/.test(cols.at(-1) ?? "") && Number.isFinite(Number(cols[3]))) stats += Number(cols[3]);
  }
  return { stats, stdout: r.stdout };
}

describe("get on a copied store", () => {
  test("the first get proves the copied file unchanged and records its inode: the second takes the settled read, same answer", async () => {
    const { a, copy, env } = await copiedPair();
    assert.equal(getSettled(env, [a]), null, "the copy's rows hold the original's inodes (the premise)");
    const first = memsync(["--store", copy, "get", a, "--json"]);
    assert.equal(first.code, 0, first.stderr);
    const settled = getSettled(env, [a]);
    assert.ok(settled, "after one get the copy is settled again");
    const second = memsync(["--store", copy, "get", a, "--json"]);
    assert.equal(second.stdout, first.stdout, "the same answer");
    assert.deepEqual(settled, await getByIds(env, [a]));
    assert.equal(settled.found[0]!.memory.content, "Use cursor pagination for list endpoints");
  });

  test("the second get stats fewer paths than the first (strace)", { skip: !hasCommand("strace") && "needs strace" }, async () => {
    const { a, copy } = await copiedPair();
    const first = pathStats(copy, ["get", a]);
    const second = pathStats(copy, ["get", a]);
    const third = pathStats(copy, ["get", a]);
    assert.equal(second.stdout, first.stdout);
    assert.ok(second.stats < first.stats, `second get ${second.stats} stats, first ${first.stats}`);
    assert.equal(third.stats, second.stats, "and stays on the settled read");
  });

  test("a copied file whose bytes differ (same size, mtime put back) is read from disk and its row not healed", async () => {
    const { a, store, copy, env } = await copiedPair();
    const file = memoryFile(copy, a);
    const before = fs.statSync(file);
    const text = fs.readFileSync(file, "utf8");
    const edited = text.replace("cursor pagination", "keyset pagination");
    assert.equal(edited.length, text.length, "the same size (the check can fail)");
    fs.writeFileSync(file, edited);
    fs.utimesSync(file, before.atime, before.mtime);
    for (let i = 0; i < 2; i++) {
      const got = JSON.parse(memsync(["--store", copy, "get", a, "--json"]).stdout);
      assert.equal(JSON.stringify(got).includes("Use keyset pagination for list endpoints"), true, `get ${i + 1} reads the file`);
      assert.equal(getSettled(env, [a]), null, "a row whose bytes did not match stays unproved");
    }
    assert.ok(getSettled(envOf(store), [a]), "the original is untouched");
  });
});
