import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { cortexgraphSource } from "../helpers/cortexgraph-source.ts";
import { BIN, filesUnder, git, hasCommand, initStore, memsyncAsync, tempDir } from "../helpers/env.ts";

// Issue 16: hand edits are found without a stat of every record file on every command (folder
// mtimes, trusted by the racy rule), counted on the compiled binary by strace. `status` is the
// full look, as `git status` is: it stats every file, which also shows the count sees the stats.

const RECORDS = 1500;
const PATH_STATS = new Set(["statx", "newfstatat", "fstatat64", "lstat", "stat", "stat64", "lstat64"]);

/** Stat calls by path (not fstat of an open file) of one memsync process and its threads. */
function pathStats(store: string, args: string[], env: NodeJS.ProcessEnv): number {
  const out = path.join(tempDir(), "strace.txt");
  const r = spawnSync("strace", ["-f", "-qq", "-c", "-e", "trace=%%stat", "-o", out, BIN, "--store", store, ...args], { env, encoding: "utf8" });
  assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
  let n = 0;
  for (const line of fs.readFileSync(out, "utf8").split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (PATH_STATS.has(cols.at(-1)!)) n += Number(cols[3]);
  }
  return n;
}

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
});
