import type { OpInfo } from "../../ops/catalogue/index.ts";
import { inputJsonSchema, type JsonSchema as CatalogueSchema, outputJsonSchema } from "../../ops/catalogue/json-schema.ts";

// Each catalogue entry's input and output as JSON Schema (the catalogue's own documents,
// ops/catalogue/json-schema.ts), for the OpenAPI document and for reading a GET's query string;
// made once per entry per process.

export type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; required?: string[]; [k: string]: unknown };

export interface EntrySchemas {
  input: JsonSchema;
  output: JsonSchema;
}

/** Without $schema: inside an OpenAPI document the dialect is the document's. */
function bare(s: CatalogueSchema): JsonSchema {
  const { $schema: _, ...rest } = s;
  return rest as JsonSchema;
}

const cache = new Map<string, Promise<EntrySchemas>>();

export function schemasOf(info: OpInfo): Promise<EntrySchemas> {
  let p = cache.get(info.name);
  if (!p) {
    p = Promise.all([inputJsonSchema(info.name), outputJsonSchema(info.name)]).then(([input, output]) => ({ input: bare(input), output: bare(output) }));
    cache.set(info.name, p);
  }
  return p;
}
