import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsync, newStore, REPO, tempDir } from "../helpers/env.ts";

// The MCP SDK costs start-up: only `mcp` (and serve) may load it. Each run below is the source
// under Bun with a preload that records every module resolution; the hook, save and recall paths
// must resolve nothing of the SDK nor of faces/mcp, and `mcp` must (else the check proves nothing).

const BUN = path.join(REPO, "node_modules/.bin/bun");

function imports(args: string[], input: string, store: string): string {
  const trace = path.join(tempDir("memsync-trace-"), "imports.log");
  const r = memsync(args, { command: [BUN, "--preload", path.join(REPO, "tests/mcp/trace-imports.ts"), "src/main.ts"], input, env: { TRACE_FILE: trace, MEMSYNC_HOME: store } });
  assert.ok(fs.existsSync(trace), `no trace: ${r.stderr}`);
  return fs.readFileSync(trace, "utf8");
}

const MCP = /@modelcontextprotocol|faces\/mcp\//;

describe("cold start: the MCP SDK loads only inside mcp", () => {
  const store = newStore();
  const hookInput = JSON.stringify({ session_id: "s1", transcript_path: "/dev/null", cwd: REPO, hook_event_name: "SessionStart", source: "startup" });
  test("hook, save and recall resolve nothing of it", () => {
    for (const [args, input] of [
      [["hook", "SessionStart"], hookInput],
      [["hook", "UserPromptSubmit"], JSON.stringify({ session_id: "s1", transcript_path: "/dev/null", cwd: REPO, hook_event_name: "UserPromptSubmit", prompt: "how do we paginate?" })],
      [["save", "Use cursor pagination"], ""],
      [["recall", "pagination"], ""],
    ] as [string[], string][]) {
      const log = imports(args, input, store);
      assert.match(log, /faces\/cli\/(main|quick)\.ts/, `${args[0]}: the trace saw the run`);
      assert.doesNotMatch(log, MCP, `${args.join(" ")} must not load the MCP SDK`);
    }
  });

  test("mcp does (the check can fail)", () => {
    assert.match(imports(["mcp"], "", store), MCP);
  });
});

