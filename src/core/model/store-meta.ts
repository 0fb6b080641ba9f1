import * as v from "./valibot.ts";
import { canonicalJson } from "../canonical-json.ts";
import { DECAY_MODELS, DEFAULT_DECAY, DEFAULT_SCORING } from "../decay.ts";
import { Int, Num, NullableText, NullableTimestamp, TimestampSchema, UnitInterval } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { DEFAULT_SHARD_THRESHOLD, LAYOUTS, STORAGE_VERSION } from "./vocab.ts";

// .meta.json: the store's own record. It is synced, so it holds only what every machine shares;
// machine-local state lives under .memsync/ and is never committed.

const Positive = v.pipe(Num(), v.gtValue(0));
const NonNegative = v.pipe(Num(), v.minValue(0));

/** The decay score's model and parameters (formulas and defaults: core/decay.ts). */
export const DecaySettingsSchema = v.looseObject({
  model: v.optional(v.picklist(DECAY_MODELS), DEFAULT_DECAY.model),
  beta: v.optional(NonNegative, DEFAULT_DECAY.beta),
  half_life_days: v.optional(Positive, DEFAULT_DECAY.half_life_days),
  alpha: v.optional(Positive, DEFAULT_DECAY.alpha),
  lambda: v.optional(Positive, DEFAULT_DECAY.lambda),
  fast_lambda: v.optional(Positive, DEFAULT_DECAY.fast_lambda),
  slow_lambda: v.optional(Positive, DEFAULT_DECAY.slow_lambda),
  fast_weight: v.optional(UnitInterval, DEFAULT_DECAY.fast_weight),
});

export const PromoteSettingsSchema = v.looseObject({
  threshold: v.optional(NonNegative, DEFAULT_SCORING.promote.threshold),
  min_uses: v.optional(v.pipe(Int(), v.minValue(1)), DEFAULT_SCORING.promote.min_uses),
  window_days: v.optional(NonNegative, DEFAULT_SCORING.promote.window_days),
});

export const DangerZoneSchema = v.looseObject({
  min: v.optional(NonNegative, DEFAULT_SCORING.danger_zone.min),
  max: v.optional(NonNegative, DEFAULT_SCORING.danger_zone.max),
});

export const StoreSettingsSchema = v.looseObject({
  /** auto: flat until the store holds shard_threshold memories, then new files go to shards. */
  layout: v.optional(v.picklist(LAYOUTS), "auto"),
  shard_threshold: v.optional(v.pipe(Int(), v.minValue(0)), DEFAULT_SHARD_THRESHOLD),
  /**
   * The machine that runs maintenance (gc, consolidate, split, promote). Another machine is refused
   * unless it takes the role over explicitly, so two machines never rewrite the same store at once.
   */
  maintainer: NullableText,
  decay: v.optional(DecaySettingsSchema, {}),
  /** gc removes active memories scoring below this. */
  forget_threshold: v.optional(NonNegative, DEFAULT_SCORING.forget_threshold),
  /** promote --auto: see promotionCheck in core/decay.ts. */
  promote: v.optional(PromoteSettingsSchema, {}),
  /** Scores inside (min, max) get a review priority. */
  danger_zone: v.optional(DangerZoneSchema, {}),
});

export const StoreMetaSchema = v.looseObject({
  storage_version: v.literal(STORAGE_VERSION),
  created_at: TimestampSchema,
  machine_id: NullableText,
  last_gc_at: NullableTimestamp,
  last_consolidation_at: NullableTimestamp,
  migrated_from: NullableText,
  settings: v.optional(StoreSettingsSchema, {}),
});

export type StoreMeta = v.InferOutput<typeof StoreMetaSchema>;

const META_ORDER = keyOrderOf(StoreMetaSchema);

export function storeMetaToJson(m: StoreMeta): string {
  return canonicalJson(m, META_ORDER);
}
