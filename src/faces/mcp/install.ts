import fs from "node:fs";
import path from "node:path";
import { MemsyncError } from "../../core/errors.ts";
import { claudeHome, type ClaudeEnv, projectRoot, replaceFile } from "../../ops/claude-files.ts";
import { readClaudeJson } from "../../ops/hooks-install.ts";

// `memsync mcp install|uninstall [--project|--user] [--tools PROFILE]`: memsync's server entry
// in Claude Code's MCP configuration, the project's .mcp.json or the user's ~/.claude.json
// (mcpServers), added or removed without touching anything else in the file. An entry is ours
// when it runs memsync's `mcp` command with --tools; a foreign entry of the same name is never
// replaced nor removed.

export type McpScope = "project" | "user";

/** Each profile's server name: the names agents already call (mcp__memory__create_entities). */
export const SERVER_NAMES = { memsync: "memsync", memory: "memory", cortexgraph: "cortexgraph" } as const;

export interface McpConfigChange {
  file: string;
  scope: McpScope;
  name: string;
  changed: "added" | "replaced" | "removed" | "unchanged" | "absent";
}

type Json = Record<string, unknown>;

export function mcpConfigPath(scope: McpScope, cwd: string, env: ClaudeEnv): string {
  // Claude Code keeps its user config beside its folder: ~/.claude.json, or in CLAUDE_CONFIG_DIR
  return scope === "user" ? (env.configDir ? path.join(env.configDir, ".claude.json") : path.join(env.home, ".claude.json")) : path.join(projectRoot(cwd, env), ".mcp.json");
}

/** An entry memsync wrote: a stdio command running memsync's `mcp --tools`. */
export function isOurs(entry: unknown): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const e = entry as { command?: unknown; args?: unknown };
  if (typeof e.command !== "string" || !Array.isArray(e.args)) return false;
  const at = e.args.indexOf("mcp");
  // memsync's binary, or a runtime running memsync's source
  return at !== -1 && e.args[at + 1] === "--tools" && [e.command, ...e.args.slice(0, at)].some((w) => typeof w === "string" && /memsync/i.test(w));
}

export interface InstallOptions {
  scope: McpScope;
  profile: keyof typeof SERVER_NAMES;
  /** The command that runs memsync: "memsync" from PATH in a shared project file, this binary for a user. */
  command: string;
  /** Arguments before `mcp` (e.g. --store DIR). */
  pre?: string[];
}

export function installMcp(cwd: string, env: ClaudeEnv, o: InstallOptions): McpConfigChange {
  const file = mcpConfigPath(o.scope, cwd, env);
  const config = readClaudeJson(file) as Json;
  const name = SERVER_NAMES[o.profile];
  const servers = (config.mcpServers ?? {}) as Json;
  if (typeof servers !== "object" || Array.isArray(servers)) throw new MemsyncError("invalid_input", `${file}: mcpServers is not an object; nothing was changed`);
  const current = servers[name];
  if (current !== undefined && !isOurs(current)) {
    throw new MemsyncError("conflict", `${file} already has an MCP server named ${JSON.stringify(name)} that is not memsync's; nothing was changed (remove it first)`);
  }
  const entry = { type: "stdio", command: o.command, args: [...(o.pre ?? []), "mcp", "--tools", o.profile], env: {} };
  if (current !== undefined && JSON.stringify(current) === JSON.stringify(entry)) return { file, scope: o.scope, name, changed: "unchanged" };
  config.mcpServers = { ...servers, [name]: entry };
  replaceFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return { file, scope: o.scope, name, changed: current === undefined ? "added" : "replaced" };
}

export function uninstallMcp(cwd: string, env: ClaudeEnv, scope: McpScope, profile: keyof typeof SERVER_NAMES): McpConfigChange {
  const file = mcpConfigPath(scope, cwd, env);
  const name = SERVER_NAMES[profile];
  if (!fs.existsSync(file)) return { file, scope, name, changed: "absent" };
  const config = readClaudeJson(file) as Json;
  const servers = config.mcpServers as Json | undefined;
  if (!servers || typeof servers !== "object" || !isOurs(servers[name])) return { file, scope, name, changed: "absent" };
  const { [name]: _, ...rest } = servers;
  config.mcpServers = rest;
  replaceFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return { file, scope, name, changed: "removed" };
}
