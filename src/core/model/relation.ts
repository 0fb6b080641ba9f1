import * as z from "zod/mini";
import { canonicalJson } from "../canonical-json.ts";
import { FreeObject, IdSchema, TimestampSchema, UnitInterval } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { RELATION_TYPES } from "./vocab.ts";

// A typed, directed edge between two memories, one file per relation.

export const RelationSchema = z.looseObject({
  id: IdSchema,
  from_memory_id: IdSchema,
  to_memory_id: IdSchema,
  relation_type: z.enum(RELATION_TYPES),
  strength: z._default(UnitInterval, 1),
  created_at: TimestampSchema,
  metadata: FreeObject,
});

export type Relation = z.output<typeof RelationSchema>;

const RELATION_ORDER = keyOrderOf(RelationSchema);

export function relationToJson(r: Relation): string {
  return canonicalJson(r, RELATION_ORDER);
}
