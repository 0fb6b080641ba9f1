import type { ClaudeEnv } from "../../../ops/claude-files.ts";
import { cwd, env, homeDir, readStdin, writeOut } from "../../../runtime/host.ts";
import { selfCommand } from "../../../runtime/self.ts";
import { failed } from "../../hooks/reply.ts";
import type { Flags } from "../options.ts";

// `memsync hook <Event>`, apart from the other Claude Code commands (claude.ts): a hook runs on
// every prompt and loads only what it uses, not the settings editing of hooks install.

export function claudeEnv(): ClaudeEnv {
  return { home: homeDir(), configDir: env("CLAUDE_CONFIG_DIR"), projectDir: env("CLAUDE_PROJECT_DIR") };
}

/**
 * `memsync [--store DIR] hook <Event> [--memory-md]`, run by Claude Code with the event's JSON on
 * standard input. Always exit 0 with the documented JSON on stdout; a failure is a systemMessage.
 */
export async function hookCli(argv: string[]): Promise<number> {
  let reply;
  try {
    const rest = argv.slice(argv.indexOf("hook") + 1);
    const event = rest.find((a) => !a.startsWith("-")) ?? "";
    const storeAt = argv.indexOf("--store");
    const flags: Flags = storeAt >= 0 && argv[storeAt + 1] ? { store: argv[storeAt + 1] } : {};
    const { opsEnv } = await import("../options.ts");
    const { runHook } = await import("../../hooks/run-hook.ts");
    const stdin = await readStdin(16 * 1024 * 1024);
    // set on the env, not spread into a new one: a spread reads its lazy host name, user and
    // merge-driver command (runtime/ops-env.ts), which a hook with nothing to write never uses
    const ops = Object.assign(opsEnv(flags), { open: { busyTimeoutMs: 3_000 } });
    reply = await runHook(event, stdin, { env: ops, claude: claudeEnv(), cwd: cwd(), self: selfCommand(), memoryMd: argv.includes("--memory-md") });
  } catch (e) {
    reply = failed(e instanceof Error ? e.message : String(e));
  }
  writeOut(`${JSON.stringify(reply)}\n`);
  return 0;
}
