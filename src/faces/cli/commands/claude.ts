import { usageError } from "../../../core/errors.ts";
import type { ClaudeEnv } from "../../../ops/claude-files.ts";
import { type HookScope, installHooks, uninstallHooks } from "../../../ops/hooks-install.ts";
import { cwd, env, homeDir } from "../../../runtime/host.ts";
import { selfCommand, shellQuote } from "../../../runtime/self.ts";
import { json } from "../format.ts";
import { type Flags, storeRoot } from "../options.ts";
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
    const out = installHooks(scope, cwd(), claudeEnv(), command, extra);
    if (flags.json) return { stdout: json(out) };
    return { stdout: `memsync hooks ${out.replaced ? "updated" : "installed"} in ${out.file} (${out.added} events: SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd)\n` };
  }
  if (action === "uninstall") {
    const out = uninstallHooks(scope, cwd(), claudeEnv());
    if (flags.json) return { stdout: json(out) };
    return { stdout: out.removed ? `removed ${out.removed} memsync hook entr${out.removed === 1 ? "y" : "ies"} from ${out.file}\n` : `no memsync hooks in ${out.file}\n` };
  }
  throw usageError("usage: memsync hooks install|uninstall [--project|--user]");
}
