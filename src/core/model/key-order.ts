import type { KeyOrder } from "../canonical-json.ts";

// Derive the canonical key order from a zod schema, so the schema stays the single definition of
// a shape: adding a field to the schema is all it takes for files to carry it in order.

interface ZodLike {
  _zod: { def: { type: string; shape?: Record<string, ZodLike>; innerType?: ZodLike; in?: ZodLike } };
}

function unwrap(schema: ZodLike): ZodLike {
  let s = schema;
  for (;;) {
    const def = s._zod.def;
    if ((def.type === "default" || def.type === "nullable" || def.type === "optional" || def.type === "prefault") && def.innerType) {
      s = def.innerType;
    } else if (def.type === "pipe" && def.in) {
      s = def.in;
    } else {
      return s;
    }
  }
}

export function keyOrderOf(schema: unknown): KeyOrder {
  const obj = unwrap(schema as ZodLike);
  const shape = obj._zod.def.shape;
  if (!shape) return { keys: [], nested: {} };
  const nested: Record<string, KeyOrder> = {};
  for (const [k, child] of Object.entries(shape)) {
    const inner = unwrap(child);
    if (inner._zod.def.type === "object") nested[k] = keyOrderOf(inner);
  }
  return { keys: Object.keys(shape), nested };
}
