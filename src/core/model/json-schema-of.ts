import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

// A valibot schema as JSON Schema (draft 2020-12), read the way memsync documents its shapes:
// `input` as a caller may send it (a field with a default is optional; an object that drops
// unknown keys still takes them), `output` as it comes back (a field with a default is always
// there; such an object holds no other keys). A loose object says it keeps unknown keys. Checks
// JSON Schema cannot state (refinements, finiteness, the tag transform) are left out; callers add
// what they can state in other words (the content limits).

export type JsonSchema = Record<string, unknown>;

type Entry = { type: string; default?: unknown };

export function jsonSchemaOf(schema: v.GenericSchema, io: "input" | "output"): JsonSchema {
  return toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode: io,
    ignoreActions: ["check", "finite", "transform"],
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      const s = valibotSchema as unknown as { type: string; entries?: Record<string, Entry> };
      if (!s.entries) return undefined;
      const keys = Object.keys(s.entries);
      const required =
        io === "input"
          ? keys.filter((k) => s.entries![k]!.type !== "optional")
          : keys.filter((k) => s.entries![k]!.type !== "optional" || s.entries![k]!.default !== undefined);
      const out: JsonSchema = { ...jsonSchema };
      delete out.required;
      delete out.additionalProperties;
      if (required.length) out.required = required;
      if (s.type === "loose_object") out.additionalProperties = {};
      else if (s.type === "object" && io === "output") out.additionalProperties = false;
      return out;
    },
  }) as JsonSchema;
}
