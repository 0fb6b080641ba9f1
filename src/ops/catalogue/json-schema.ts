import { jsonSchemaOf } from "../../core/model/json-schema-of.ts";
import { notFound } from "../../core/errors.ts";
import { opNamed } from "./index.ts";

// The catalogue's schemas as JSON Schema (draft 2020-12), by @valibot/to-json-schema (core/model/json-schema-of.ts): the documents the
// API (OpenAPI 3.1) and MCP (inputSchema, outputSchema) derive from the catalogue. An input is
// described as a caller may send it (io: input: fields with defaults are optional); an output as
// an operation returns it (io: output: every field it always has is required).

export type JsonSchema = Record<string, unknown>;

async function entry(name: string) {
  const info = opNamed(name);
  if (!info) throw notFound(`no operation ${JSON.stringify(name.slice(0, 40))} in this build`);
  return { info, impl: await info.load() };
}

/** What a call of the entry takes; described by the entry's summary. */
export async function inputJsonSchema(name: string): Promise<JsonSchema> {
  const { info, impl } = await entry(name);
  const out = jsonSchemaOf(impl.input, "input");
  return { $schema: out.$schema, title: `${info.name} input`, description: info.summary, ...out };
}

/** What the entry returns; titled by its output type's name. */
export async function outputJsonSchema(name: string): Promise<JsonSchema> {
  const { info, impl } = await entry(name);
  const out = jsonSchemaOf(await impl.output(), "output");
  // one of several objects (save: one memory or a list) is an object too: MCP wants that said at the top
  const anyOf = out.anyOf as JsonSchema[] | undefined;
  const object = anyOf?.every((s) => s.type === "object") ? { type: "object" } : {};
  return { $schema: out.$schema, title: info.output, ...object, ...out };
}
