import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import pkg from "../../../package.json" with { type: "json" };
import type { OpsEnv } from "../../ops/context.ts";
import { KeptStore } from "../../ops/kept-store.ts";
import { keepIndexMerged } from "../../ops/index-upkeep.ts";
import type { ApiContext } from "./context.ts";
import { apiError, errorResponse } from "./errors.ts";
import { processGate } from "../../ops/gate.ts";
import { guard, type GuardOptions } from "./guard.ts";
import { HealthChecks, healthReporter, healthRoute } from "./health.ts";
import { hookRoutes } from "./hook-route.ts";
import { opRoutes } from "./op-routes.ts";
import { openApiDocument } from "./openapi.ts";
import { SyncRunner } from "./sync-runner.ts";
import { TokenGuesses } from "./token-guesses.ts";
import { isWebPath, webGuard } from "../web/auth.ts";

// The one Hono app of `memsync serve`, the same under Bun.serve and Deno.serve
// (runtime/serve.ts): guard, body limit, then the routes.

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface ApiOptions {
  env: OpsEnv;
  self: readonly string[];
  guard: GuardOptions;
  bodyLimit?: number;
  /** Background sync interval; null: none. */
  syncEveryMs?: number | null;
  /** How old the last full health check may be before a health call starts the next. */
  fullCheckEveryMs?: number;
}

export interface Api {
  app: Hono;
  sync: SyncRunner;
  /** Requests being answered. */
  inFlight(): number;
  /** Requests that reached the app so far (answered or not). */
  arrivals(): number;
  /**
   * The server is stopping: a request that reaches the app from now on is answered 503
   * `unavailable` ("the server is stopping") without touching the store, and every answer from
   * now on closes its connection (so no client sends another request on it).
   */
  beginStop(): void;
  /** Close the store kept open (after the last request). */
  close(): void;
}

/** The same answer, telling the client the connection closes after it. */
function closingConnection(res: Response): Response {
  try {
    res.headers.set("connection", "close");
    return res;
  } catch {
    // a response whose headers cannot change (one passed through from fetch): a copy
    const headers = new Headers(res.headers);
    headers.set("connection", "close");
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

/**
 * A request read after the stop began (a client may have sent it well before: while a write
 * blocked the thread waiting for the store's lock, nothing was read): refused, nothing changed,
 * the client may send it again once the server is back. Its body is read first, so the
 * connection's close does not meet unread bytes (the kernel would then reset the connection, and
 * the client could lose this answer).
 */
async function stoppingAnswer(req: Request): Promise<Response> {
  if (req.body) await req.arrayBuffer().catch(() => undefined);
  const res = closingConnection(apiError("unavailable", "the server is stopping: send the request again once it is back"));
  res.headers.set("retry-after", "1");
  return res;
}

export function createApi(opts: ApiOptions): Api {
  // one store kept open across requests (ops/kept-store.ts), not one opened per request
  const own = opts.env.kept ? null : new KeptStore(opts.env.storeRoot, opts.env.open);
  const env: OpsEnv = own ? { ...opts.env, kept: own } : opts.env;
  const api: ApiContext = { env, gate: processGate, sync: new SyncRunner(opts.env.storeRoot, opts.self, opts.syncEveryMs ?? null), self: opts.self };
  const limit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  let inFlight = 0;
  let arrivals = 0;
  let stopping = false;
  const app = new Hono();
  app.use("*", async (c, next) => {
    arrivals++;
    if (stopping) return stoppingAnswer(c.req.raw);
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
    if (stopping) {
      const closed = closingConnection(c.res);
      if (closed !== c.res) c.res = closed;
    }
  });
  // the memory browser (faces/web) has its own guard: the same Host/Origin rules, a cookie
  // instead of a bearer token, and CSRF checks on every change
  // one count of wrong tokens for the API and the page's sign-in (the same token guessed)
  const guardOpts: GuardOptions = opts.guard.token !== null && !opts.guard.guesses ? { ...opts.guard, guesses: new TokenGuesses() } : opts.guard;
  const apiGuard = guard(guardOpts);
  const pageGuard = webGuard(guardOpts);
  app.use("*", (c, next) => (isWebPath(c.req.path) ? pageGuard(c, next) : apiGuard(c, next)));
  app.use("*", bodyLimit({ maxSize: limit, onError: () => apiError("too_large", `the request body is larger than ${limit} bytes`) }));
  let doc: Promise<object> | undefined;
  app.get("/v1/openapi.json", async (c) => c.json(await (doc ??= openApiDocument(pkg.version))));
  // the kept store's full-text index merged while no request runs (ops/index-upkeep.ts)
  const upkeep = own ? keepIndexMerged(own, () => inFlight === 0 && processGate.idle) : null;
  const checks = new HealthChecks(api, opts.fullCheckEveryMs);
  // the page's health view answers from the same cheap facts and background full check
  api.health = healthReporter(api, checks, pkg.version);
  healthRoute(app, api.health);
  hookRoutes(app, api);
  // MCP over Streamable HTTP (src/faces/mcp): behind the same guard and body limit; the SDK is
  // loaded on the first /mcp request, so a server that never serves MCP never loads it
  let mcp: Promise<(req: Request) => Promise<Response | undefined>> | undefined;
  const mcpRoute = async (c: Context) => {
    mcp ??= import("../mcp/http.ts").then((m) => m.mcpMount(() => ({ env }), { checked: true, maxRequestBodySize: limit }));
    return (await (await mcp)(c.req.raw)) ?? apiError("not_found", "no such MCP endpoint: /mcp or /mcp/<profile>");
  };
  app.all("/mcp", mcpRoute);
  app.all("/mcp/:profile", mcpRoute);
  // the memory browser: its module is loaded on the first page asked for, like MCP's
  let web: Promise<Hono> | undefined;
  const webRoute = async (c: Context) => (await (web ??= import("../web/routes.ts").then((m) => m.webApp(api, guardOpts)))).fetch(c.req.raw, c.env);
  app.all("/", webRoute);
  app.all("/favicon.ico", webRoute);
  app.all("/ui", webRoute);
  app.all("/ui/*", webRoute);
  opRoutes(app, api);
  app.notFound(() => apiError("not_found", "no such route: the API is under /v1/ (GET /v1/openapi.json lists it)"));
  app.onError((e) => errorResponse(e));
  return { app, sync: api.sync, inFlight: () => inFlight, arrivals: () => arrivals, beginStop: () => void (stopping = true), close: () => {
      checks.stop();
      upkeep?.stop();
      own?.close();
    },
  };
}
