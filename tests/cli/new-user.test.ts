import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, binaryThenInProcess, EDGE_BIN, memsync as memsyncProcess, git, memsyncCase, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// The command line as a new user meets it (issue 10): short ids everywhere, help and version,
// text beginning with "-", negative option values, save --input with many records, the project
// save takes from the working directory, and the temp files an interrupted run leaves.

const A = "0192f4c8-6a1e-7c3a-9b1d-2f6e1a2b3c4d";
const B = "0192f4c8-6a1e-7c3a-9b1d-9f9e1a2b3c4d";
const C = "0192f4c9-0000-7c3a-9b1d-111111111111";

/** A store holding A, B, C (A and B share their last 8 digits and their first 12). */
async function storeWithIds(): Promise<string> {
  const store = newStore();
  const input = [A, B, C].map((id) => JSON.stringify({ id, content: `memory ${id}`, project: null })).join("\n");
  assert.equal((await memsync(["--store", store, "save", "--input", "-"], { input })).code, 0);
  return store;
}

const oneLine = (stderr: string) => assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);

describe("short ids in every command", () => {
  test("a leading prefix (dashes optional) or the trailing digits work in get, touch, update, archive, score, relate, unrelate and delete", async () => {
    const store = await storeWithIds();
    const run = async (...args: string[]) => await memsyncJson(["--store", store, ...args]);
    assert.equal((await run("get", "0192f4c9")).found[0].memory.id, C, "leading digits");
    assert.equal((await run("get", "0192f4c9-0000")).found[0].memory.id, C, "leading digits with the dash");
    assert.equal((await run("get", "111111111111")).found[0].memory.id, C, "trailing digits");
    assert.equal((await run("touch", "2f6e1a2b3c4d")).memories[0].id, A);
    assert.equal((await run("update", "9f9e1a2b3c4d", "--importance", "high")).memories[0].importance, "high");
    assert.equal((await run("score", "0192f4c9")).scores[0].id, C);
    const rel = (await run("relate", "2f6e1a2b3c4d", "0192f4c9", "--type", "supports")).relation;
    assert.deepEqual([rel.from_memory_id, rel.to_memory_id], [A, C]);
    assert.deepEqual((await run("unrelate", rel.id.slice(0, 13))).removed, [rel.id], "a relation's id abbreviated too");
    assert.equal((await run("archive", "9f9e1a2b3c4d")).memories[0].id, B);
    assert.deepEqual((await run("delete", "111111111111")).deleted, [C]);
    // full ids still work
    assert.equal((await run("get", A)).found[0].memory.id, A);
  });

  test("promote and split take them too", async () => {
    const store = await storeWithIds();
    const vault = tempDir();
    const promoted = await memsyncJson(["--store", store, "promote", "2f6e1a2b3c4d", "--vault", vault, "--claim-maintainer"]);
    assert.equal(promoted.promoted[0].id, A);
    const split = await memsyncJson(["--store", store, "split", "0192f4c9", "--part", "first part", "--part", "second part"]);
    assert.equal(split.original, C);
  });

  test("an abbreviation that fits several lists the candidates (exit 5); none: exit 3; bad input: one line, exit 4", async () => {
    const store = await storeWithIds();
    for (const [i, cmd] of [["touch"], ["update", "--importance", "low"], ["delete"], ["archive"], ["score"]].entries()) {
      const [name, ...rest] = cmd;
      const r = await memsyncCase(i, ["--store", store, name!, "1a2b3c4d", ...rest]);
      assert.equal(r.code, 5, `${name}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^memsync: short id 1a2b3c4d fits 2 memories \\(${A}, ${B}\\): give more digits or the full id\\n$`));
    }
    const prefix = await memsync(["--store", store, "relate", "0192f4c8-6a1e", C]);
    assert.equal(prefix.code, 5, "a leading prefix fits both too");
    assert.match(prefix.stderr, /fits 2 memories/);
    const none = await memsync(["--store", store, "touch", "abcdef12"]);
    assert.equal(none.code, 3);
    assert.match(none.stderr, /^memsync: no memory id starts or ends with abcdef12\n$/);
    for (const [i, bad] of ["../x", "1a2b3", "zzzzzzzz", `${A}0`].entries()) {
      const r = await memsyncCase(i, ["--store", store, "touch", bad]);
      assert.equal(r.code, 4, bad);
      assert.match(r.stderr, /^memsync: invalid id .*at least 6 of its hex digits from its start or its end/);
      oneLine(r.stderr);
    }
    // nothing changed by any refusal
    assert.equal((await memsyncJson(["--store", store, "get", A])).found[0].memory.use_count, 0);
  });
});

