import { CATALOGUE } from "../../ops/catalogue/index.ts";
import { EDITION } from "../../runtime/edition.ts";
import { type JsonSchema, schemasOf } from "./schemas.ts";

// `GET /v1/openapi.json`, generated from the catalogue: one path per entry (POST; GET too for the
// read-only ones, its input as query parameters), with each entry's input and output schemas.

const ERROR: JsonSchema = {
  type: "object",
  properties: { error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, required: ["code", "message"] } },
  required: ["error"],
};

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

const ERRORS = {
  "400": errorResponse("invalid input (invalid_input, usage)"),
  "401": errorResponse("no bearer token (unauthorized)"),
  "403": errorResponse("wrong token, or a Host or Origin that is not this server's (forbidden); a write to a store this server may only read (read_only)"),
  "404": errorResponse("not found (not_found)"),
  "409": errorResponse("conflict"),
  "413": errorResponse("body too large (too_large)"),
  "429": errorResponse("too many wrong tokens from this address: wait Retry-After seconds (too_many_requests)"),
  "500": errorResponse("corrupt or internal"),
  "503": errorResponse("store unavailable or busy (unavailable)"),
  "504": errorResponse("the git remote stalled during a sync (timeout)"),
};

const HOOK_EVENTS = ["SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd", "SubagentStart", "SubagentStop"];

export async function openApiDocument(version: string): Promise<object> {
  const paths: Record<string, object> = {};
  for (const info of CATALOGUE) {
    const { input, output } = await schemasOf(info);
    const ok = { "200": { description: info.output, content: { "application/json": { schema: output } } }, ...ERRORS };
    const tags = [info.maintenance ? "maintenance" : info.readOnly ? "read" : "write"];
    const common = { summary: info.summary, tags, "x-memsync": { readOnly: info.readOnly, destructive: info.destructive, idempotent: info.idempotent, maintenance: info.maintenance } };
    const item: Record<string, object> = {
      post: { ...common, operationId: info.name, requestBody: { required: false, content: { "application/json": { schema: input } } }, responses: ok },
    };
    if (info.readOnly) {
      const required = new Set(input.required ?? []);
      const parameters = Object.entries(input.properties ?? {}).map(([name, schema]) => ({
        name,
        in: "query",
        required: required.has(name),
        schema,
        ...(schema.type === "array" ? { style: "form", explode: true } : {}),
      }));
      item.get = { ...common, operationId: `${info.name}_get`, parameters, responses: ok };
    }
    paths[`/v1/${info.name}`] = item;
  }
  paths["/v1/health"] = { get: { summary: "the store's health from cheap facts and the last full check (?full=1 runs one now), unpushed commits, the last sync and its result", operationId: "health", responses: { "200": { description: "health" }, ...ERRORS } } };
  paths["/v1/hooks/{event}"] = {
    post: {
      summary: "a Claude Code hook (type: http): the event's JSON in, the documented hook JSON out (as `memsync hook EVENT`)",
      operationId: "hook",
      parameters: [
        { name: "event", in: "path", required: true, schema: { type: "string", enum: HOOK_EVENTS } },
        { name: "project", in: "query", required: false, schema: { type: "string" } },
      ],
      requestBody: { content: { "application/json": { schema: { type: "object" } } } },
      responses: { "200": { description: "hook JSON output" } },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "memsync", version, description: `memsync's API (${EDITION} build): one route per catalogue operation` },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }, {}],
    components: { schemas: { Error: ERROR }, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}
