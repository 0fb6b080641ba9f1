import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isBrief, quickRoute } from "../../src/faces/cli/quick.ts";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, filesUnder, hasCommand, memsync, newStore, tempDir } from "../helpers/env.ts";
import { relatedPair } from "../helpers/related-pair.ts";
import { SHARDS, shardedStore } from "../helpers/sharded-store.ts";
import { PROSE_MEMORIES } from "../fixtures/prose-memories.ts";

// A plain `get ID...` skips the command-line parser (faces/cli/quick.ts). It must answer exactly
// as the parser's path does: each case runs the binary twice, the second time with a trailing
// "--", which only the parser reads (nothing follows it, so the command is the same), and the two
// runs must agree on stdout, stderr and exit code.

describe("quick get: the same answers as through the parser", () => {
  const { store, a, b, missing } = relatedPair();
  const cases: string[][] = [
    ["get", a],
    ["open", b, "--json"],
    ["--json", "get", a, b],
    ["get", a.slice(-12)],
    ["get", a.slice(0, 13)],
    ["get", missing],
    ["get", a, missing, "--json"],
    ["get", "not-an-id"],
    ["get", "a"],
    ["get", "zzz", "--json"],
  ];
  for (const args of cases) {
    test(args.join(" "), () => {
      // an id's tail of hex digits with no letter (1 run in ~300: "407775402779") reads as a
      // number, which only the parser takes (quick.ts readsAsNumber): both must still answer alike
      const numeric = args.some((x) => x !== "" && Number(x) * 0 === 0);
      if (numeric) assert.equal(quickRoute(["--store", store, ...args]), null, "a word that reads as a number takes the parser");
      else assert.ok(quickRoute(["--store", store, ...args]), "this form takes the quick path");
      assert.equal(quickRoute(["--store", store, ...args, "--"]), null, "with -- it takes the parser");
      const quick = memsync(["--store", store, ...args]);
      const parsed = memsync(["--store", store, ...args, "--"]);
      assert.deepEqual(quick, parsed);
    });
  }
  test("a found memory prints and exits 0; a missing one exits as not found", () => {
    const r = memsync(["--store", store, "get", a]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /cursor pagination/);
    assert.notEqual(memsync(["--store", store, "get", missing]).code, 0);
  });
  test("--store=DIR is read as --store DIR", () => {
    assert.deepEqual(memsync([`--store=${store}`, "get", a]), memsync(["--store", store, "get", a]));
  });
});

