import type { JsonSchema } from "./schemas.ts";

// A read's input from a query string, so `curl 'http://…/v1/search?query=redis&tag=a&tag=b'`
// works: each parameter is read as its property in the input schema says (arrays from repeated
// parameters, numbers, booleans, JSON objects). A value that does not read as its type is passed
// on as text, for the schema to refuse with the usual message.

function typeOf(s: JsonSchema | undefined): string | undefined {
  if (!s) return undefined;
  if (typeof s.type === "string") return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== "null");
  const alt = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  return alt ? alt.map(typeOf).find((t) => t !== undefined && t !== "null") : undefined;
}

function scalar(text: string, type: string | undefined): unknown {
  switch (type) {
    case "integer":
    case "number": {
      const n = Number(text);
      return text.trim() !== "" && Number.isFinite(n) ? n : text;
    }
    case "boolean":
      return text === "" || text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : text;
    case "object":
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    default:
      return text;
  }
}

export function queryInput(params: URLSearchParams, schema: JsonSchema): Record<string, unknown> {
  const props = schema.properties ?? {};
  const input: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const prop = props[key];
    if (typeOf(prop) === "array") input[key] = values.map((v) => scalar(v, typeOf(prop!.items)));
    else input[key] = scalar(values[values.length - 1]!, typeOf(prop));
  }
  return input;
}
