import * as z from "zod/mini";
import { canonicalJson } from "../canonical-json.ts";
import { NullableText, NullableTimestamp, TimestampSchema } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { DEFAULT_SHARD_THRESHOLD, LAYOUTS, STORAGE_VERSION } from "./vocab.ts";

// .meta.json: the store's own record. It is synced, so it holds only what every machine shares;
// machine-local state lives under .memsync/ and is never committed.

export const StoreSettingsSchema = z.looseObject({
  /** auto: flat until the store holds shard_threshold memories, then new files go to shards. */
  layout: z._default(z.enum(LAYOUTS), "auto"),
  shard_threshold: z._default(z.int().check(z.minimum(0)), DEFAULT_SHARD_THRESHOLD),
  /**
   * The machine that runs maintenance (gc, consolidate, split, promote). Another machine is refused
   * unless it takes the role over explicitly, so two machines never rewrite the same store at once.
   */
  maintainer: NullableText,
});

export const StoreMetaSchema = z.looseObject({
  storage_version: z.literal(STORAGE_VERSION),
  created_at: TimestampSchema,
  machine_id: NullableText,
  last_gc_at: NullableTimestamp,
  last_consolidation_at: NullableTimestamp,
  migrated_from: NullableText,
  settings: z._default(StoreSettingsSchema, { layout: "auto", shard_threshold: DEFAULT_SHARD_THRESHOLD, maintainer: null }),
});

export type StoreMeta = z.output<typeof StoreMetaSchema>;

const META_ORDER = keyOrderOf(StoreMetaSchema);

export function storeMetaToJson(m: StoreMeta): string {
  return canonicalJson(m, META_ORDER);
}
