import path from "node:path";
import { usageError } from "../../../core/errors.ts";
import { HOOK_EVENT_NAMES } from "../../../core/claude/settings.ts";
import { checkHookBase, type HookScope, installHooks, uninstallHooks } from "../../../ops/hooks-install.ts";
import { projectOf } from "../../../ops/project.ts";
import { cwd, env } from "../../../runtime/host.ts";
import { selfCommand, shellQuote } from "../../../runtime/self.ts";
import { json } from "../format.ts";
import { type Flags, storeRoot, str } from "../options.ts";
import type { CommandResult } from "../result.ts";
import { claudeEnv } from "./hook.ts";

// Claude Code integration on the command line: hooks install/uninstall (and the MEMORY.md tier).
// The hook itself runs from hook.ts, which loads none of this.

/** Events install keeps as commands under --http (see installHooks). */
const COMMAND_ONLY = new Set<string>(["SessionStart", "SubagentStart"]);

function scopeOf(flags: Flags): HookScope {
  if (flags.project && flags.user) throw usageError("give --project or --user, not both");
  return flags.project ? "project" : "user";
}

export async function hooksCmd(action: string | undefined, flags: Flags): Promise<CommandResult> {
  const scope = scopeOf(flags);
  if (action === "install") {
    // a project's settings are shared with its team: `memsync` from PATH; a user's: this binary
    const command = scope === "project" ? "memsync" : selfCommand().map(shellQuote).join(" ");
    const extra = flags.store !== undefined ? `--store ${shellQuote(storeRoot(flags))}` : "";
    const self = selfCommand().map(shellQuote).join(" ");
    const base = str(flags, "http");
    // a server names the project: the repository's, for a project's settings (a user's span many)
    const http = base === undefined ? undefined : { base: checkHookBase(base), project: scope === "project" ? projectOf({ cwd: cwd() }) : null };
    const out = installHooks(scope, cwd(), claudeEnv(), command, extra, flags.memoryMd === true, self, http, flags.warm === true);
    if (flags.json) return { stdout: json(out) };
    // the events named come from the one table install writes, so the line cannot lag behind it
    const asCommand = HOOK_EVENT_NAMES.filter((e) => COMMAND_ONLY.has(e));
    const posted = HOOK_EVENT_NAMES.filter((e) => !COMMAND_ONLY.has(e));
    const how = http ? ` (${posted.join(", ")} post to ${http.base}, with the token from MEMSYNC_API_TOKEN; ${asCommand.join(" and ")} run memsync: Claude Code takes their context only from a command)` : "";
    const did = out.unchanged ? "already installed" : out.replaced ? "updated" : "installed";
    return { stdout: `memsync hooks ${did} in ${out.file} (${out.added} events: ${HOOK_EVENT_NAMES.join(", ")})${how}\n` };
  }
  if (action === "uninstall") {
    const out = uninstallHooks(scope, cwd(), claudeEnv(), selfCommand().map(shellQuote).join(" "));
    if (flags.json) return { stdout: json(out) };
    return { stdout: out.removed ? `removed ${out.removed} memsync hook entr${out.removed === 1 ? "y" : "ies"} from ${out.file}\n` : `no memsync hooks in ${out.file}\n` };
  }
  throw usageError("usage: memsync hooks install|uninstall [--project|--user]");
}

export async function exportCmd(what: string | undefined, flags: Flags): Promise<CommandResult> {
  if (what !== "memory-md") throw usageError("usage: memsync export memory-md [--project NAME] [--file PATH] [--dry-run]");
  const [{ exportMemoryMd }, { withStore }, { projectFor }, { opsEnv, str }] = await Promise.all([
    import("../../../ops/memory-md.ts"),
    import("../../../ops/context.ts"),
    import("../../../ops/project-context.ts"),
    import("../options.ts"),
  ]);
  const project = projectFor(str(flags, "project"), env("CLAUDE_PROJECT_DIR") ?? cwd());
  if (!project) throw usageError("no project here (not in a git repository with a remote): give --project NAME");
  const file = str(flags, "file");
  const out = await withStore(opsEnv(flags), (store) =>
    exportMemoryMd(store, { project, cwd: cwd(), claude: claudeEnv(), ...(file ? { file: path.resolve(cwd(), file) } : {}), dryRun: flags.dryRun === true }),
  );
  if (flags.json) return { stdout: json(out) };
  if (out.dry_run) return { stdout: out.text };
  const what2 = `${out.written} decision${out.written === 1 ? "" : "s"} of ${out.project}`;
  return { stdout: `${out.changed ? "wrote" : "unchanged:"} ${what2} in ${out.file}${out.left_out ? ` (${out.left_out} more did not fit Claude Code's 200 lines / 25 KB)` : ""}\n` };
}
