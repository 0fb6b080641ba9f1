import { MemsyncError, usageError } from "../../../core/errors.ts";
import { env, writeErr, writeOut } from "../../../runtime/host.ts";
import { msKnob } from "../../../runtime/ms-knob.ts";
import { readSecretFile, secretFileMessage } from "../../../runtime/secret-file.ts";
import { selfCommand } from "../../../runtime/self.ts";
import { type Flags, list, opsEnv, str } from "../options.ts";
import type { CommandResult } from "../result.ts";

// `memsync serve`: the API (faces/api) on a port or a Unix socket. Everything HTTP is imported
// here, when serve runs, so no other command loads it.

/** The default port (documented in README "Serving the API"). */
export const DEFAULT_PORT = 7457;
export const DEFAULT_HOST = "127.0.0.1";
/**
 * How long a request waits for the store's write lock while another process holds it and works
 * (a sync can work for minutes): then 503 with the holder's note and Retry-After (--lock-wait).
 * Five minutes, not one: a chaos run at load 30 on 2 cores had a CLI sync working under the lock
 * for over 60 s, and a read that waited 60 s was refused where it would have been answered; the
 * bound is for a holder that works without end, not for a slow machine.
 */
export const DEFAULT_LOCK_WAIT_MS = 300_000;

/** HOST:PORT, [IPv6]:PORT, :PORT or PORT. */
export function parseListen(text: string): { hostname: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*))?:?(\d{1,5})?$/.exec(text.trim());
  const bare = /^\d{1,5}$/.test(text.trim());
  const hostname = bare ? DEFAULT_HOST : (m?.[1] ?? m?.[2] ?? "") || DEFAULT_HOST;
  const port = Number(bare ? text.trim() : (m?.[3] ?? DEFAULT_PORT));
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--listen takes HOST:PORT (e.g. 127.0.0.1:${DEFAULT_PORT}, [::1]:${DEFAULT_PORT}, 0.0.0.0:${DEFAULT_PORT}; port 0 picks a free one), not ${JSON.stringify(text.slice(0, 60))}`);
  return { hostname, port };
}

/** 30s, 5m, 1h, 250ms (a bare number is seconds); at least a second. */
export function parseDuration(text: string, what = "--sync-every"): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s") as "ms"] : Number.NaN;
  if (!Number.isFinite(ms) || ms < 1000) throw usageError(`${what} takes a duration of at least 1s: 30s, 5m, 1h`);
  return ms;
}

/** The bearer token: --token-file's first line, else MEMSYNC_API_TOKEN; never printed. */
function tokenOf(flags: Flags): string | null {
  const file = str(flags, "tokenFile");
  if (file !== undefined) {
    // as ssh with a key: a token others can read is refused (runtime/secret-file.ts)
    const read = readSecretFile(file);
    if (!("text" in read)) throw usageError(secretFileMessage("--token-file", file, read));
    const text = read.text;
    const token = text.split("\n")[0]!.trim();
    if (token.length < 16 || /\s/.test(token)) throw usageError(`--token-file ${file} must hold a token of at least 16 characters, without spaces, on its first line`);
    return token;
  }
  const fromEnv = env("MEMSYNC_API_TOKEN")?.trim();
  if (fromEnv !== undefined && fromEnv.length < 16) throw usageError("MEMSYNC_API_TOKEN must be at least 16 characters");
  return fromEnv ?? null;
}

export async function serve(flags: Flags): Promise<CommandResult> {
  const socket = str(flags, "socket");
  const listenText = str(flags, "listen");
  if (socket !== undefined && listenText !== undefined) throw usageError("give --listen or --socket, not both");
  const at = socket !== undefined ? { socket } : parseListen(listenText ?? `${DEFAULT_HOST}:${DEFAULT_PORT}`);
  const every = str(flags, "syncEvery");
  const maxBody = str(flags, "maxBody");
  const bodyLimit = maxBody === undefined ? undefined : Number(maxBody);
  if (bodyLimit !== undefined && (!Number.isInteger(bodyLimit) || bodyLimit < 1024 || bodyLimit > 1024 ** 3)) throw usageError("--max-body takes a number of bytes, 1024 to 1073741824");
  const token = tokenOf(flags);
  const lockWait = str(flags, "lockWait");
  const lockWaitMs = lockWait === undefined ? DEFAULT_LOCK_WAIT_MS : parseDuration(lockWait, "--lock-wait");
  const baseEnv = opsEnv(flags);
  const [{ isLoopbackHost }, { createApi, DEFAULT_BODY_LIMIT }, { listen, onStopSignal, exitNow, settle }] = await Promise.all([
    import("../../api/guard.ts"),
    import("../../api/app.ts"),
    import("../../../runtime/serve.ts"),
  ]);
  // anyone who can reach a public address could read and write the store
  if ("hostname" in at && !isLoopbackHost(at.hostname) && token === null) {
    throw new MemsyncError("unauthorized", `serve refuses to listen on ${at.hostname} (not loopback) without a token: give --token-file FILE or set MEMSYNC_API_TOKEN`);
  }
  const graceMs = stopGraceMs();
  const limit = bodyLimit ?? DEFAULT_BODY_LIMIT;
  const api = createApi({
    // every wait of a request for the store's write lock is cut at --lock-wait: 503 with Retry-After
    env: { ...baseEnv, open: { ...baseEnv.open, lockWaitMostMs: lockWaitMs } },
    self: selfCommand(),
    guard: { listenHost: "hostname" in at ? at.hostname : null, allowHosts: list(flags, "allowHost"), token },
    bodyLimit: limit,
    syncEveryMs: every === undefined ? null : parseDuration(every),
  });
  const server = await listen(api.app.fetch, at, limit);
  api.sync.start();
  writeOut(`memsync serve: listening on ${server.url}\n`);
  // SIGTERM, SIGINT: answer every request clients had sent (those in progress run to their end,
  // those read from now on get 503 "the server is stopping", nothing changed), then stop
  // accepting, let a running sync finish, exit 0
  const stopped = new Promise<void>((resolve) => onStopSignal(() => resolve()));
  await stopped;
  api.beginStop();
  // read what is already on the connections before closing the idle ones (runtime/serve.ts)
  await settle(api.arrivals);
  const closed = server.close().catch(() => undefined);
  // a running sync is waited for whole: it is its own process with its own time limits, and on a
  // loaded machine it takes minutes (the chaos suite's serve clone: a sync of 60 s and more was cut
  // by a deadline counted from the signal, its answer reset)
  await api.sync.stop();
  // then the requests still in progress, a turn at a time: a sync's request finishes its answer a
  // few turns after the sync ended (checked before any turn, a passed deadline cut it)
  const deadline = Date.now() + graceMs;
  do await new Promise((r) => setTimeout(r, 10));
  while (api.inFlight() > 0 && Date.now() < deadline);
  if (api.inFlight() > 0) writeErr(`memsync: serve stopped with ${api.inFlight()} request(s) unanswered after ${graceMs / 1000} s\n`);
  else {
    // the answers written out (a stream still open, e.g. MCP's, is cut after 2 s)
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2_000))]);
    api.close();
  }
  return exitNow(0);
}

/** How long a clean stop waits for requests still in progress once a running sync ended (MEMSYNC_STOP_GRACE_MS, default 60 s). */
function stopGraceMs(): number {
  return msKnob("MEMSYNC_STOP_GRACE_MS", 60_000);
}
