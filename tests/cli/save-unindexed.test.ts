import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncJson, REPO, tempDir } from "../helpers/env.ts";
import { SHARDS, shardedStore } from "../helpers/sharded-store.ts";

// A plain save into a settled store whose new records go to shard folders writes its record file
// and journal entry alone, and leaves the index row to the next command's refresh
// (src/ops/save-unindexed.ts). The compiled binary, real files: the next command must see the
// memory at once, history must hold the save and no "edit", and a save killed midway or lost to a
// crash of the machine must be repaired by the next command, never lost.

const journal = (store: string) =>
  fs.existsSync(path.join(store, ".memsync/journal.jsonl"))
    ? fs
        .readFileSync(path.join(store, ".memsync/journal.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { op: string; paths: string[]; files?: Record<string, string | null> })
    : [];

const stamp = (p: string) => {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : "-";
};

const save = (store: string, text: string, env: Record<string, string> = {}) => memsyncJson<{ memory: { id: string; content: string }; path: string }>(["--store", store, "save", text, "--json"], { env });

/** The modules a command resolves, run from source under Bun with a preload that logs each (tests/mcp/trace-imports.ts). */
function imports(store: string, args: string[]): string {
  const trace = path.join(tempDir("memsync-trace-"), "imports.log");
  const r = memsync(["--store", store, ...args], { command: [path.join(REPO, "node_modules/.bin/bun"), "--preload", path.join(REPO, "tests/mcp/trace-imports.ts"), "src/main.ts"], env: { TRACE_FILE: trace } });
  assert.equal(r.code, 0, r.stderr);
  return fs.readFileSync(trace, "utf8");
}

const memoryFiles = (store: string) => SHARDS.flatMap((s) => fs.readdirSync(path.join(store, "memories", s)).map((n) => `memories/${s}/${n}`));

describe("a save that leaves its index row to the next command", () => {
  test("a plain save writes the record file and its journal entry, and leaves the index as it was", () => {
    const store = shardedStore();
    const index = path.join(store, ".memsync/index.db");
    const before = [stamp(index), stamp(`${index}-wal`)];
    const saved = save(store, "Retry the payment webhook with exponential backoff");
    assert.deepEqual([stamp(index), stamp(`${index}-wal`)], before, "the save wrote nothing of the index");
    assert.match(saved.path, /^memories\/[0-9a-f]{2}\/[0-9a-f-]{36}\.json$/);
    const text = fs.readFileSync(path.join(store, saved.path), "utf8");
    assert.equal(JSON.parse(text).content, "Retry the payment webhook with exponential backoff");
    const entries = journal(store);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.op, "save");
    assert.deepEqual(entries[0]!.paths, [saved.path]);
    assert.equal(entries[0]!.files?.[saved.path], text, "the entry holds the file's text");
  });

  test("the next commands see it at once, and history holds the save alone", () => {
    const store = shardedStore();
    const saved = save(store, "Paginate the orders endpoint with opaque cursors");
    // no pause: the shard folder is racy, the index has no row yet
    const got = memsyncJson<{ memories: { id: string; content: string }[] }>(["--store", store, "get", saved.memory.id, "--json"]);
    assert.equal(JSON.stringify(got).includes("Paginate the orders endpoint with opaque cursors"), true, "get shows it");
    const recalled = memsync(["--store", store, "recall", "orders endpoint cursors"]);
    assert.ok(recalled.stdout.includes(saved.memory.id.slice(-8)), `recall lists it:\n${recalled.stdout}`);
    const status = memsyncJson<{ memories: { total: number }; uncommitted_changes: number }>(["--store", store, "status", "--json"]);
    assert.equal(status.uncommitted_changes, 1, "the save's entry alone: the refresh journaled no outside edit");
    assert.deepEqual(
      journal(store).map((e) => e.op),
      ["save"],
    );
    assert.equal(memsync(["--store", store, "commit"]).code, 0);
    const log = git(store, "log", "--format=%s").stdout.trim().split("\n");
    assert.match(log[0]!, /^save: /);
    assert.ok(!log.some((s) => s.startsWith("edit")), `no edit in history: ${log.join(" | ")}`);
    assert.equal(git(store, "show", `HEAD:${saved.path}`).stdout, fs.readFileSync(path.join(store, saved.path), "utf8"));
    assert.deepEqual(journal(store), []);
  });

  test("saves in the same second, and a hand edit beside them in one of their folders, are each found once", () => {
    const store = shardedStore();
    const ids = Array.from({ length: 8 }, (_, i) => save(store, `Same-second save number ${i} about the ledger export`).memory.id);
    // a hand edit to the last save's file, right after it: an outside edit the refresh must still find
    const last = memoryFiles(store).find((p) => p.includes(ids.at(-1)!))!;
    const file = path.join(store, last);
    const edited = JSON.parse(fs.readFileSync(file, "utf8"));
    edited.content = "Same-second save number 7, edited by hand";
    fs.writeFileSync(file, `${JSON.stringify(edited, null, 2)}\n`);
    const list = memsync(["--store", store, "recall", "same-second save ledger export", "--limit", "20"]).stdout;
    for (const id of ids.slice(0, -1)) assert.ok(list.includes(id.slice(-8)), `recall lists ${id}`);
    const got = memsync(["--store", store, "get", ids.at(-1)!]).stdout;
    assert.ok(got.includes("edited by hand"), "the edit is read");
    const entries = journal(store);
    assert.deepEqual(
      entries.map((e) => e.op),
      [...ids.map(() => "save"), "edit"],
    );
    assert.deepEqual(entries.at(-1)!.paths, [last], "the hand edit alone is an outside edit");
    assert.ok(entries.at(-1)!.files?.[last]?.includes("edited by hand"));
    assert.equal(memsync(["--store", store, "commit"]).code, 0);
    assert.ok(git(store, "show", `HEAD:${last}`).stdout.includes("edited by hand"), "the edit is committed");
  });

  test("a save killed after its file is written: the next command journals the file, nothing is lost", () => {
    const store = shardedStore();
    const r = memsync(["--store", store, "save", "Killed between the file and the journal"], { env: { MEMSYNC_FAULT: "record" } });
    assert.notEqual(r.code, 0);
    const files = memoryFiles(store);
    assert.equal(files.length, 1, "the file was written");
    assert.deepEqual(journal(store), [], "no entry yet");
    const status = memsyncJson<{ uncommitted_changes: number }>(["--store", store, "status", "--json"]);
    assert.equal(status.uncommitted_changes, 1);
    assert.deepEqual(journal(store)[0]!.paths, files);
    assert.equal(memsync(["--store", store, "commit"]).code, 0);
    assert.ok(git(store, "show", `HEAD:${files[0]}`).stdout.includes("Killed between the file and the journal"));
  });

  test("a crash of the machine that lost the saved file's data: the next command writes it again from the journal", () => {
    const store = shardedStore();
    const saved = save(store, "Written again after the machine crashed");
    const file = path.join(store, saved.path);
    const text = fs.readFileSync(file, "utf8");
    const entry = journal(store)[0] as { redo?: Record<string, [number, number]> };
    assert.ok(entry.redo?.[saved.path], "the entry holds the write's redo stamp");
    // what a crash leaves: the write's own inode cut short, and the marker from another boot
    fs.truncateSync(file, 20);
    fs.writeFileSync(path.join(store, ".memsync/redo.json"), `${JSON.stringify({ boot: "an-earlier-boot", since: 0 })}\n`);
    const got = memsync(["--store", store, "get", saved.memory.id]);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(fs.readFileSync(file, "utf8"), text);
  });

  test("the save evaluates neither the Store nor the index; a get of it right after answers from the settled read", () => {
    const store = shardedStore();
    const saving = imports(store, ["save", "Rotate the signing keys every quarter"]);
    assert.match(saving, /ops\/save-unindexed\.ts/, "the trace saw the save");
    assert.doesNotMatch(saving, /store\/(store|index-db|refresh)\.ts/);
    // the quick route's save-one.ts, not write.ts and the other writing commands; no init.ts (it
    // makes a store, with the meta schemas) for a store that is there
    assert.match(saving, /commands\/save-one\.ts/);
    assert.doesNotMatch(saving, /commands\/write\.ts|ops\/init\.ts|store\/init-files\.ts/);
    // a text too short for a gist: none of the gist rules; the store's meta checked without the settled read's modules
    assert.doesNotMatch(saving, /core\/gist\.ts|gist\/rules\.ts|store\/settled-index\.ts/);
    const id = memoryFiles(store)[0]!.replace(/^.*\/(.*)\.json$/, "$1");
    const getting = imports(store, ["get", id]);
    assert.match(getting, /ops\/get-settled\.ts/, "the trace saw the settled get");
    assert.doesNotMatch(getting, /commands\/read\.ts|store\/store\.ts/, "no Store's path");
    assert.ok(memsync(["--store", store, "get", id]).stdout.includes("Rotate the signing keys every quarter"));
  });
});

describe("what the first hook after a save pays, phase by phase", () => {
  test("MEMSYNC_COLD_TRACE=1 prices the settled check, the Store's open, each phase of its refresh and its close", () => {
    const store = shardedStore();
    save(store, "Retry the payment webhook with exponential backoff");
    // no pause: the shard folder is racy and the new file has no index row yet
    const input = JSON.stringify({ session_id: "sess-1", hook_event_name: "UserPromptSubmit", cwd: REPO, prompt: "Why do we retry the payment webhook with backoff?" });
    const r = memsync(["--store", store, "hook", "UserPromptSubmit"], { input, env: { MEMSYNC_COLD_TRACE: "1" } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /exponential backoff/, "the hook recalled the memory just saved");
    const phases = r.stderr
      .split("\n")
      .map((l) => /^memsync cold-trace:\s+[\d.]+ cpu\s+[\d.]+ wall\s+(.*)$/.exec(l)?.[1])
      .filter((p): p is string => p !== undefined);
    const expected = [
      "memory folders not current",
      "withStore: modules",
      "Store.open",
      "refresh: look (folders listed)",
      "refresh: schemas",
      "refresh: lock held",
      "refresh: the look confirmed under the lock (files parsed)",
      "refresh: index rows, journal check",
      "refresh: committed, unlocked",
      "store closed",
      "total",
    ];
    assert.deepEqual(
      phases.filter((p) => expected.includes(p)),
      expected,
      r.stderr,
    );
    // the settled check's failure is handed on: the Store does not stat the same folders again
    assert.ok(!phases.includes("refresh: quick check"), r.stderr);
    // the racy shard folder is listed once: under the lock the look's plan is confirmed, not made again
    assert.ok(!phases.includes("refresh: plan under the lock (files parsed)"), r.stderr);
  });
});
