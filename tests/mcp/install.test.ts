import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { BIN, git, memsync, tempDir } from "../helpers/env.ts";

// `memsync mcp install|uninstall`: Claude Code's MCP entry, in a project's .mcp.json or the
// user's ~/.claude.json, added and removed without touching anything else in the file.

const read = (f: string) => JSON.parse(fs.readFileSync(f, "utf8"));

function project(): string {
  const dir = tempDir("memsync-mcp-project-");
  git(dir, "init", "-q");
  return dir;
}

describe("mcp install --project", () => {
  test("adds memsync's entry to .mcp.json, keeps every other server and key, and uninstall removes only it", () => {
    const dir = project();
    const file = path.join(dir, ".mcp.json");
    const theirs = { mcpServers: { github: { type: "http", url: "https://example.com/mcp" } }, note: "kept" };
    fs.writeFileSync(file, JSON.stringify(theirs));
    const r = memsync(["mcp", "install", "--project", "--json"], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).changed, "added");
    const after = read(file);
    assert.deepEqual(after.mcpServers.github, theirs.mcpServers.github);
    assert.equal(after.note, "kept");
    assert.deepEqual(after.mcpServers.memsync, { type: "stdio", command: "memsync", args: ["mcp", "--tools", "memsync"], env: {} });
    assert.equal(JSON.parse(memsync(["mcp", "install", "--project", "--json"], { cwd: dir }).stdout).changed, "unchanged");
    // the memory profile under the name agents call (mcp__memory__*)
    assert.equal(memsync(["mcp", "install", "--project", "--tools", "memory"], { cwd: dir }).code, 0);
    assert.deepEqual(read(file).mcpServers.memory.args, ["mcp", "--tools", "memory"]);
    assert.equal(memsync(["mcp", "uninstall", "--project"], { cwd: dir }).code, 0);
    assert.equal(memsync(["mcp", "uninstall", "--project", "--tools", "memory"], { cwd: dir }).code, 0);
    assert.deepEqual(read(file), theirs);
  });

  test("never replaces nor removes a foreign server of the same name", () => {
    const dir = project();
    const file = path.join(dir, ".mcp.json");
    const text = JSON.stringify({ mcpServers: { memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] } } });
    fs.writeFileSync(file, text);
    const r = memsync(["mcp", "install", "--project", "--tools", "memory"], { cwd: dir });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /not memsync's/);
    assert.equal(memsync(["mcp", "uninstall", "--project", "--tools", "memory"], { cwd: dir }).code, 0);
    assert.equal(fs.readFileSync(file, "utf8"), text);
  });

  test("a file that is not JSON is refused and left alone; an unknown profile is a usage error", () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, ".mcp.json"), "{ not json");
    assert.equal(memsync(["mcp", "install", "--project"], { cwd: dir }).code, 4);
    assert.equal(fs.readFileSync(path.join(dir, ".mcp.json"), "utf8"), "{ not json");
    assert.equal(memsync(["mcp", "install", "--project", "--tools", "nope"], { cwd: dir }).code, 2);
    // the cortexgraph profile installs as server "cortexgraph" (mcp__cortexgraph__*)
    const cgDir = project();
    assert.equal(memsync(["mcp", "install", "--project", "--tools", "cortexgraph"], { cwd: cgDir }).code, 0);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(cgDir, ".mcp.json"), "utf8")).mcpServers.cortexgraph.args, ["mcp", "--tools", "cortexgraph"]);
  });
});

describe("mcp install --user", () => {
  test("writes ~/.claude.json's mcpServers with this binary, keeping the rest of Claude Code's config", () => {
    const home = tempDir("memsync-mcp-home-");
    const file = path.join(home, ".claude.json");
    const config = { numStartups: 3, projects: { "/x": { mcpServers: {} } }, mcpServers: { other: { command: "other" } } };
    fs.writeFileSync(file, JSON.stringify(config));
    const store = path.join(tempDir(), "store");
    assert.equal(memsync(["--store", store, "mcp", "install", "--tools", "memory"], { env: { HOME: home } }).code, 0);
    const after = read(file);
    assert.deepEqual(after.mcpServers.memory, { type: "stdio", command: BIN, args: ["--store", store, "mcp", "--tools", "memory"], env: {} });
    assert.deepEqual({ ...after, mcpServers: { other: after.mcpServers.other } }, config);
    assert.equal(memsync(["mcp", "uninstall", "--user", "--tools", "memory"], { env: { HOME: home } }).code, 0);
    assert.deepEqual(read(file), config);
  });

  test("CLAUDE_CONFIG_DIR: its .claude.json", () => {
    const home = tempDir("memsync-mcp-home-");
    const conf = tempDir("memsync-mcp-conf-");
    assert.equal(memsync(["mcp", "install"], { env: { HOME: home, CLAUDE_CONFIG_DIR: conf } }).code, 0);
    assert.ok(fs.existsSync(path.join(conf, ".claude.json")));
    assert.ok(!fs.existsSync(path.join(home, ".claude.json")));
  });
});
