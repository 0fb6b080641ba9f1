import * as v from "./valibot.ts";
import { canonicalJson } from "../canonical-json.ts";
import { FreeObject, IdSchema, TimestampSchema, UnitInterval } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { RELATION_TYPES } from "./vocab.ts";

// A typed, directed edge between two memories, one file per relation.

export const RelationSchema = v.looseObject({
  id: IdSchema,
  from_memory_id: IdSchema,
  to_memory_id: IdSchema,
  relation_type: v.picklist(RELATION_TYPES),
  strength: v.optional(UnitInterval, 1),
  created_at: TimestampSchema,
  metadata: FreeObject,
});

export type Relation = v.InferOutput<typeof RelationSchema>;

const RELATION_ORDER = keyOrderOf(RelationSchema);

export function relationToJson(r: Relation): string {
  return canonicalJson(r, RELATION_ORDER);
}
