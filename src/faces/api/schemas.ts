import * as z from "zod/mini";
import type { OpImpl, OpInfo } from "../../ops/catalogue/index.ts";

// JSON Schema of each catalogue entry's input and output, from its zod/mini schemas (zod's own
// export), for the OpenAPI document and for reading a GET's query string. An entry without an
// output schema gets an open object.

export type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; required?: string[]; [k: string]: unknown };

const isZod = (s: unknown): s is z.ZodMiniType => typeof s === "object" && s !== null && "_zod" in s;

function toJson(schema: unknown, io: "input" | "output"): JsonSchema {
  if (!isZod(schema)) return { type: "object" };
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return out;
}

export interface EntrySchemas {
  input: JsonSchema;
  output: JsonSchema;
}

const cache = new Map<string, Promise<EntrySchemas>>();

export function schemasOf(info: OpInfo): Promise<EntrySchemas> {
  let p = cache.get(info.name);
  if (!p) {
    p = info.load().then((impl: OpImpl & { output?: unknown }) => ({ input: toJson(impl.input, "input"), output: toJson(impl.output, "output") }));
    cache.set(info.name, p);
  }
  return p;
}
