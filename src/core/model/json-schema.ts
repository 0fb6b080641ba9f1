import type * as v from "valibot";
import { LIMITS } from "../labels.ts";
import { jsonSchemaOf } from "./json-schema-of.ts";
import { MemorySchema } from "./memory.ts";
import { RelationSchema } from "./relation.ts";
import { StoreMetaSchema } from "./store-meta.ts";

// The schemas as JSON Schema (draft 2020-12), for other tools reading memsync files. Files are
// described as they may be written (io: input): fields with defaults are optional.

type JsonSchema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

function publish(schema: v.GenericSchema, id: string, title: string, description: string): JsonSchema {
  const out = jsonSchemaOf(schema, "input") as JsonSchema;
  return { $schema: out.$schema, $id: id, title, description, ...out };
}

export function jsonSchemas(): Record<string, JsonSchema> {
  const memory = publish(
    MemorySchema,
    "https://memsync.dev/schema/memory.schema.json",
    "memsync memory",
    "One memory: memories/<id>.json or memories/<xx>/<id>.json. Times are Unix seconds. Unknown fields are kept.",
  );
  // refinements are not expressible in JSON Schema; state the content limits (in characters)
  const content = memory.properties?.content;
  if (content) Object.assign(content, { minLength: 1, maxLength: LIMITS.contentMax, pattern: "\\S" });
  return {
    memory,
    relation: publish(
      RelationSchema,
      "https://memsync.dev/schema/relation.schema.json",
      "memsync relation",
      "One typed, directed relation between two memories: relations/<id>.json or relations/<xx>/<id>.json.",
    ),
    "store-meta": publish(StoreMetaSchema, "https://memsync.dev/schema/store-meta.schema.json", "memsync .meta.json", "The store's own record, synced with it."),
  };
}
