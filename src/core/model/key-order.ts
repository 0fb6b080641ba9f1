import type { KeyOrder } from "../canonical-json.ts";

// Derive the canonical key order from a valibot schema, so the schema stays the single definition
// of a shape: adding a field to the schema is all it takes for files to carry it in order.

/** What key order reads of a schema: valibot schemas are plain objects (a pipe keeps its first schema's fields). */
interface SchemaLike {
  type: string;
  entries?: Record<string, SchemaLike>;
  wrapped?: SchemaLike;
}

function unwrap(schema: SchemaLike): SchemaLike {
  let s = schema;
  while ((s.type === "optional" || s.type === "nullable" || s.type === "nullish" || s.type === "exact_optional") && s.wrapped) s = s.wrapped;
  return s;
}

export function keyOrderOf(schema: unknown): KeyOrder {
  const obj = unwrap(schema as SchemaLike);
  const shape = obj.entries;
  if (!shape) return { keys: [], nested: {} };
  const nested: Record<string, KeyOrder> = {};
  for (const [k, child] of Object.entries(shape)) {
    const inner = unwrap(child);
    if (inner.entries) nested[k] = keyOrderOf(inner);
  }
  return { keys: Object.keys(shape), nested };
}
