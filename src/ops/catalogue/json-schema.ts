import * as z from "zod/mini";
import { notFound } from "../../core/errors.ts";
import { opNamed } from "./index.ts";

// The catalogue's schemas as JSON Schema (draft 2020-12), by zod's own export: the documents the
// API (OpenAPI 3.1) and MCP (inputSchema, outputSchema) derive from the catalogue. An input is
// described as a caller may send it (io: input: fields with defaults are optional); an output as
// an operation returns it (io: output: every field it always has is required).

export type JsonSchema = Record<string, unknown>;

async function implOf(name: string) {
  const info = opNamed(name);
  if (!info) throw notFound(`no operation ${JSON.stringify(name.slice(0, 40))} in this build`);
  return info.load();
}

export async function inputJsonSchema(name: string): Promise<JsonSchema> {
  const impl = await implOf(name);
  return z.toJSONSchema(impl.input as unknown as z.ZodMiniType, { io: "input", target: "draft-2020-12" }) as JsonSchema;
}

export async function outputJsonSchema(name: string): Promise<JsonSchema> {
  const impl = await implOf(name);
  const out = z.toJSONSchema(await impl.output(), { io: "output", target: "draft-2020-12" }) as JsonSchema;
  // one of several objects (save: one memory or a list) is an object too: MCP wants that said at the top
  const anyOf = out.anyOf as JsonSchema[] | undefined;
  return anyOf?.every((s) => s.type === "object") ? { $schema: out.$schema, type: "object", ...out } : out;
}
