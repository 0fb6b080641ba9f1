import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { cortexgraphSource } from "../helpers/cortexgraph-source.ts";
import { BIN, filesUnder, git, hasCommand, initStore, memsyncAsync, readMemoryFile, saveMany, tempDir } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";

// Issue 16, counted on the compiled binary by strace: hand edits are found without a stat of
// every record file on every command (folder mtimes, trusted by the racy rule; `status` is the full
// look, as `git status` is: it stats every file, which also shows the count sees the stats); and a
// pull writes files as git's checkout does, with one durable point instead of an fsync per file.

// Enough records that the store is many folders: the first command after a save may list that
// save's folder again and stat its files (the racy rule: the save recorded the folder within
// 100 ms of changing it), a cost of one folder (~1,000 flat files at most), not of the store.
const RECORDS = 5000;
const PATH_STATS = new Set(["statx", "newfstatat", "fstatat64", "lstat", "stat", "stat64", "lstat64"]);
const SYNCS = new Set(["fsync", "fdatasync", "syncfs", "sync", "sync_file_range"]);

/** Calls of the named system calls (of the strace class `trace`) by one memsync process, its threads and children. */
function countCalls(store: string, args: string[], env: NodeJS.ProcessEnv, trace: string, names: Set<string>): number {
  const out = path.join(tempDir(), "strace.txt");
  const r = spawnSync("strace", ["-f", "-qq", "-c", "-e", `trace=${trace}`, "-o", out, BIN, "--store", store, ...args], { env, encoding: "utf8" });
  assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
  let n = 0;
  for (const line of fs.readFileSync(out, "utf8").split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (names.has(cols.at(-1)!)) n += Number(cols[3]);
  }
  return n;
}

/** Stat calls by path (not fstat of an open file). */
const pathStats = (store: string, args: string[], env: NodeJS.ProcessEnv) => countCalls(store, args, env, "%%stat", PATH_STATS);

describe("stat calls per command", () => {
  test(`on ${RECORDS} records: save, sync, recall and get stat far fewer files than the store holds; a file replaced by hand is still committed by the next sync`, { skip: !hasCommand("strace") && "needs strace", timeout: 300_000 }, async () => {
    const home = tempDir("memsync-home-");
    const env = { ...process.env, HOME: home };
    const store = initStore();
    const imported = await memsyncAsync(["--store", store, "import", "cortexgraph", cortexgraphSource(RECORDS)], { env });
    assert.equal(imported.code, 0, imported.stderr);
    const hub = path.join(tempDir(), "hub.git");
    assert.equal(git(path.dirname(hub), "init", "-q", "--bare", "-b", "main", hub).status, 0);
    assert.equal((await memsyncAsync(["--store", store, "remote", "set", hub], { env })).code, 0);
    const first = await memsyncAsync(["--store", store, "sync"], { env });
    assert.equal(first.code, 0, first.stderr);

    const files = filesUnder(path.join(store, "memories"), ".json");
    assert.ok(files.length >= RECORDS, `${files.length} record files`);
    const bound = RECORDS / 3;
    const counts: Record<string, number> = {
      save: pathStats(store, ["save", "the retry budget of the billing worker is five attempts"], env),
      sync: pathStats(store, ["sync"], env),
      recall: pathStats(store, ["recall", "retry budget billing"], env),
      get: pathStats(store, ["get", path.basename(files[0]!, ".json")], env),
    };
    for (const [cmd, n] of Object.entries(counts)) assert.ok(n < bound, `${cmd}: ${n} stat calls for ${RECORDS} records (${JSON.stringify(counts)})`);
    const status = pathStats(store, ["status"], env);
    assert.ok(status >= RECORDS, `status, the full look, stats every record: ${status}`);

    // an editor's save: a new file renamed over the record (its folder's mtime moves)
    const target = files[1]!;
    const record = JSON.parse(fs.readFileSync(target, "utf8"));
    record.content = "edited by hand: the retry budget is seven attempts";
    fs.writeFileSync(`${target}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
    fs.renameSync(`${target}.tmp`, target);
    const edited = await memsyncAsync(["--store", store, "sync"], { env });
    assert.equal(edited.code, 0, edited.stderr);
    const shown = JSON.parse(git(hub, "show", `main:${path.relative(store, target)}`).stdout);
    assert.equal(shown.content, record.content);
  });

  test("a pull of 100 changed memories: a handful of fsyncs, not one per file, and every change arrives", { skip: !hasCommand("strace") && "needs strace", timeout: 300_000 }, async () => {
    const h = hub();
    const a = machine(h.root, "a", h.bare);
    const env = { MEMSYNC_MACHINE: "b" };
    const b = machine(h.root, "b", h.bare, env);
    const ids = saveMany(a, Array.from({ length: 100 }, (_, i) => `memory ${i} that the other machine changes`));
    assert.equal((await memsyncAsync(["--store", a, "sync"])).code, 0);
    assert.equal((await memsyncAsync(["--store", b, "sync"], { env })).code, 0);
    const touched = await memsyncAsync(["--store", a, "touch", ...ids]);
    assert.equal(touched.code, 0, touched.stderr);
    assert.equal((await memsyncAsync(["--store", a, "sync"])).code, 0);
    const fsyncs = countCalls(b, ["pull"], { ...process.env, HOME: tempDir("memsync-home-"), ...env }, "fsync,fdatasync,syncfs,sync,sync_file_range", SYNCS);
    // git's checkout makes ~3; memsync's intent record, git's index, the ref and the durable point a few more
    assert.ok(fsyncs < 25, `${fsyncs} fsyncs for a pull of 100 files`);
    for (const id of ids) assert.equal(readMemoryFile(b, id).use_count, readMemoryFile(a, id).use_count);
  });
});
