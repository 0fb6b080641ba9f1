import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

// JSON Schema documents for tools, and the Standard Schema the SDK's registerTool takes. The SDK
// would validate arguments itself and answer its own error text; memsync's tools validate with
// the catalogue's valibot schemas instead (runOp: defaults, limits, invalid_input with a code), so
// the schema handed to the SDK only describes (tools/list) and lets every value through.

export type JsonSchema = Record<string, unknown>;

/** A Standard Schema that describes `json` and accepts anything (the tool checks its input itself). */
export function described(json: JsonSchema): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "memsync",
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/** MCP wants an object at the root of both schemas. */
export const isObjectSchema = (s: JsonSchema) => s.type === "object";
