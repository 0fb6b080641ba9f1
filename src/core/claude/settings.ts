// Claude Code's settings.json "hooks" section, changed without touching anything that is not
// memsync's: install adds one entry per event (replacing an older memsync entry for it), and
// uninstall removes memsync's entries and only the groups and events left empty by that.
//
//   { "hooks": { "<Event>": [ { "matcher": "", "hooks": [ { "type": "command", "command": "..." } ] } ] } }

/** The Claude Code events memsync answers, with how long Claude Code may wait (our own bounds are shorter). */
export const HOOK_EVENTS = [
  { event: "SessionStart", timeout: 15 },
  { event: "UserPromptSubmit", timeout: 15 },
  { event: "PreCompact", timeout: 30 },
  { event: "Stop", timeout: 30 },
  { event: "SessionEnd", timeout: 30 },
  { event: "SubagentStart", timeout: 15 },
  { event: "SubagentStop", timeout: 15 },
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number]["event"];

export const HOOK_EVENT_NAMES: readonly HookEvent[] = HOOK_EVENTS.map((e) => e.event);

/**
 * The argument every hook command memsync installs carries, whatever its binary is called (a
 * copy named `ms` is still recognised); the hook itself ignores it.
 */
export const HOOK_MARK = "--memsync-hook";

const HOOK_EVENT_ARG = new RegExp(`(^|\\s)hook\\s+(${HOOK_EVENT_NAMES.join("|")})(\\s|$)`);

/** Entries older installs made, without the mark: a binary named memsync or memsync-edge. */
const MEMSYNC_HOOK = new RegExp(`(^|[\\s/'"])memsync(-edge)?['"]?\\s(.*\\s)?hook\\s+(${HOOK_EVENT_NAMES.join("|")})\\b`);

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface HookCommand {
  event: string;
  command: string;
  /** Seconds Claude Code waits before it stops the command. */
  timeout: number;
  /** Instead of the command, a `type: "http"` hook posting the event to a memsync server's hook route. */
  url?: string;
}

/** The environment variable an http hook's bearer token is read from (Claude Code fills it into the header). */
export const API_TOKEN_VAR = "MEMSYNC_API_TOKEN";

/** A memsync server's hook route for an event (faces/api/hook-route.ts): …/v1/hooks/<Event>. */
const MEMSYNC_HOOK_URL = new RegExp(`/v1/hooks/(${HOOK_EVENT_NAMES.join("|")})(\\?|$)`);

/** Whether an http hook entry posts to a memsync server's hook route. */
export function isMemsyncHttpHook(hook: { type?: unknown; url?: unknown }): boolean {
  return hook.type === "http" && typeof hook.url === "string" && MEMSYNC_HOOK_URL.test(hook.url);
}

/** The settings entry of one hook: a command, or an http post with the token from API_TOKEN_VAR. */
function hookEntry(c: HookCommand): JsonObject {
  if (c.url === undefined) return { type: "command", command: c.command, timeout: c.timeout };
  return { type: "http", url: c.url, timeout: c.timeout, headers: { Authorization: `Bearer $${API_TOKEN_VAR}` }, allowedEnvVars: [API_TOKEN_VAR] };
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Whether a hook command is memsync's: `… hook <Event> … --memsync-hook` (the mark), or one an
 * older install made: `…/memsync [options] hook <Event>` (or memsync-edge), or this very binary
 * (`self`, as the command line names it) running `hook <Event>`.
 */
export function isMemsyncHook(command: unknown, self?: string): boolean {
  if (typeof command !== "string" || !HOOK_EVENT_ARG.test(command)) return false;
  if (command.split(/\s+/).includes(HOOK_MARK)) return true;
  return MEMSYNC_HOOK.test(command) || (self !== undefined && self !== "" && command.startsWith(`${self} `));
}

function withoutOurs(groups: Json[], self?: string): { groups: Json[]; removed: number } {
  let removed = 0;
  const out: Json[] = [];
  for (const g of groups) {
    if (!isObject(g) || !Array.isArray(g.hooks)) {
      out.push(g);
      continue;
    }
    const kept = g.hooks.filter((h) => !(isObject(h) && (isMemsyncHook(h.command, self) || isMemsyncHttpHook(h))));
    removed += g.hooks.length - kept.length;
    if (kept.length === g.hooks.length) out.push(g);
    else if (kept.length > 0) out.push({ ...g, hooks: kept });
  }
  return { groups: out, removed };
}

/** Settings with memsync's hooks added (any older memsync hook entries replaced). */
export function addHooks(settings: JsonObject, commands: readonly HookCommand[], self?: string): { settings: JsonObject; added: number; replaced: number } {
  const out: JsonObject = structuredClone(settings);
  const hooks: JsonObject = isObject(out.hooks) ? out.hooks : {};
  let replaced = 0;
  for (const c of commands) {
    const current = Array.isArray(hooks[c.event]) ? (hooks[c.event] as Json[]) : [];
    const { groups, removed } = withoutOurs(current, self);
    replaced += removed;
    groups.push({ matcher: "", hooks: [hookEntry(c)] });
    hooks[c.event] = groups;
  }
  out.hooks = hooks;
  return { settings: out, added: commands.length, replaced };
}

/** Settings with every memsync hook removed, and nothing else. */
export function removeHooks(settings: JsonObject, self?: string): { settings: JsonObject; removed: number } {
  const out: JsonObject = structuredClone(settings);
  if (!isObject(out.hooks)) return { settings: out, removed: 0 };
  let removed = 0;
  const hooks: JsonObject = {};
  for (const [event, groups] of Object.entries(out.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const r = withoutOurs(groups, self);
    removed += r.removed;
    if (r.groups.length > 0 || r.removed === 0) hooks[event] = r.groups;
  }
  if (Object.keys(hooks).length > 0 || Object.keys(out.hooks).length === 0) out.hooks = hooks;
  else delete out.hooks;
  return { settings: out, removed };
}
