import fs from "node:fs";
import path from "node:path";
import { addHooks, type HookCommand, HOOK_EVENTS, HOOK_MARK, type JsonObject, removeHooks } from "../core/claude/settings.ts";
import { invalidInput } from "../core/errors.ts";
import { claudeHome, type ClaudeEnv, projectRoot, replaceFile } from "./claude-files.ts";

// `memsync hooks install|uninstall [--project|--user]`: memsync's entries in Claude Code's
// settings.json, added or removed without touching the user's other settings and hooks.

export type HookScope = "project" | "user";

/** `hooks install --http URL`: a memsync server's base URL, and the project to name on it (project scope). */
export interface HttpHooks {
  base: string;
  project: string | null;
}

/** The server's hook route for an event, e.g. https://mem.example.com/v1/hooks/Stop?project=github.com/org/repo. */
export function hookUrl(http: HttpHooks, event: string): string {
  const url = new URL(`${http.base.replace(/\/+$/, "")}/v1/hooks/${event}`);
  if (http.project) url.searchParams.set("project", http.project);
  return url.toString();
}

/** A base URL for http hooks: http(s), no credentials, no query. */
export function checkHookBase(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw invalidInput(`--http takes the server's URL, e.g. https://mem.example.com or http://127.0.0.1:7457`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw invalidInput("--http takes an http:// or https:// URL");
  if (u.username || u.password || u.search || u.hash) throw invalidInput("--http takes the server's base URL, without credentials, query or fragment (the token goes in MEMSYNC_API_TOKEN)");
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}

export interface HooksChange {
  file: string;
  scope: HookScope;
  added: number;
  replaced: number;
  removed: number;
  /** install only: the file already held exactly these hooks, and was left as it was */
  unchanged?: boolean;
}

export function settingsPath(scope: HookScope, cwd: string, env: ClaudeEnv): string {
  return scope === "user" ? path.join(claudeHome(env), "settings.json") : path.join(projectRoot(cwd, env), ".claude", "settings.json");
}

/** A Claude Code JSON file (settings, .mcp.json, .claude.json) as an object: {} if missing or empty; refused, nothing changed, if it is not a JSON object. */
export function readClaudeJson(file: string): JsonObject {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return {};
    throw e;
  }
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalidInput(`${file} is not valid JSON (${e instanceof Error ? e.message : String(e)}); fix it first, nothing was changed`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidInput(`${file} does not hold a JSON object; nothing was changed`);
  return value as JsonObject;
}

function write(file: string, settings: JsonObject): void {
  replaceFile(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * `command` runs memsync; with memoryMd, Stop and SessionEnd also keep MEMORY.md current; with
 * warm, UserPromptSubmit and SessionStart use the warm hook server: the project's settings are shared with a team, so they name `memsync`
 * on PATH; a user's own settings name this binary. `extra` are arguments for every hook command.
 * Each command ends with HOOK_MARK, by which install and uninstall know memsync's entries again
 * whatever the binary is called; `self` (this binary's command line) also finds unmarked older ones.
 */
export function installHooks(scope: HookScope, cwd: string, env: ClaudeEnv, command: string, extra = "", memoryMd = false, self?: string, http?: HttpHooks, warm = false): HooksChange {
  const file = settingsPath(scope, cwd, env);
  const current = readClaudeJson(file);
  // --warm: the prompt hook asks the store's warm server, and a session's start starts one
  // (faces/hooks/warm/); not where the prompts are posted to a memsync server instead
  const warmOn = (event: string) => warm && (event === "SessionStart" || (event === "UserPromptSubmit" && !http));
  const tail = (event: string) => `${memoryMd && (event === "Stop" || event === "SessionEnd") ? " --memory-md" : ""}${warmOn(event) ? " --warm" : ""}`;
  const commands: HookCommand[] = HOOK_EVENTS.map(({ event, timeout }) => ({
    event,
    timeout,
    command: `${command}${extra ? ` ${extra}` : ""} hook ${event}${tail(event)} ${HOOK_MARK}`,
    // Claude Code runs SessionStart hooks only as commands; SubagentStart's context is a command's too
    ...(http && event !== "SessionStart" && event !== "SubagentStart" ? { url: hookUrl(http, event) } : {}),
  }));
  const { settings, added, replaced } = addHooks(current, commands, self);
  // a second install of the same hooks writes nothing (and says so: not "updated")
  const unchanged = fs.existsSync(file) && JSON.stringify(settings) === JSON.stringify(current);
  if (!unchanged) write(file, settings);
  return { file, scope, added, replaced, removed: 0, unchanged };
}

export function uninstallHooks(scope: HookScope, cwd: string, env: ClaudeEnv, self?: string): HooksChange {
  const file = settingsPath(scope, cwd, env);
  if (!fs.existsSync(file)) return { file, scope, added: 0, replaced: 0, removed: 0 };
  const { settings, removed } = removeHooks(readClaudeJson(file), self);
  if (removed > 0) write(file, settings);
  return { file, scope, added: 0, replaced: 0, removed };
}
