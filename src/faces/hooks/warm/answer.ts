import process from "node:process";
import { hostName, userName } from "../../../runtime/host.ts";
import { opsEnvOf } from "../../../runtime/ops-env.ts";
import { KeptStore } from "../../../ops/kept-store.ts";
import { startCommand } from "../../../runtime/command-scope.ts";
import { runHook, WritesNeeded } from "../run-hook.ts";
import type { WarmReply, WarmRequest } from "./protocol.ts";

// The warm server's answer to one request: the hook run as the client's own process would run
// it (hook.ts hookCli), from the request's values, read-only. Anything that is not a plain
// answer (a write needed, an error of any kind, a working folder it cannot enter) is handed back
// to the client to run in-process: the server then changed nothing, so the client's run is the
// only one. Requests run one at a time (the working folder is the process's).

/** hookCli's open options (its shorter lock wait): one object, as the kept store's are compared by identity. */
const HOOK_OPEN = { busyTimeoutMs: 3_000 };

/**
 * The store kept open across requests (ops/kept-store.ts, as `serve` and `mcp` keep theirs): each
 * request still sees what a fresh open would (every operation refreshes from the folders first;
 * SQLite shows the last commit; a changed .meta.json, index or lock file opens it again), without
 * a per-request open, schema parse and scan of every memory folder. Only for the store the
 * server was started for: a request that resolves to another opens its own, as the hook would.
 */
let kept: KeptStore | null = null;
function keptFor(root: string): KeptStore {
  if (!kept || kept.root !== root) {
    kept?.close();
    kept = new KeptStore(root, HOOK_OPEN);
  }
  return kept;
}

/** The ops environment hookCli builds (options.ts opsEnv, then its shorter lock wait), from the request. */
function envOf(req: WarmRequest, serverRoot: string) {
  const v = req.vars;
  const user = v.MEMSYNC_USER ?? v.USER ?? v.LOGNAME;
  const env = opsEnvOf({ ...(req.store !== undefined ? { store: req.store } : {}), vars: v, cwd: req.cwd, home: req.home, hostName: "", user: null, self: req.self });
  // the same machine and user as the client: looked up when read, as the client would
  Object.defineProperties(env, {
    hostName: { enumerable: true, configurable: true, get: hostName },
    user: { enumerable: true, configurable: true, get: () => user ?? userName() },
  });
  Object.assign(env, { open: HOOK_OPEN });
  return env.storeRoot === serverRoot ? Object.assign(env, { kept: keptFor(serverRoot) }) : env;
}

export async function answer(req: WarmRequest, serverRoot: string): Promise<WarmReply> {
  try {
    process.chdir(req.cwd);
  } catch {
    return { inProcess: "cwd" };
  }
  // what an earlier request's modules kept for one command (pack lists) is not this one's
  const end = startCommand();
  try {
    const reply = await runHook(req.event, req.stdin, {
      env: envOf(req, serverRoot),
      claude: { home: req.home, configDir: req.vars.CLAUDE_CONFIG_DIR, projectDir: req.vars.CLAUDE_PROJECT_DIR },
      cwd: req.cwd,
      self: req.self,
      memoryMd: req.memoryMd,
      readOnly: true,
    });
    return { answer: `${JSON.stringify(reply)}\n` };
  } catch (e) {
    return { inProcess: e instanceof WritesNeeded ? "writes" : "error" };
  } finally {
    end();
    process.chdir("/");
  }
}