describe("help, version, usage", () => {
  test("memsync alone prints a short usage (at most 25 lines, exit 2); help and version are commands", async () => {
    const bare = await memsync([]);
    assert.equal(bare.code, 2);
    const lines = bare.stdout.trimEnd().split("\n");
    assert.ok(lines.length <= 25, `${lines.length} lines`);
    assert.match(bare.stdout, /help \[COMMAND\]/);
    const help = await memsync(["help"]);
    assert.equal(help.code, 0);
    assert.equal(help.stdout, (await memsync(["--help"])).stdout);
    assert.match(help.stdout, /Exit codes:/);
    for (const c of ["save", "recall", "gc", "promote", "consolidate", "split", "hooks"]) assert.match(help.stdout, new RegExp(`^  ${c}\\b`, "m"), c);
    assert.equal((await memsync(["version"])).stdout, (await memsync(["--version"])).stdout);
  });

  test("a command's help starts with what it does, by help COMMAND or COMMAND --help", async () => {
    const save = await memsync(["help", "save"]);
    assert.equal(save.code, 0);
    assert.match(save.stdout, /^Store new memories as given/);
    assert.match(save.stdout, /\nUsage: memsync save \[\.\.\.text\] \[options\]\n/);
    assert.match(save.stdout, /--input <file>/);
    assert.equal((await memsync(["save", "--help"])).stdout, save.stdout);
    assert.match((await memsync(["open", "--help"])).stdout, /^Memories by id \(full or abbreviated\), with their incoming and outgoing relations\.\n/);
    assert.match((await memsync(["help", "lst"])).stderr, /did you mean list\?/);
  });

  test("a mistyped command gets a suggestion (exit 2); no message repeats memsync's name", async () => {
    for (const [i, [typed, meant]] of ([["lst", "list"], ["stauts", "status"], ["serach", "search"], ["remeber", "remember"]] as const).entries()) {
      const r = await memsyncCase(i, [typed]);
      assert.equal(r.code, 2, typed);
      assert.equal(r.stderr, `memsync: unknown command "${typed}": did you mean ${meant}? (see memsync help)\n`);
    }
    assert.equal((await memsync(["frobnicate"])).stderr, 'memsync: unknown command "frobnicate" (see memsync help)\n');
    const store = newStore();
    for (const [i, args] of [["settings", "a", "b", "c"], ["save"], ["gc", "--limit", "-1"]].entries()) {
      const r = await memsyncCase(i, ["--store", store, ...args]);
      assert.doesNotMatch(r.stderr, /memsync: memsync/, args.join(" "));
    }
    assert.doesNotMatch((await memsync(["--store", store, "gc"], { command: [EDGE_BIN] })).stderr, /memsync: memsync/);
  });

  test("--version names memsync's version and the runtime's own (not a Node-compat number)", async () => {
    const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const v = (await memsync(["--version"])).stdout;
    assert.match(v, new RegExp(`^memsync ${pkg.version.replace(/\./g, "\\.")}, bun \\d+\\.\\d+\\.\\d+\\S* on \\w+-\\w+\\n$`));
    assert.doesNotMatch(v, /bun-v|v\d+\.\d+\.\d+/);
    const bun = (globalThis as { Bun?: { version: string } }).Bun;
    if (bun) assert.ok(v.includes(`bun ${bun.version} `), `${v} (the tests run on bun ${bun.version}, which built the binary)`);
  });

  test("the edge build's help lists only its commands", async () => {
    const help = await memsync(["help"], { command: [EDGE_BIN] });
    assert.equal(help.code, 0);
    for (const c of ["save", "recall", "sync", "touch"]) assert.match(help.stdout, new RegExp(`^  ${c}\\b`, "m"), c);
    for (const c of ["gc", "promote", "consolidate", "split", "maintainer"]) assert.doesNotMatch(help.stdout, new RegExp(`^  ${c}\\b`, "m"), c);
    assert.doesNotMatch((await memsync([], { command: [EDGE_BIN] })).stdout, /\bgc\b|promote|consolidate/);
    const gcHelp = await memsync(["help", "gc"], { command: [EDGE_BIN] });
    assert.equal(gcHelp.code, 6);
    assert.match(gcHelp.stderr, /^memsync: gc is maintenance, which this edge build/);
  });
});

