import process from "node:process";
import { unavailable } from "../core/errors.ts";
import { runtimeName } from "./host.ts";

// Serving HTTP, the one runtime-specific part of `memsync serve`: Bun.serve in the compiled
// binary, Deno.serve from source. The app is a plain fetch handler (web-standard Request and
// Response), the same under both.

/** What the server knows of a request beyond the Request itself (Hono's c.env). */
export interface ServeEnv {
  /** The peer's IP address; undefined on a Unix socket. */
  remote?: string | undefined;
}

export type FetchHandler = (req: Request, env: ServeEnv) => Response | Promise<Response>;

export type Address = { hostname: string; port: number } | { socket: string };

export interface Listening {
  /** http://HOST:PORT, or unix:PATH. */
  url: string;
  /**
   * Stop accepting connections; requests already in progress go on, idle connections are closed.
   * Resolves once the runtime has let go of every connection (their answers written).
   */
  close(): Promise<void>;
}

declare const Bun: {
  serve(o: Record<string, unknown>): { port: number; hostname: string; stop(force?: boolean): Promise<void> | void };
};
type BunServer = { requestIP(req: Request): { address: string } | null };
type DenoInfo = { remoteAddr?: { hostname?: string } };
declare const Deno: {
  serve(o: Record<string, unknown>, h: (req: Request, info: DenoInfo) => Response | Promise<Response>): { shutdown(): Promise<void>; finished: Promise<void> };
  addSignalListener(sig: string, fn: () => void): void;
};

const urlOf = (hostname: string, port: number) => `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;

function refused(where: string, e: unknown): Error {
  return unavailable(`cannot listen on ${where}: ${e instanceof Error ? e.message : String(e)}`);
}

export async function listen(fetch: FetchHandler, at: Address, maxBodyBytes: number): Promise<Listening> {
  const where = "socket" in at ? at.socket : urlOf(at.hostname, at.port);
  if (runtimeName === "bun") {
    let server: ReturnType<typeof Bun.serve>;
    try {
      server = Bun.serve({
        fetch: (req: Request, srv: BunServer) => fetch(req, { remote: srv.requestIP(req)?.address }),
        // Bun's own hard cap, twice the app's (app.ts, Hono's bodyLimit): a body a little over the
        // limit gets the app's JSON 413; a far larger one is cut off by Bun (a 413 with no body)
        maxRequestBodySize: maxBodyBytes * 2,
        // the longest Bun allows: a sync request may wait on the network that long
        idleTimeout: 255,
        ...("socket" in at ? { unix: at.socket } : { hostname: at.hostname, port: at.port }),
      });
    } catch (e) {
      throw refused(where, e);
    }
    return { url: "socket" in at ? `unix:${at.socket}` : urlOf(at.hostname, server.port), close: async () => void (await server.stop(false)) };
  }
  if (runtimeName === "deno") {
    return new Promise((resolve, reject) => {
      try {
        // shutdown(), never the abort signal: Deno's abort is a hard stop that closes connections
        // whose answers are being handled or not yet written out (seen under load: a clean stop's
        // answers lost); shutdown lets them finish and closes the idle ones
        let server: { shutdown(): Promise<void> } | undefined;
        const close = async () => {
          await server?.shutdown();
        };
        server = Deno.serve(
          {
            ...("socket" in at ? { transport: "unix", path: at.socket } : { hostname: at.hostname, port: at.port }),
            onListen: (addr: { hostname?: string; port?: number; path?: string }) =>
              resolve({ url: "socket" in at ? `unix:${at.socket}` : urlOf(at.hostname, addr.port ?? at.port), close }),
          },
          (req, info) => fetch(req, { remote: info?.remoteAddr?.hostname }),
        );
      } catch (e) {
        reject(refused(where, e));
      }
    });
  }
  throw unavailable("memsync serve runs under Bun (the compiled binary) or Deno");
}

/**
 * Until the runtime has read the requests clients had already sent when the stop began, so that
 * closing the idle connections (Listening.close) does not drop one unread: Bun runs the signal's
 * handler before it reads a kept-alive connection that became readable while the thread was busy
 * (a write waiting for the store's lock blocks it), and its graceful stop then closes that
 * connection as idle, request and all (the client gets a reset). Waits, a timer turn at a time
 * (the runtime polls its sockets between two), until `quietTurns` turns in a row and at least
 * `quietMs` saw no new request; at most `capMs` in all once `quietTurns` turns have run (clients
 * that keep sending do not hold the stop up).
 */
export async function settle(arrivals: () => number, quietTurns = 3, quietMs = 50, capMs = 2_000): Promise<void> {
  const start = Date.now();
  let seen = arrivals();
  let lastAt = start;
  for (let turns = 1, quiet = 0; ; turns++) {
    await new Promise((r) => setTimeout(r, 10));
    const now = Date.now();
    if (arrivals() !== seen) {
      seen = arrivals();
      lastAt = now;
      quiet = 0;
    } else quiet++;
    if (quiet >= quietTurns && now - lastAt >= quietMs) return;
    if (turns >= quietTurns && now - start >= capMs) return;
  }
}

/** Call fn once on the first SIGTERM or SIGINT. */
export function onStopSignal(fn: (signal: string) => void): void {
  let done = false;
  const once = (sig: string) => () => {
    if (done) return;
    done = true;
    fn(sig);
  };
  for (const sig of ["SIGTERM", "SIGINT"]) {
    if (runtimeName === "deno") Deno.addSignalListener(sig, once(sig));
    else process.on(sig, once(sig));
  }
}

export function exitNow(code: number): never {
  process.exit(code);
}
