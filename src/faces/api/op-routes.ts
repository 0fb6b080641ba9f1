import type { Context, Hono } from "hono";
import { invalidInput, notFound } from "../../core/errors.ts";
import { parseWith } from "../../core/model/validate.ts";
import { opNamed, type OpInfo } from "../../ops/catalogue/index.ts";
import { runOp } from "../../ops/catalogue/run.ts";
import { coded } from "../../ops/catalogue/errors.ts";
import { IS_EDGE } from "../../runtime/edition.ts";
import { writeErr } from "../../runtime/host.ts";
import { jsonBody } from "./body.ts";
import type { ApiContext } from "./context.ts";
import { apiError, errorResponse } from "./errors.ts";
import { queryInput } from "./query-input.ts";
import { schemasOf } from "./schemas.ts";
import type { Direction } from "./sync-runner.ts";

// `POST /v1/<op>` for every catalogue entry (JSON body = its input, JSON answer = its output), and
// `GET /v1/<op>?…` for the read-only ones. Derived from the catalogue: a new entry is a new route.
// Writes run one at a time, reads together (gate.ts); sync goes to the server's one sync runner.

/** What this build says of an operation it does not have. */
function noSuchOp(name: string): Error {
  const shown = JSON.stringify(name.slice(0, 40));
  return IS_EDGE
    ? notFound(`no operation ${shown} in this build: the edge build (memsync-edge) leaves maintenance operations out; run them with the main build (memsync) on the store's maintainer machine`)
    : notFound(`no operation ${shown} (see GET /v1/openapi.json)`);
}

/** Entries that do not run in this process: sync runs as its own process, one at a time. */
async function runSpecial(info: OpInfo, input: Record<string, unknown>, api: ApiContext): Promise<{ out: unknown } | null> {
  if (info.name !== "sync") return null;
  const parsed = parseWith((await info.load()).input, input);
  if (!parsed.ok) throw invalidInput(`${info.name}: ${parsed.problem}`);
  return { out: await api.sync.runOrThrow((parsed.value as { direction: Direction }).direction) };
}

async function answer(c: Context, api: ApiContext, get: boolean): Promise<Response> {
  try {
    const name = c.req.param("op") ?? "";
    const info = opNamed(name);
    if (!info) throw noSuchOp(name);
    if (get && !info.readOnly) {
      const res = apiError("method_not_allowed", `${name} changes the store: POST /v1/${name} with its input as a JSON body`);
      res.headers.set("Allow", "POST");
      return res;
    }
    const input = get ? queryInput(new URL(c.req.url).searchParams, (await schemasOf(info)).input) : await jsonBody(c);
    const special = await runSpecial(info, input, api);
    const out = special ? special.out : await api.gate.run(!info.readOnly, () => runOp(name, { env: api.env }, input));
    return c.json(out as object);
  } catch (e) {
    const res = errorResponse(e);
    // a failure of the server or the store (not of the request) is worth a line for its operator;
    // the path only: a query string may hold what was asked
    if (res.status >= 500) writeErr(`memsync serve: ${c.req.method} ${c.req.path}: ${coded(e).code}: ${coded(e).message}\n`);
    return res;
  }
}

export function opRoutes(app: Hono, api: ApiContext): void {
  app.post("/v1/:op", (c) => answer(c, api, false));
  app.get("/v1/:op", (c) => answer(c, api, true));
}