describe("arguments", () => {
  test("text beginning with - is saved after --; options before -- still count", async () => {
    const store = newStore();
    const saveJson = async (...args: string[]) => JSON.parse((await memsync(["--store", store, "--json", "save", ...args])).stdout).memory;
    const out = await saveJson("--tag", "cli", "--", "-x is a flag");
    assert.equal(out.content, "-x is a flag");
    assert.deepEqual(out.meta.tags, ["cli"]);
    assert.equal((await saveJson("--", "--json", "is", "-3")).content, "--json is -3");
  });

  test("a .env or bunfig.toml in the working folder changes nothing: the binary reads neither (a repository's own files cannot redirect the store or preload code)", async () => {
    const here = tempDir();
    const home = tempDir("memsync-home-");
    const elsewhere = path.join(here, "elsewhere");
    fs.writeFileSync(path.join(here, ".env"), `MEMSYNC_HOME=${elsewhere}\n`);
    // Bun's default for a compiled program: a preload named here would run (or, missing, fail the start)
    fs.writeFileSync(path.join(here, "bunfig.toml"), 'preload = ["./missing-preload.ts"]\n');
    // the binary's own start is what this checks: always a process
    const r = memsyncProcess(["save", "kept where the environment says"], { cwd: here, env: { HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.existsSync(elsewhere), false, "no store made where .env points");
    assert.equal((await memsyncJson(["--store", path.join(home, ".memsync"), "list"])).memories.length, 1, "the store is ~/.memsync");
  });

  test("recall of a query with no meaningful word prints nothing and exits 0", async () => {
    const store = newStore();
    await memsyncJson(["--store", store, "save", "the cache is warm"]);
    for (const q of ["?!", "the and of", "..."]) {
      const r = await memsync(["--store", store, "recall", q]);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, "", ""], q);
    }
  });

  test("a negative number for a numeric option is judged by the command (exit 2), not an unknown option", async () => {
    const store = newStore();
    const cases: [string[], RegExp][] = [
      [["list", "--limit", "-3"], /^memsync: --limit must be ≥ 0, got "-3"\n$/],
      [["search", "x", "--limit", "-1"], /--limit must be ≥ 0/],
      [["recall", "x", "--budget", "-5"], /--budget must be ≥ 0/],
      [["save", "x", "--confidence", "-0.5"], /--confidence must be ≥ 0/],
      [["gc", "--limit", "-2"], /--limit must be ≥ 0/],
    ];
    // the first through the binary, the rest of the sweep through the same CLI in-process
    for (const [i, [args, msg]] of cases.entries()) {
      const r = await memsyncCase(i, ["--store", store, ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, msg);
    }
    assert.equal((await memsyncJson(["--store", store, "list"])).memories.length, 0, "nothing saved");
  });
});

describe("output into a closed pipe", () => {
  test("a reader that stops early (memsync list | head) ends memsync quietly: no crash report, its exit code kept", async () => {
    const store = newStore();
    await saveMany(store, Array.from({ length: 150 }, (_, i) => `memory ${i} ${"with a long enough text to fill a pipe ".repeat(8)}`));
    // more than a pipe holds (64 KiB), read by a head that stops after 100 bytes, as a user types it
    const r = spawnSync("bash", ["-c", `"$0" --store "$1" list --limit 0 --json | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`, BIN, store], {
      encoding: "utf8",
      env: { ...process.env, HOME: tempDir(), MEMSYNC_MACHINE: "test-machine" },
    });
    assert.deepEqual([r.stdout, r.stderr], ["0\n", ""]);
  });
});

describe("save", () => {
  test("takes the project from the working directory; a decision saved there shows in context", async () => {
    const repo = tempDir();
    git(repo, "init", "-q");
    git(repo, "remote", "add", "origin", "git@github.com:Acme/Shop.git");
    const sub = path.join(repo, "src");
    fs.mkdirSync(sub);
    const store = newStore();
    const saved = await memsyncJson(["--store", store, "save", "Use cursor pagination for list endpoints", "--type", "decision"], { cwd: sub });
    assert.equal(saved.memory.project, "github.com/acme/shop");
    assert.match((await memsync(["--store", store, "context"], { cwd: sub })).stdout, /Use cursor pagination for list endpoints/);
    // --project wins; a global memory has none; outside a repository there is none
    assert.equal((await memsyncJson(["--store", store, "save", "x", "--project", "other"], { cwd: sub })).memory.project, "other");
    assert.equal((await memsyncJson(["--store", store, "save", "y", "--scope", "global"], { cwd: sub })).memory.project, null);
    assert.equal((await memsyncJson(["--store", store, "save", "z"], { cwd: tempDir() })).memory.project, null);
  });

  test("--input takes a JSON array or JSON lines: one operation, one commit; old created_at stays old", async () => {
    const store = newStore();
    const old = 1_600_000_000;
    const records = [{ content: "imported long ago", created_at: old }, { content: "second" }, { content: "third", tags: ["a"] }];
    const out = await memsyncJson(["--store", store, "save", "--input", "-", "--tag", "imported"], { input: JSON.stringify(records), cwd: tempDir() });
    assert.equal(out.saved.length, 3);
    const first = out.saved[0].memory;
    assert.deepEqual([first.created_at, first.updated_at, first.last_used], [old, old, old]);
    assert.deepEqual(out.saved[2].memory.meta.tags, ["a", "imported"]);
    const file = path.join(tempDir(), "more.jsonl");
    fs.writeFileSync(file, '{"content": "line one"}\n\n{"content": "line two", "updated_at": 1700000000, "created_at": 1600000000}\n');
    const lines = await memsyncJson(["--store", store, "save", "--input", file], { cwd: tempDir() });
    assert.equal(lines.saved.length, 2);
    assert.equal(lines.saved[1].memory.updated_at, 1_700_000_000);
    // one journal entry each: one commit each
    await memsyncJson(["--store", store, "commit"]);
    const log = git(store, "log", "--format=%s").stdout.trim().split("\n");
    assert.deepEqual(log.slice(0, 2), ["save: 2 memories", "save: 3 memories"]);
    // an old import looks old to recall: its date is the old one
    assert.match((await memsync(["--store", store, "recall", "imported long ago"])).stdout, /\[fact 2020-09-13 /);
  });

  test("--input: a bad record refuses them all naming it (exit 4), nothing written", async () => {
    const store = newStore();
    const cases: [string, RegExp][] = [
      [JSON.stringify([{ content: "fine" }, { content: 5 }]), /^memsync: record 2: invalid memory: content/],
      ['{"content": "fine"}\n{"content": "x", "type": "opinion"}\n', /^memsync: line 2: .*type/],
      ['{"content": "fine"}\n{not json\n', /^memsync: --input -: line 2: malformed JSON/],
      [JSON.stringify([{ content: "fine" }, "text"]), /^memsync: --input -: record 2: expected a JSON object/],
      [JSON.stringify([{ content: "a", id: A }, { content: "b", id: A }]), /^memsync: record 2: id .* is also record 1's/],
    ];
    for (const [input, msg] of cases) {
      const r = await memsync(["--store", store, "save", "--input", "-"], { input });
      assert.ok(r.code === 4 || r.code === 5, `${r.code} ${r.stderr}`);
      assert.match(r.stderr, msg);
      oneLine(r.stderr);
    }
    await memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify({ id: B, content: "there already" }) });
    const taken = await memsync(["--store", store, "save", "--input", "-"], { input: JSON.stringify([{ content: "new" }, { id: B, content: "again" }]) });
    assert.equal(taken.code, 5);
    assert.match(taken.stderr, /record 2: memory .* already exists/);
    assert.deepEqual((await memsyncJson(["--store", store, "list"])).memories.map((m: { id: string }) => m.id), [B], "nothing but the one saved alone");
  });
});

describe("leftovers of an interrupted run", () => {
  test("status reports temp files at the store's top and in .memsync; the next writer removes the stale ones", async () => {
    const store = newStore();
    const old = Date.now() / 1000 - 10 * 60;
    const files = {
      oldMeta: path.join(store, `..meta.json.0a1b2c3d4e5f.tmp`),
      youngMeta: path.join(store, `..meta.json.5f4e3d2c1b0a.tmp`),
      oldMachine: path.join(store, ".memsync", `.machine.json.0a1b2c3d4e5f.tmp`),
    };
    for (const f of Object.values(files)) fs.writeFileSync(f, "{");
    fs.utimesSync(files.oldMeta, old, old);
    fs.utimesSync(files.oldMachine, old, old);
    const status = await memsyncJson(["--store", store, "status"]);
    assert.deepEqual([...status.temp_files].sort(), [".memsync/.machine.json.0a1b2c3d4e5f.tmp", "..meta.json.0a1b2c3d4e5f.tmp", "..meta.json.5f4e3d2c1b0a.tmp"].sort());
    assert.match((await memsync(["--store", store, "status"])).stdout, /temp files left by interrupted writes: 3 .*\.\.meta\.json\.0a1b2c3d4e5f\.tmp/);
    assert.equal((await memsync(["--store", store, "save", "the next writer"])).code, 0);
    assert.equal(fs.existsSync(files.oldMeta), false);
    assert.equal(fs.existsSync(files.oldMachine), false);
    assert.equal(fs.existsSync(files.youngMeta), true, "a young one may be a live write's");
    assert.deepEqual((await memsyncJson(["--store", store, "status"])).temp_files, ["..meta.json.5f4e3d2c1b0a.tmp"]);
  });
});