// On a settled store a plain get of full ids is answered by faces/cli/commands/settled-get.ts
// alone (tests/mcp/cold-start.test.ts: none of the usual path's modules): the same answers again,
// the store named by --store, by MEMSYNC_HOME, and with a busy timeout of its own.
describe("quick get on a settled store: the same answers as through the parser", async () => {
  const { store, a, b, missing } = relatedPair();
  await new Promise((r) => setTimeout(r, 150));
  memsync(["--store", store, "get", a]); // the folders recorded past their racy window
  const cases: [string[], Record<string, string>][] = [
    [["--store", store, "get", a], {}],
    [["--store", store, "get", b, a, b, "--json"], {}],
    [["--store", store, "get", ` ${a.toUpperCase()}`, missing], {}],
    [["--store", store, "--json", "open", missing], {}],
    [["get", a], { MEMSYNC_HOME: store }],
    [["get", b, "--json"], { MEMSYNC_HOME: store, MEMSYNC_BUSY_TIMEOUT_MS: "250" }],
  ];
  for (const [args, env] of cases) {
    test(`${args.join(" ")} ${JSON.stringify(env)}`, () => {
      assert.ok(quickRoute(args), "this form takes the quick path");
      const quick = memsync(args, { env });
      assert.deepEqual(quick, memsync([...args, "--"], { env }));
      assert.equal(quick.code, args.includes(missing) ? 3 : 0, quick.stderr);
    });
  }

  // where the settled read gives up after opening the index (a memory file edited by hand), the
  // Store's path answers and the settled read is not tried a second time: as many opens of
  // index.db as through the parser, whose path tries it once
  test("a get after a hand edit opens the index as often as through the parser, and shows the edit", { skip: !hasCommand("strace") && "needs strace" }, () => {
    const file = filesUnder(path.join(store, "memories"), ".json").find((f) => f.includes(a))!;
    const indexOpens = (args: string[], text: string): { opens: number; stdout: string } => {
      const record = JSON.parse(fs.readFileSync(file, "utf8"));
      fs.writeFileSync(file, `${JSON.stringify({ ...record, content: text }, null, 2)}\n`);
      const out = path.join(tempDir(), "strace.txt");
      const r = spawnSync("strace", ["-f", "-qq", "-e", "trace=openat,open", "-o", out, BIN, "--store", store, ...args], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      return { opens: fs.readFileSync(out, "utf8").split("\n").filter((l) => /\/index\.db"/.test(l)).length, stdout: r.stdout };
    };
    const quick = indexOpens(["get", a], "Use cursor pagination, edited by hand once");
    const parsed = indexOpens(["get", a, "--"], "Use cursor pagination, edited by hand twice");
    assert.match(quick.stdout, /edited by hand once/);
    assert.match(parsed.stdout, /edited by hand twice/);
    assert.ok(parsed.opens >= 2, `the parser's path: the settled read's open and the Store's (${parsed.opens})`);
    assert.equal(quick.opens, parsed.opens);
  });
});

// A plain save, the same way: each form saves into two fresh stores, once quick and once through
// the parser; the outputs and the record files must be the same but for the new id and times.
describe("quick save: the same memory and output as through the parser", () => {
  const same = (text: string, store: string) =>
    text
      .replaceAll(store, "STORE")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "ID")
      .replace(/"(created_at|last_used|updated_at|at)": \d+/g, '"$1": T');
  const recordOf = (store: string) => {
    const files = filesUnder(path.join(store, "memories"), ".json");
    assert.equal(files.length, 1);
    return same(fs.readFileSync(files[0]!, "utf8"), store);
  };
  const cases: string[][] = [
    ["save", "Use cursor pagination for list endpoints", "--tag", "api", "-t", "db,paging", "--json"],
    ["--json", "save", "Retry", "the", "billing", "worker", "--tag=ops"],
    ["save", "Prefer small modules with names that explain themselves"],
  ];
  for (const args of cases) {
    test(args.join(" "), () => {
      const root = tempDir();
      const [quick, parsed] = [path.join(root, "quick"), path.join(root, "parsed")];
      assert.ok(quickRoute(["--store", quick, ...args]), "this form takes the quick path");
      const q = memsync(["--store", quick, ...args]);
      const p = memsync(["--store", parsed, ...args, "--"]);
      assert.equal(q.code, 0, q.stderr);
      assert.deepEqual({ ...q, stdout: same(q.stdout, quick), stderr: same(q.stderr, quick) }, { ...p, stdout: same(p.stdout, parsed), stderr: same(p.stderr, parsed) });
      assert.equal(recordOf(quick), recordOf(parsed));
    });
  }
});

// A plain save into a settled store whose records go to shard folders: the quick route loads
// commands/save-one.ts, not write.ts, and the save writes its file and journal entry alone
// (ops/save-unindexed.ts). Each form runs in one such store quick and in another through the
// parser: the same exit code, output and error, the same record file and journal entry but for
// the new id and times, and where the save is refused, nothing changed in either.
describe("quick save into a settled store: the same answers as through the parser", () => {
  const stores = { quick: shardedStore(), parsed: shardedStore() };
  const same = (text: string, store: string) =>
    text
      .replaceAll(store, "STORE")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "ID")
      .replace(/[0-9a-f]{2}\/ID/g, "SHARD/ID")
      .replace(/(\\?)"(created_at|last_used|updated_at|at)(\\?)": ?\d+/g, '$1"$2$3": T')
      .replace(/"redo":\{[^}]*\}/g, '"redo":R')
      .replace(/"message":"save: [0-9a-f]{8} /g, '"message":"save: SHORT ');
  const files = (store: string) => SHARDS.flatMap((sh) => fs.readdirSync(path.join(store, "memories", sh)).map((n) => `memories/${sh}/${n}`));
  const journalText = (store: string) => (fs.existsSync(path.join(store, ".memsync/journal.jsonl")) ? fs.readFileSync(path.join(store, ".memsync/journal.jsonl"), "utf8") : "");
  /** What a save changed in the store: its new record files' text and its journal lines, made comparable. */
  const run = (which: "quick" | "parsed", args: string[], env: Record<string, string>) => {
    const store = stores[which];
    const [before, journalBefore] = [new Set(files(store)), journalText(store)];
    const r = memsync(["--store", store, ...args, ...(which === "parsed" ? ["--"] : [])], { env });
    const added = files(store).filter((f) => !before.has(f));
    return {
      code: r.code,
      stdout: same(r.stdout, store),
      stderr: same(r.stderr, store),
      files: added.map((f) => same(fs.readFileSync(path.join(store, f), "utf8"), store)),
      journal: same(journalText(store).slice(journalBefore.length), store),
    };
  };
  const cases: [string, string[], Record<string, string>, number][] = [
    ["tags and --json", ["save", "Use cursor pagination for list endpoints", "--tag", "api", "-t", "db,paging", "--json"], {}, 0],
    ["text of many words, a secret redacted", ["--json", "save", "Rotate", "the", "key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"], {}, 0],
    ["a text long enough for a gist", ["save", PROSE_MEMORIES[0]!], {}, 0],
    ["a text that is all private", ["save", "<private>the staging password</private>"], {}, -1],
    ["a text over the limit", ["save", "x".repeat(50_001)], {}, -1],
    ["a tag over the limit, --json", ["save", "Tagged too long", "--tag", "t".repeat(101), "--json"], {}, -1],
    ["too many tags", ["save", "Tagged too often", "--tag", Array.from({ length: 51 }, (_, i) => `t${i}`).join(",")], {}, -1],
    ["killed after the file is written", ["save", "Killed between the file and the journal"], { MEMSYNC_FAULT: "record" }, -1],
  ];
  for (const [label, args, env, code] of cases) {
    test(label, () => {
      assert.ok(quickRoute(["--store", stores.quick, ...args]), "this form takes the quick path");
      const quick = run("quick", args, env);
      const parsed = run("parsed", args, env);
      assert.deepEqual(quick, parsed);
      if (code === 0) {
        assert.equal(quick.code, 0, quick.stderr);
        assert.equal(quick.files.length, 1);
        assert.match(quick.journal, /"op":"save"/);
        if (label.includes("gist")) assert.match(quick.files[0]!, /"gist": "/, "a gist was made");
      } else {
        assert.notEqual(quick.code, 0);
        if (env.MEMSYNC_FAULT) return; // the fault's exit: the file written, the journal not yet (tests/cli/save-unindexed.test.ts)
        assert.match(quick.stderr, /^memsync: [^\n]+\n$/, "one line");
        assert.deepEqual([quick.files, quick.journal], [[], ""], "a refused save changes nothing");
      }
    });
  }
});

// A plain status, the same way: a healthy store, one with a record file edited in place and a
// temp file left by a write, and a folder that is no store (unavailable: its own exit code).
describe("quick status: the same answers as through the parser", () => {
  const store = newStore();
  memsync(["save", "Use cursor pagination for list endpoints"], { env: { MEMSYNC_HOME: store } });
  const damaged = newStore();
  memsync(["save", "Retry the billing worker's connection with backoff"], { env: { MEMSYNC_HOME: damaged } });
  const file = filesUnder(path.join(damaged, "memories"), ".json")[0]!;
  fs.writeFileSync(file, "{ not json");
  fs.writeFileSync(path.join(path.dirname(file), ".left-by-a-write.json.tmp"), "x");
  memsync(["--store", damaged, "status"]); // the index takes the damage in before the comparisons
  const none = path.join(tempDir(), "no-store-here");
  for (const [label, root] of [["healthy", store], ["degraded", damaged], ["unavailable", none]] as const) {
    for (const args of [["status"], ["status", "--json"], ["--json", "status"]]) {
      test(`${label}: ${args.join(" ")}`, () => {
        assert.ok(quickRoute(["--store", root, ...args]), "this form takes the quick path");
        const quick = memsync(["--store", root, ...args]);
        const parsed = memsync(["--store", root, ...args, "--"]);
        assert.deepEqual(quick, parsed);
        if (label === "healthy") assert.equal(quick.code, 0, quick.stderr);
        else assert.match(quick.stdout, label === "degraded" ? /degraded/ : /unavailable/);
      });
    }
  }
});

test("the version line: the same as through the parser", () => {
  for (const form of ["--version", "-v", "version"]) {
    assert.ok(quickRoute([form]), form);
    const quick = memsync([form]);
    assert.equal(quick.code, 0);
    assert.match(quick.stdout, /^memsync \d+\.\d+\.\d+/);
    assert.deepEqual(quick, memsync([form, "--"]), form);
  }
});

describe("quick route: only the forms it reads exactly", () => {
  const id = "01936552-35ba-7a03-b44b-d4095743496d";
  test("forms the parser must read", () => {
    for (const argv of [
      ["get"], // no id: the parser's usage error
      ["get", id, "--help"],
      ["get", id, "-h"],
      ["get", id, "--scores"],
      ["get", id, "-"],
      ["get", "1234"], // mri reads it as a number
      ["get", "1e5"],
      ["--store", "007", "get", id],
      ["--store", id, "--store", id, "get", id],
      ["--json", "--json", "get", id],
      ["save", "retry", "3", "times"], // "3" would become a number
      ["save", "text", "--type", "decision"],
      ["save", "text", "--tag", "-x"],
      ["save", "--tag", "a"],
      ["save", "-", "--tag", "a"],
      ["save", "-"], // standard input: write.ts's path reads it
      ["save", ""],
      ["save", " "],
      ["save", "text", "--"],
      ["save", "--input", "records.json"],
      ["save", "text", "--entity", "billing"],
      ["save", "text", "--scope", "local"],
      ["recall", id],
      ["get", id, "--"],
      ["--version", "--json"],
      ["get", id, "--version"],
      ["status", "now"],
      ["status", "--verbose"],
      ["status", "--"],
      [],
    ]) assert.equal(quickRoute(argv), null, argv.join(" "));
  });
  test("forms it takes", () => {
    for (const argv of [["get", id], ["open", id, id], ["--store", "/tmp/s", "get", id, "--json"], ["hook", "UserPromptSubmit"], ["--store", "/x", "hook", "Stop"], ["merge-driver", "a", "b", "c", "d", "e"], ["save", "text", "-t", "a", "--tag=b", "--json"], ["status"], ["--store", "/x", "status", "--json"]]) {
      assert.notEqual(quickRoute(argv), null, argv.join(" "));
    }
  });
});

// The binary starts with a reluctant JIT (scripts/build.ts); only commands that always run briefly
// keep it, every other asks for the usual policy before its work (src/main.ts).
describe("brief commands: the ones that keep the reluctant JIT", () => {
  const id = "01936552-35ba-7a03-b44b-d4095743496d";
  test("brief", () => {
    for (const argv of [["get", id], ["hook", "UserPromptSubmit"], ["save", "Use cursor pagination"], ["save", "x", "--tag", "a", "--json"], ["--version"], ["-v"], ["version"], ["status"], ["--store", "/x", "status", "--json"], ["recall", "pagination"], ["--json", "recall", "connection timeout", "--limit", "3"],
      // the short reads measured cheaper reluctant at 1k and 50k (brief35)
      ["search", "connection", "timeout"], ["--store", "/x", "search", "kestrel", "--limit", "0", "--json"], ["context", "--project", "billing"], ["list"], ["list", "--limit", "0"],
      ["graph", "--offset", "20"], ["history", id], ["score", id], ["conflicts"], ["settings"]]) {
      assert.ok(isBrief(argv), argv.join(" "));
    }
  });
  test("not brief: anything that may run long", () => {
    for (const argv of [["save", "--input", "records.json"], ["save", "--input=-"], ["import", "x.jsonl"], ["serve"], ["mcp"], ["sync"], ["consolidate"], ["status", "--verbose"], [],
      ["export", "jsonl", "out.jsonl"], ["reindex"], ["gc"], ["backfill-gists"], ["promote"], ["pull"], ["push"], ["doctor"]]) {
      assert.equal(isBrief(argv), false, argv.join(" "));
    }
  });
});
