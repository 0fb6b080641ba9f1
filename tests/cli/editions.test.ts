import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { COMMANDS, type CommandSpec } from "../../src/faces/cli/main.ts";
import { CATALOGUE, opNamed } from "../../src/ops/catalogue/index.ts";
import { EDGE_BIN, git, memsync, memsyncJson, newStore } from "../helpers/env.ts";

// The two builds and the maintainer role: maintenance runs only in the main build, and only on
// the machine the store's shared settings name.

const edge = (args: string[], env: Record<string, string> = {}) => memsync(args, { command: [EDGE_BIN], env });

describe("edge build", () => {
  test("says it is the edge build and does everything an edge machine needs", () => {
    assert.match(edge(["--version"]).stdout, /\(edge build\)/);
    assert.doesNotMatch(memsync(["--version"]).stdout, /edge/);
    const store = newStore();
    const saved = edge(["--store", store, "save", "captured on a VPS", "--json"]);
    assert.equal(saved.code, 0, saved.stderr);
    const id = JSON.parse(saved.stdout).memory.id as string;
    assert.equal(edge(["--store", store, "touch", id]).code, 0);
    assert.equal(edge(["--store", store, "search", "VPS", "--json"]).code, 0);
    assert.equal(edge(["--store", store, "commit"]).code, 0);
  });

  test("refuses maintenance plainly, exit 6, naming the build to use, and changes nothing", () => {
    const store = newStore();
    const before = fs.readFileSync(path.join(store, ".meta.json"), "utf8");
    for (const cmd of ["maintainer", "gc", "consolidate", "split", "promote"]) {
      const r = edge(["--store", store, cmd, "--claim"]);
      if (cmd !== "maintainer" && r.stderr.includes("unknown command")) continue; // not built yet in this build
      assert.equal(r.code, 6, `${cmd}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^memsync: ${cmd} is maintenance, which this edge build \\(memsync-edge\\) leaves out: run it with the main build \\(memsync\\)`));
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
    assert.equal(fs.readFileSync(path.join(store, ".meta.json"), "utf8"), before);
  });

  test("the edge binary does not contain the maintenance modules", () => {
    const bytes = fs.readFileSync(EDGE_BIN);
    const main = fs.readFileSync(path.join(path.dirname(EDGE_BIN), "memsync"));
    // texts of the maintainer command, gc and promote (the vault writer), and the catalogue's
    // maintenance entries (ops/catalogue: gc's summary)
    for (const text of [
      "now maintains the store",
      "used since the index saw it",
      "no free note name",
      "prune or archive active memories",
      "find clusters of near-duplicate memories: a preview",
      "split a memory into atomic parts (at least two)",
      "which machine maintains this store (gc",
    ]) {
      const marker = Buffer.from(text);
      assert.ok(main.includes(marker), text);
      assert.ok(!bytes.includes(marker), text);
    }
  });
});

describe("the command line, derived from the catalogue", () => {
  const runs = (c: CommandSpec) => [c.op, ...(c.alsoRuns ?? [])].filter((n): n is string => n !== undefined);
  const name = (c: CommandSpec) => c.usage.split(" ")[0]!;

  test("every catalogue entry has a command that runs it, maintenance as such, and no command runs what is no entry", () => {
    for (const op of CATALOGUE) {
      const commands = COMMANDS.filter((c) => runs(c).includes(op.name));
      assert.ok(commands.length > 0, `no command runs ${op.name}`);
      for (const c of commands) assert.equal(Boolean(c.maintenance), op.maintenance, c.usage);
    }
    for (const c of COMMANDS) for (const n of runs(c)) assert.ok(opNamed(n), `${c.usage} runs ${n}, which is no catalogue entry`);
  });

  test("help describes each command by its entry's summary; the edge build's help lists no maintenance entry", () => {
    const lineOf = (help: string, c: CommandSpec) => help.split("\n").find((l) => l.startsWith(`  ${c.usage} `));
    const help = memsync(["help"]).stdout;
    for (const c of COMMANDS.filter((c) => c.op !== undefined && c.describe === undefined)) {
      assert.ok(lineOf(help, c)?.replace(/ \(alias: .*\)$/, "").endsWith(` ${opNamed(c.op!)!.summary}`), `${c.usage}: ${lineOf(help, c)}`);
    }
    const edgeHelp = edge(["help"]).stdout;
    const maintenance = CATALOGUE.filter((o) => o.maintenance);
    assert.ok(maintenance.length >= 6);
    for (const op of maintenance) {
      assert.ok(!edgeHelp.includes(op.summary), op.name);
      for (const c of COMMANDS.filter((c) => runs(c).includes(op.name))) assert.doesNotMatch(edgeHelp, new RegExp(`^  ${name(c)}\\b`, "m"), c.usage);
    }
    for (const c of COMMANDS.filter((c) => !c.maintenance)) assert.ok(lineOf(edgeHelp, c), `the edge help lists ${c.usage}`);
  });
});

describe("maintainer role", () => {
  test("none at first; a claim is recorded in .meta.json, one commit; another machine sees it; a takeover is said so", () => {
    const store = newStore();
    const a = { MEMSYNC_MACHINE: "laptop" };
    const b = { MEMSYNC_MACHINE: "desktop" };
    assert.equal(memsyncJson(["--store", store, "maintainer"], { env: a }).maintainer, null);
    const claimed = memsyncJson(["--store", store, "maintainer", "--claim"], { env: a });
    memsyncJson(["--store", store, "commit"]);
    assert.deepEqual(claimed, { maintainer: "laptop", machine: "laptop", is_this_machine: true, claimed: true });
    assert.equal(JSON.parse(fs.readFileSync(path.join(store, ".meta.json"), "utf8")).settings.maintainer, "laptop");
    // claiming again changes nothing
    assert.equal(memsyncJson(["--store", store, "maintainer", "--claim"], { env: a }).claimed, false);
    const seen = memsyncJson(["--store", store, "maintainer"], { env: b });
    assert.equal(seen.maintainer, "laptop");
    assert.equal(seen.is_this_machine, false);
    assert.match(memsync(["--store", store, "maintainer"], { env: b }).stdout, /^maintainer: laptop \(this is desktop\)/);
    memsyncJson(["--store", store, "maintainer", "--claim"], { env: b });
    memsyncJson(["--store", store, "commit"]);
    const log = git(store, "log", "--format=%s", "--name-only").stdout;
    assert.match(log, /^maintainer: desktop takes over from laptop\n\n\.meta\.json\n/);
    assert.match(log, /maintainer: laptop\n\n\.meta\.json\n/);
    // other fields of .meta.json survive the rewrite
    const meta = JSON.parse(fs.readFileSync(path.join(store, ".meta.json"), "utf8"));
    assert.equal(meta.storage_version, 2);
    assert.equal(meta.settings.layout, "auto");
  });
});
