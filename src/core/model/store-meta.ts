import * as z from "zod/mini";
import { canonicalJson } from "../canonical-json.ts";
import { DECAY_MODELS, DEFAULT_DECAY, DEFAULT_SCORING } from "../decay.ts";
import { NullableText, NullableTimestamp, TimestampSchema, UnitInterval } from "./common.ts";
import { keyOrderOf } from "./key-order.ts";
import { DEFAULT_SHARD_THRESHOLD, LAYOUTS, STORAGE_VERSION } from "./vocab.ts";

// .meta.json: the store's own record. It is synced, so it holds only what every machine shares;
// machine-local state lives under .memsync/ and is never committed.

const Positive = z.number().check(z.gt(0));
const NonNegative = z.number().check(z.minimum(0));

/** The decay score's model and parameters (formulas and defaults: core/decay.ts). */
export const DecaySettingsSchema = z.looseObject({
  model: z._default(z.enum(DECAY_MODELS), DEFAULT_DECAY.model),
  beta: z._default(NonNegative, DEFAULT_DECAY.beta),
  half_life_days: z._default(Positive, DEFAULT_DECAY.half_life_days),
  alpha: z._default(Positive, DEFAULT_DECAY.alpha),
  lambda: z._default(Positive, DEFAULT_DECAY.lambda),
  fast_lambda: z._default(Positive, DEFAULT_DECAY.fast_lambda),
  slow_lambda: z._default(Positive, DEFAULT_DECAY.slow_lambda),
  fast_weight: z._default(UnitInterval, DEFAULT_DECAY.fast_weight),
});

export const PromoteSettingsSchema = z.looseObject({
  threshold: z._default(NonNegative, DEFAULT_SCORING.promote.threshold),
  min_uses: z._default(z.int().check(z.minimum(1)), DEFAULT_SCORING.promote.min_uses),
  window_days: z._default(NonNegative, DEFAULT_SCORING.promote.window_days),
});

export const DangerZoneSchema = z.looseObject({
  min: z._default(NonNegative, DEFAULT_SCORING.danger_zone.min),
  max: z._default(NonNegative, DEFAULT_SCORING.danger_zone.max),
});

export const StoreSettingsSchema = z.looseObject({
  /** auto: flat until the store holds shard_threshold memories, then new files go to shards. */
  layout: z._default(z.enum(LAYOUTS), "auto"),
  shard_threshold: z._default(z.int().check(z.minimum(0)), DEFAULT_SHARD_THRESHOLD),
  /**
   * The machine that runs maintenance (gc, consolidate, split, promote). Another machine is refused
   * unless it takes the role over explicitly, so two machines never rewrite the same store at once.
   */
  maintainer: NullableText,
  decay: z.prefault(DecaySettingsSchema, {}),
  /** gc removes active memories scoring below this. */
  forget_threshold: z._default(NonNegative, DEFAULT_SCORING.forget_threshold),
  /** promote --auto: see promotionCheck in core/decay.ts. */
  promote: z.prefault(PromoteSettingsSchema, {}),
  /** Scores inside (min, max) get a review priority. */
  danger_zone: z.prefault(DangerZoneSchema, {}),
});

export const StoreMetaSchema = z.looseObject({
  storage_version: z.literal(STORAGE_VERSION),
  created_at: TimestampSchema,
  machine_id: NullableText,
  last_gc_at: NullableTimestamp,
  last_consolidation_at: NullableTimestamp,
  migrated_from: NullableText,
  settings: z.prefault(StoreSettingsSchema, {}),
});

export type StoreMeta = z.output<typeof StoreMetaSchema>;

const META_ORDER = keyOrderOf(StoreMetaSchema);

export function storeMetaToJson(m: StoreMeta): string {
  return canonicalJson(m, META_ORDER);
}
