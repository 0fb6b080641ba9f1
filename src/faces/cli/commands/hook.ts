import fs from "node:fs";
import type { ClaudeEnv } from "../../../ops/claude-files.ts";
import type { WarmRequest } from "../../hooks/warm/protocol.ts";
import { cwd, env, homeDir, readStdin, writeErr, writeOut } from "../../../runtime/host.ts";
import { selfCommand } from "../../../runtime/self.ts";
import { failed } from "../../hooks/reply.ts";
import type { Flags } from "../options.ts";
import { mark, traceReport } from "../../../runtime/cold-trace.ts";

// `memsync hook <Event>`, apart from the other Claude Code commands (claude.ts): a hook runs on
// every prompt and loads only what it uses, not the settings editing of hooks install.

export function claudeEnv(): ClaudeEnv {
  return { home: homeDir(), configDir: env("CLAUDE_CONFIG_DIR"), projectDir: env("CLAUDE_PROJECT_DIR") };
}

/**
 * `memsync [--store DIR] hook <Event> [--memory-md] [--warm]`, run by Claude Code with the event's
 * JSON on standard input. Always exit 0 with the documented JSON on stdout; a failure is a
 * systemMessage. With --warm, UserPromptSubmit asks the store's warm server first (warm/);
 * SessionStart, and a prompt that found none, start one after answering.
 */
export async function hookCli(argv: string[]): Promise<number> {
  let reply;
  let startWarm: string | null = null;
  try {
    const rest = argv.slice(argv.indexOf("hook") + 1);
    const event = rest.find((a) => !a.startsWith("-")) ?? "";
    const storeAt = argv.indexOf("--store");
    const flags: Flags = storeAt >= 0 && argv[storeAt + 1] ? { store: argv[storeAt + 1] } : {};
    const memoryMd = argv.includes("--memory-md");
    mark("hook.ts");
    const stdin = await readStdin(16 * 1024 * 1024);
    mark("stdin");
    const warm = (event === "UserPromptSubmit" || event === "SessionStart") && argv.includes("--warm") ? await warmRoot(flags.store as string | undefined) : null;
    if (warm && event === "UserPromptSubmit") {
      const asked = await askServer(warm, { event, memoryMd, stdin, ...(flags.store !== undefined ? { store: flags.store as string } : {}) });
      // which path answered, for tests and a user's doubts (Claude Code shows a hook's stderr only in its debug output)
      if (env("MEMSYNC_HOOK_SERVER_TRACE") === "1") writeErr(`memsync hook: ${!asked ? "in-process (no safe socket folder)" : "answer" in asked ? "warm" : `in-process (${asked.why})${asked.start ? ", starting a server" : ""}`}\n`);
      if (asked && "answer" in asked) {
        writeOut(asked.answer);
        return 0;
      }
      if (asked?.start) startWarm = warm;
    } else if (warm) startWarm = warm;
    const { opsEnv } = await import("../options.ts");
    const { runHook } = await import("../../hooks/run-hook.ts");
    mark("options.ts, run-hook.ts");
    // set on the env, not spread into a new one: a spread reads its lazy host name, user and
    // merge-driver command (runtime/ops-env.ts), which a hook with nothing to write never uses
    const ops = Object.assign(opsEnv(flags), { open: { busyTimeoutMs: 3_000 } });
    reply = await runHook(event, stdin, { env: ops, claude: claudeEnv(), cwd: cwd(), self: selfCommand(), memoryMd });
    mark("hook answered");
  } catch (e) {
    reply = failed(e instanceof Error ? e.message : String(e));
  }
  writeOut(`${JSON.stringify(reply)}\n`);
  mark("output");
  traceReport();
  // MEMSYNC_HOOK_SERVER=ask: ask a running server, never start one (one started by hand, or a benchmark)
  if (startWarm && env("MEMSYNC_HOOK_SERVER") !== "ask") (await import("../../hooks/warm/start.ts")).startServer(selfCommand(), startWarm);
  return 0;
}

/** The input a warm server is asked with at most (a larger one runs in-process). */
const WARM_MAX_INPUT = 1024 * 1024;

/**
 * The store's real path when the warm path may be used: this is a build (not source), under Bun,
 * MEMSYNC_HOOK_SERVER is not 0, and the store exists (a store is made in-process). Else null.
 */
async function warmRoot(store: string | undefined): Promise<string | null> {
  const { BUILD_ID } = await import("../../hooks/warm/build-id.ts");
  if (BUILD_ID === null || !("Bun" in globalThis) || env("MEMSYNC_HOOK_SERVER") === "0") return null;
  const [{ storeRootOf }, { realStoreRoot }] = await Promise.all([import("../../../runtime/ops-env.ts"), import("../../hooks/warm/place.ts")]);
  const real = realStoreRoot(storeRootOf({ store, vars: { MEMSYNC_HOME: env("MEMSYNC_HOME") }, cwd: cwd(), home: homeDir() }));
  return real && fs.existsSync(`${real}/.meta.json`) ? real : null;
}

/** The warm server's answer, or whether to start one; null: no safe place for a socket (in-process, nothing started). */
async function askServer(realRoot: string, what: Pick<WarmRequest, "event" | "memoryMd" | "stdin" | "store">): Promise<import("../../hooks/warm/client.ts").Asked | null> {
  if (what.stdin.length > WARM_MAX_INPUT) return null;
  const [{ warmPlace }, { askWarm }, { HOOK_VARS }, { BUILD_ID }] = await Promise.all([
    import("../../hooks/warm/place.ts"),
    import("../../hooks/warm/client.ts"),
    import("../../hooks/warm/protocol.ts"),
    import("../../hooks/warm/build-id.ts"),
  ]);
  const place = warmPlace(realRoot, { XDG_RUNTIME_DIR: env("XDG_RUNTIME_DIR"), TMPDIR: env("TMPDIR") }, true);
  if (!place) return null;
  const vars: WarmRequest["vars"] = {};
  for (const k of HOOK_VARS) {
    const v = env(k);
    if (v !== undefined) vars[k] = v;
  }
  const wait = Number(env("MEMSYNC_HOOK_SERVER_WAIT_MS"));
  return askWarm(place.socket, { ...what, build: BUILD_ID!, cwd: cwd(), home: homeDir(), vars, self: selfCommand() }, Number.isFinite(wait) && wait > 0 ? wait : undefined);
}
