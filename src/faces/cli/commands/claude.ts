import path from "node:path";
import { usageError } from "../../../core/errors.ts";
import type { ClaudeEnv } from "../../../ops/claude-files.ts";
import { checkHookBase, type HookScope, installHooks, uninstallHooks } from "../../../ops/hooks-install.ts";
import { projectOf } from "../../../ops/project.ts";
import { cwd, env, homeDir } from "../../../runtime/host.ts";
import { selfCommand, shellQuote } from "../../../runtime/self.ts";
import { json } from "../format.ts";
import { type Flags, storeRoot, str } from "../options.ts";
import type { CommandResult } from "../result.ts";

// Claude Code integration on the command line: hooks install/uninstall (and the MEMORY.md tier).

export function claudeEnv(): ClaudeEnv {
  return { home: homeDir(), configDir: env("CLAUDE_CONFIG_DIR"), projectDir: env("CLAUDE_PROJECT_DIR") };
}

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
    const out = installHooks(scope, cwd(), claudeEnv(), command, extra, flags.memoryMd === true, self, http);
    if (flags.json) return { stdout: json(out) };
    const how = http ? ` (UserPromptSubmit, PreCompact, Stop, SessionEnd post to ${http.base}, with the token from MEMSYNC_API_TOKEN; SessionStart runs memsync: Claude Code runs it only as a command)` : "";
    return { stdout: `memsync hooks ${out.replaced ? "updated" : "installed"} in ${out.file} (${out.added} events: SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd)${how}\n` };
  }
  if (action === "uninstall") {
    const out = uninstallHooks(scope, cwd(), claudeEnv(), selfCommand().map(shellQuote).join(" "));
    if (flags.json) return { stdout: json(out) };
    return { stdout: out.removed ? `removed ${out.removed} memsync hook entr${out.removed === 1 ? "y" : "ies"} from ${out.file}\n` : `no memsync hooks in ${out.file}\n` };
  }
  throw usageError("usage: memsync hooks install|uninstall [--project|--user]");
}

/**
 * `memsync [--store DIR] hook <Event> [--memory-md]`, run by Claude Code with the event's JSON on
 * standard input. Always exit 0 with the documented JSON on stdout; a failure is a systemMessage.
 */
export async function hookCli(argv: string[]): Promise<number> {
  const { writeOut, readStdin } = await import("../../../runtime/host.ts");
  const { failed } = await import("../../hooks/reply.ts");
  let reply;
  try {
    const rest = argv.slice(argv.indexOf("hook") + 1);
    const event = rest.find((a) => !a.startsWith("-")) ?? "";
    const storeAt = argv.indexOf("--store");
    const flags: Flags = storeAt >= 0 && argv[storeAt + 1] ? { store: argv[storeAt + 1] } : {};
    const { opsEnv } = await import("../options.ts");
    const { runHook } = await import("../../hooks/run-hook.ts");
    const stdin = await readStdin(16 * 1024 * 1024);
    const env = { ...opsEnv(flags), open: { busyTimeoutMs: 3_000 } };
    reply = await runHook(event, stdin, { env, claude: claudeEnv(), cwd: cwd(), self: selfCommand(), memoryMd: argv.includes("--memory-md") });
  } catch (e) {
    reply = failed(e instanceof Error ? e.message : String(e));
  }
  writeOut(`${JSON.stringify(reply)}\n`);
  return 0;
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
