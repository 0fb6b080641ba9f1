import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { memsync, memsyncJson, tempDir } from "../helpers/env.ts";

// What a new user's audit found in the files memsync writes for Claude Code (audit23), through
// the compiled binary under a temporary HOME; each test failed on a4c8d63's binary.

describe("audit23: Claude Code's files kept as symbolic links (a dotfiles repository) stay links", () => {
  /** A home whose ~/.claude/settings.json and ~/.claude.json are links into ~/dotfiles (the second one relative). */
  function linkedHome(): { home: string; settings: string; settingsTarget: string; claudeJson: string; claudeJsonTarget: string } {
    const home = tempDir();
    const dots = path.join(home, "dotfiles");
    fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
    fs.mkdirSync(path.join(dots, "claude"), { recursive: true });
    const settingsTarget = path.join(dots, "claude", "settings.json");
    fs.writeFileSync(settingsTarget, JSON.stringify({ model: "opus", env: { X: "1" } }, null, 2), { mode: 0o600 });
    const settings = path.join(home, ".claude", "settings.json");
    fs.symlinkSync(settingsTarget, settings);
    const claudeJsonTarget = path.join(dots, "claude.json");
    fs.writeFileSync(claudeJsonTarget, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "other-server" } } }, null, 2));
    const claudeJson = path.join(home, ".claude.json");
    fs.symlinkSync(path.join("dotfiles", "claude.json"), claudeJson);
    return { home, settings, settingsTarget, claudeJson, claudeJsonTarget };
  }

  test("hooks install / uninstall write through the link into the user's own file", () => {
    const h = linkedHome();
    assert.equal(memsync(["hooks", "install"], { env: { HOME: h.home } }).code, 0);
    assert.ok(fs.lstatSync(h.settings).isSymbolicLink(), "settings.json is still a link");
    const s = JSON.parse(fs.readFileSync(h.settingsTarget, "utf8"));
    assert.equal(s.model, "opus", "the user's settings kept");
    assert.deepEqual(s.env, { X: "1" });
    assert.equal(Object.keys(s.hooks).length, 7, "the hooks are in the file the link leads to");
    assert.equal(fs.statSync(h.settingsTarget).mode & 0o777, 0o600, "its mode kept");
    // a second install changes nothing; uninstall leaves the link and the user's settings
    const once = fs.readFileSync(h.settingsTarget, "utf8");
    assert.equal(memsync(["hooks", "install"], { env: { HOME: h.home } }).code, 0);
    assert.equal(fs.readFileSync(h.settingsTarget, "utf8"), once);
    assert.equal(memsync(["hooks", "uninstall"], { env: { HOME: h.home } }).code, 0);
    assert.ok(fs.lstatSync(h.settings).isSymbolicLink());
    const after = JSON.parse(fs.readFileSync(h.settingsTarget, "utf8"));
    assert.equal(after.hooks, undefined, "no hook left");
    assert.equal(after.model, "opus");
    assert.deepEqual(fs.readdirSync(path.join(h.home, ".claude")), ["settings.json"], "no temp file left beside the link");
  });

  test("mcp install follows a relative link to ~/.claude.json", () => {
    const h = linkedHome();
    const out = memsyncJson(["mcp", "install"], { env: { HOME: h.home } });
    assert.ok(out, "installed");
    assert.ok(fs.lstatSync(h.claudeJson).isSymbolicLink(), "~/.claude.json is still a link");
    const j = JSON.parse(fs.readFileSync(h.claudeJsonTarget, "utf8"));
    assert.equal(j.theme, "dark");
    assert.deepEqual(j.mcpServers.other, { command: "other-server" });
    assert.ok(j.mcpServers.memsync, `memsync's entry is in the linked file: ${Object.keys(j.mcpServers)}`);
  });
});

describe("audit23: import cortexgraph through a symbolic link to memories.jsonl", () => {
  test("the relations beside the file the link leads to are imported too, as for the file itself", () => {
    const dir = tempDir();
    const real = path.join(dir, "cortexgraph", "jsonl");
    fs.mkdirSync(real, { recursive: true });
    const a = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    const b = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7e";
    const mem = (id: string, content: string) => JSON.stringify({ id, content, meta: { tags: [] }, created_at: 1700000000, last_used: 1700000000, use_count: 0, strength: 1, status: "active" });
    fs.writeFileSync(path.join(real, "memories.jsonl"), `${mem(a, "we chose Postgres for the ledger")}\n${mem(b, "the ledger needs serializable transactions")}\n`);
    fs.writeFileSync(path.join(real, "relations.jsonl"), JSON.stringify({ id: "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b80", from_memory_id: a, to_memory_id: b, relation_type: "related", strength: 1, created_at: 1700000000, metadata: {} }) + "\n");
    const link = path.join(dir, "cg-memories.jsonl");
    fs.symlinkSync(path.join(real, "memories.jsonl"), link);
    const direct = memsyncJson(["--store", path.join(dir, "s1"), "import", "cortexgraph", path.join(real, "memories.jsonl")]);
    const linked = memsyncJson(["--store", path.join(dir, "s2"), "import", "cortexgraph", link]);
    assert.equal(direct.relations.imported, 1);
    assert.equal(linked.memories.imported, 2);
    assert.equal(linked.relations.imported, 1, "the relation came too");
    // and a second run through the link changes nothing
    const again = memsyncJson(["--store", path.join(dir, "s2"), "import", "cortexgraph", link]);
    assert.equal(again.memories.imported + again.relations.imported, 0);
    assert.equal(again.relations.existing, 1);
  });
});

describe("audit23: a second import of the reference memory server's file says the store holds it", () => {
  test("entities and relations already there are counted as existing, not 'the source holds no records'", () => {
    const dir = tempDir("memsync-audit23-mcpmem-");
    const file = path.join(dir, "memory.jsonl");
    fs.writeFileSync(
      file,
      [
        { type: "entity", name: "Redis", entityType: "technology", observations: ["sessions are cached in redis for 30 minutes"] },
        { type: "entity", name: "Postgres", entityType: "technology", observations: ["the primary database"] },
        { type: "relation", from: "Redis", to: "Postgres", relationType: "sits beside" },
      ]
        .map((x) => JSON.stringify(x))
        .join("\n") + "\n",
    );
    const store = path.join(dir, "s");
    memsyncJson(["init", store]);
    const first = memsyncJson(["--store", store, "import", "mcp-memory", file]);
    assert.deepEqual(first.graph, { entities: 2, relations: 1, observations: 0 });
    assert.equal(first.memories.existing, 0);
    const again = memsyncJson(["--store", store, "import", "mcp-memory", file]);
    assert.deepEqual(again.graph, { entities: 0, relations: 0, observations: 0 });
    assert.equal(again.memories.existing, 3, JSON.stringify(again));
    assert.equal(again.commit, null);
    const text = memsync(["--store", store, "import", "mcp-memory", file]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /nothing new: the store already holds all of it/);
    assert.doesNotMatch(text.stdout, /holds no records/);
  });
});