// Issue 16 (cold start): a command loads only what it uses. A get evaluates none of save's modules
// (gist rules, capture vocabulary, record building); a prompt that only asks about earlier work
// loads no schema library (nothing is built or validated); one that states a decision does (so
// the check can fail).
describe("cold start: each command loads only what it uses", () => {
  // valibot is one file with no imports of its own: what shows is a module importing it (or
  // core/model/valibot.ts, through which every schema module imports it)
  const SCHEMA_LIB = /-> (valibot|\S*\/valibot\.ts)$/m;
  const SAVE_SIDE = /src\/ops\/save\.ts -> |src\/core\/gist\.ts -> |src\/core\/capture\/vocabulary\.ts|src\/core\/records\.ts -> /;
  // a get runs ops/get.ts, or ops/get-settled.ts where the index is settled (full ids)
  const GET_RUN = /ops\/get(-settled)?\.ts/;
  const prompt = (text: string) => JSON.stringify({ session_id: "s1", transcript_path: "/dev/null", cwd: REPO, hook_event_name: "UserPromptSubmit", prompt: text });

  test("get loads none of save's modules", () => {
    const store = newStore();
    const id = JSON.parse(memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    const log = imports(["get", id], "", store);
    assert.ok(GET_RUN.test(log), "the trace saw get run");
    assert.doesNotMatch(log, SAVE_SIDE);
  });

  // a plain get skips the catalogue (ops/catalogue/direct.ts); an id the schema refuses takes it
  test("a plain get loads no schema library nor the catalogue; one the schema must refuse does", () => {
    const store = newStore();
    const id = JSON.parse(memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    const CATALOGUE = /ops\/catalogue\/(run|index|records)\.ts$/m;
    const plain = imports(["get", id, id.slice(-12)], "", store);
    assert.ok(GET_RUN.test(plain), "the trace saw get run");
    assert.doesNotMatch(plain, SCHEMA_LIB);
    assert.doesNotMatch(plain, CATALOGUE);
    const long = imports(["get", `${id.slice(0, 8)}${"-".repeat(200)}`], "", store);
    assert.match(long, SCHEMA_LIB);
    assert.match(long, CATALOGUE);
  });

  // a get of full ids on a settled store reads the index without the Store (ops/get-settled.ts)
  test("a plain get on a settled store loads no Store; one after a hand edit does", async () => {
    const store = newStore();
    const id = JSON.parse(memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    await new Promise((r) => setTimeout(r, 150));
    memsync(["get", id], { env: { MEMSYNC_HOME: store } }); // the relation folders recorded, past their racy window
    const STORE = /store\/(store|index-db|refresh)\.ts$/m;
    const settled = imports(["get", id], "", store);
    assert.ok(settled.includes("ops/get-settled.ts"), "the trace saw get run");
    assert.doesNotMatch(settled, STORE);
    fs.writeFileSync(path.join(store, "relations", "notes.txt"), "a file put there by hand\n");
    assert.match(imports(["get", id], "", store), STORE);
  });

  // and prints its answer without the usual command path (faces/cli/commands/settled-get.ts): no
  // read.ts, call.ts, options.ts or the direct runner, which one the settled read leaves to the Store loads
  test("a plain get on a settled store loads none of the usual command path; one after a hand edit does", async () => {
    const store = newStore();
    const id = JSON.parse(memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    await new Promise((r) => setTimeout(r, 150));
    memsync(["get", id], { env: { MEMSYNC_HOME: store } }); // the relation folders recorded, past their racy window
    const USUAL = /-> \S*\b(read|call|options|direct)\.ts$/m;
    const settled = imports(["get", id, "--json"], "", store);
    assert.ok(settled.includes("commands/settled-get.ts") && settled.includes("ops/get-settled.ts"), "the trace saw the settled get");
    assert.doesNotMatch(settled, USUAL);
    fs.writeFileSync(path.join(store, "relations", "notes.txt"), "a file put there by hand\n");
    assert.match(imports(["get", id, "--json"], "", store), USUAL);
  });

  // the settled read's journal check (a file saved with no index row yet) parses one entry
  // (store/journal-entry.ts): the journal's writers and their atomic write, and the
  // commit messages (a memory block's conflict view wants the short id alone) stay unloaded
  test("a plain get on a settled store loads neither the journal's writers nor the commit messages", async () => {
    const store = newStore();
    const id = JSON.parse(memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    await new Promise((r) => setTimeout(r, 150));
    memsync(["get", id], { env: { MEMSYNC_HOME: store } }); // the relation folders recorded, past their racy window
    const settled = imports(["get", id], "", store);
    assert.ok(settled.includes("commands/settled-get.ts") && settled.includes("store/journaled.ts"), "the trace saw the settled get");
    assert.doesNotMatch(settled, /-> \S*\b(journal|atomic-write|history)\.ts$/m);
  });

  // a hook's recall with nothing to capture reads a settled index without the Store (ops/recall-settled.ts)
  test("a question's hook on a settled store loads no Store; one after a memory file is added by hand does", async () => {
    const store = newStore();
    memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } });
    const STORE = /store\/(store|refresh)\.ts$/m;
    const ask = prompt("How did we paginate the list endpoints last time?");
    // the memory folders recorded past their racy window: on a loaded machine a first recall can
    // still fall inside it (a fresh-clone CI run beside the chaos suite did), so look again a little later
    let settled = "";
    for (let tries = 0; tries < 10; tries++) {
      await new Promise((r) => setTimeout(r, 150 * (tries + 1)));
      memsync(["recall", "pagination"], { env: { MEMSYNC_HOME: store } });
      settled = imports(["hook", "UserPromptSubmit"], ask, store);
      if (!STORE.test(settled)) break;
    }
    assert.ok(settled.includes("ops/recall-settled.ts"), "the trace saw the settled recall");
    assert.doesNotMatch(settled, STORE);
    fs.writeFileSync(path.join(store, "memories", "notes.txt"), "a file put there by hand\n");
    assert.match(imports(["hook", "UserPromptSubmit"], ask, store), STORE);
  });

  // a reply with nothing to look for or keep answers without opening the index at all
  test("a short reply's hook opens no index; a question's does", () => {
    const store = newStore();
    memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } });
    const INDEX = /store\/(store|settled-index)\.ts$/m;
    const reply = imports(["hook", "UserPromptSubmit"], prompt("thanks, sounds good"), store);
    assert.ok(reply.includes("faces/hooks/run-hook.ts"), "the trace saw the hook run");
    assert.doesNotMatch(reply, INDEX);
    assert.match(imports(["hook", "UserPromptSubmit"], prompt("How did we paginate the list endpoints last time?"), store), INDEX);
  });

  test("a plain save loads none of the catalogue; a list of records from --input does", () => {
    const store = newStore();
    const save = imports(["save", "Retry with backoff", "--tag", "ops"], "", store);
    assert.ok(save.includes("ops/save-entry.ts"), "the trace saw save run");
    assert.doesNotMatch(save, /ops\/catalogue\/(run|index|records)\.ts$/m);
    assert.match(imports(["save", "--input", "-"], JSON.stringify([{ content: "a" }, { content: "b" }]), store), /ops\/catalogue\/run\.ts$/m);
  });

  // a hook, a plain get and a plain save skip the command-line parser (faces/cli/quick.ts); a save
  // with another option goes through it
  test("get, save and the hook load no command-line parser; a save with --type does", () => {
    const store = newStore();
    const id = JSON.parse(memsync(["save", "Use cursor pagination for list endpoints", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    const PARSER = /-> cac$|faces\/cli\/main\.ts/m;
    const get = imports(["get", id, "--json"], "", store);
    assert.ok(GET_RUN.test(get), "the trace saw get run");
    assert.doesNotMatch(get, PARSER);
    const hook = imports(["hook", "UserPromptSubmit"], prompt("How did we paginate the orders API last time?"), store);
    assert.ok(hook.includes("faces/hooks/run-hook.ts"), "the trace saw the hook run");
    assert.doesNotMatch(hook, PARSER);
    const save = imports(["save", "Retry with backoff", "--tag", "ops"], "", store);
    assert.ok(save.includes("ops/save.ts"), "the trace saw save run");
    assert.doesNotMatch(save, PARSER);
    assert.match(imports(["save", "Retry with backoff", "--type", "decision"], "", store), PARSER);
  });

  // node:os cost every command ~0.3 ms to evaluate (a builtin: the trace above does not see it):
  // runtime/host.ts loads it when first asked, counted here through process.getBuiltinModule
  test("host.ts loads node:os only when HOME is unset or the host name is asked for", () => {
    const probe = [
      `const real = process.getBuiltinModule.bind(process); let loads = 0;`,
      `process.getBuiltinModule = (id) => { if (id === "node:os") loads++; return real(id); };`,
      `const host = await import(${JSON.stringify(path.join(REPO, "src/runtime/host.ts"))});`,
      `const home = host.homeDir(); const before = loads; const name = host.hostName();`,
      `console.log(JSON.stringify({ home, before, after: loads, same: name === real("node:os").hostname() }));`,
    ].join("\n");
    const file = path.join(tempDir("memsync-os-"), "probe.mjs");
    fs.writeFileSync(file, probe);
    const r = spawnSync(BUN, [file], { env: { ...process.env, HOME: "/tmp/hook-home" }, encoding: "utf8" });
    assert.deepEqual(JSON.parse(r.stdout), { home: "/tmp/hook-home", before: 0, after: 1, same: true }, r.stderr);
  });

  // read-only.ts (every hook's write check) imported node:os for a private copy's folder: ~0.25 ms
  // of every hook's CPU (branch hookjs30). A builtin's import is not traced: the sources are read.
  test("no module a hook loads imports node:os itself (host.ts loads it when asked)", () => {
    for (const text of ["yes, go on", "How did we paginate the orders API last time?"]) {
      const log = imports(["hook", "UserPromptSubmit"], prompt(text), newStore());
      assert.ok(log.includes("faces/hooks/run-hook.ts"), "the trace saw the hook run");
      const loaded = new Set<string>();
      for (const line of log.split("\n")) {
        const [importer, spec] = line.split(" -> ");
        if (!importer || !spec) continue;
        loaded.add(importer);
        if (spec.startsWith(".")) loaded.add(path.resolve(path.dirname(importer), spec));
      }
      const mine = [...loaded].filter((f) => f.startsWith(path.join(REPO, "src/")) && f.endsWith(".ts"));
      assert.ok(mine.length > 50, `${mine.length} modules`);
      const withOs = mine.filter((f) => /^import [^\n]* from "(?:node:)?os";?$/m.test(fs.readFileSync(f, "utf8")));
      assert.deepEqual(withOs, [], text);
    }
  });

  test("a question's hook loads no valibot; a decision's does", () => {
    const asking = imports(["hook", "UserPromptSubmit"], prompt("How did we paginate the orders API last time?"), newStore());
    assert.ok(asking.includes("faces/hooks/run-hook.ts"), "the trace saw the hook run");
    assert.doesNotMatch(asking, SCHEMA_LIB);
    // nor what hooks install/uninstall edit settings with (the hook has its own entry module)
    assert.doesNotMatch(asking, /ops\/hooks-install\.ts|commands\/claude\.ts/);
    const stating = imports(["hook", "UserPromptSubmit"], prompt("We decided to use PostgreSQL for analytics because we need JSONB."), newStore());
    assert.match(stating, SCHEMA_LIB);
  });
});
