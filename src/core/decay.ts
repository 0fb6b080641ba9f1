// How strongly a memory is still held: the decay score every maintenance step (gc, promote,
// review) and recall rank by. Pure arithmetic, no schemas, so any hot path can import it.
//
//   score = (use_count + 1)^beta · f(Δt) · strength          Δt = now − last_used, in seconds
//
// f is the retention curve of the store's decay model (settings.decay.model), each computed as
// chosen (CortexGraph's releases compute plain exponential whatever model is configured):
//
//   power_law      f(Δt) = (1 + Δt/t0)^(−alpha),  t0 = H / (2^(1/alpha) − 1)
//                  H = half_life_days · 86400 s, so f(H) = 1/2 exactly; the tail is heavy, so a
//                  memory that mattered fades slowly once it has faded a little. The default.
//   exponential    f(Δt) = e^(−lambda·Δt)
//   two_component  f(Δt) = w·e^(−fast_lambda·Δt) + (1 − w)·e^(−slow_lambda·Δt)
//                  most of a fresh trace goes fast (hours), a share w' = 1 − w lingers (a week).
//
// Parameters are CortexGraph's published defaults (its configuration documentation; the seed spec
// has no formulas): power law alpha 1.1, half-life 3 days; exponential lambda 2.673e-6 /s (its
// "3-day half-life", rounded: the half-life is 3.0013 days, which is why 3 days gives 0.50015);
// two-component w 0.7, fast 1.603e-5 /s (12 hours), slow 1.147e-6 /s (7 days); beta 0.6;
// forget threshold 0.05; promote threshold 0.65 with 5 uses in a 14-day window.

export const DECAY_MODELS = ["power_law", "exponential", "two_component"] as const;
export type DecayModel = (typeof DECAY_MODELS)[number];

export const SECONDS_PER_DAY = 86_400;

export interface DecaySettings {
  model: DecayModel;
  /** Weight of use: (use_count + 1)^beta. */
  beta: number;
  /** power_law: the time at which f = 1/2, in days. */
  half_life_days: number;
  /** power_law: the shape; larger forgets faster after the half-life. */
  alpha: number;
  /** exponential: rate per second. */
  lambda: number;
  /** two_component: rates per second and the weight of the fast one (0..1). */
  fast_lambda: number;
  slow_lambda: number;
  fast_weight: number;
}

export interface ScoringSettings {
  decay: DecaySettings;
  /** gc removes active memories scoring below this. */
  forget_threshold: number;
  /** See promotionCheck. */
  promote: { threshold: number; min_uses: number; window_days: number };
  /** Memories scoring inside (min, max) are about to be forgotten: review them (reviewPriority). */
  danger_zone: { min: number; max: number };
}

export const DEFAULT_DECAY: Readonly<DecaySettings> = Object.freeze({
  model: "power_law",
  beta: 0.6,
  half_life_days: 3,
  alpha: 1.1,
  lambda: 2.673e-6,
  fast_lambda: 1.603e-5,
  slow_lambda: 1.147e-6,
  fast_weight: 0.7,
});

export const DEFAULT_SCORING: Readonly<ScoringSettings> = Object.freeze({
  decay: DEFAULT_DECAY,
  forget_threshold: 0.05,
  promote: Object.freeze({ threshold: 0.65, min_uses: 5, window_days: 14 }),
  danger_zone: Object.freeze({ min: 0.15, max: 0.35 }),
});

/** The fields of a memory its score depends on. */
export interface ScoreInputs {
  use_count: number;
  last_used: number;
  strength: number;
}

/** power_law's characteristic time t0 (seconds) for its half-life and shape. */
export function powerLawT0(s: Pick<DecaySettings, "half_life_days" | "alpha">): number {
  return (s.half_life_days * SECONDS_PER_DAY) / (2 ** (1 / s.alpha) - 1);
}

/** Retention f(Δt) of the chosen model: 1 at Δt = 0, strictly decreasing towards 0. */
export function retention(dtSeconds: number, s: DecaySettings): number {
  const dt = Math.max(0, dtSeconds);
  switch (s.model) {
    case "power_law":
      return (1 + dt / powerLawT0(s)) ** -s.alpha;
    case "exponential":
      return Math.exp(-s.lambda * dt);
    case "two_component":
      return s.fast_weight * Math.exp(-s.fast_lambda * dt) + (1 - s.fast_weight) * Math.exp(-s.slow_lambda * dt);
  }
}

/** (use_count + 1)^beta · strength: the score at Δt = 0. */
function reinforcement(m: ScoreInputs, s: DecaySettings): number {
  return (Math.max(0, m.use_count) + 1) ** s.beta * m.strength;
}

/**
 * The decay score of a memory at `nowSeconds` (Unix seconds, the unit records use). A last_used
 * in the future (another machine's clock) counts as now.
 */
export function scoreMemory(m: ScoreInputs, nowSeconds: number, s: DecaySettings = DEFAULT_DECAY): number {
  return reinforcement(m, s) * retention(nowSeconds - m.last_used, s);
}

/** The Δt at which f(Δt) = r (0 < r < 1), exactly per model. */
function retentionInverse(r: number, s: DecaySettings): number {
  switch (s.model) {
    case "power_law":
      return powerLawT0(s) * (r ** (-1 / s.alpha) - 1);
    case "exponential":
      return -Math.log(r) / s.lambda;
    case "two_component":
      return solveDecreasing((t) => retention(t, s) - r);
  }
}

/**
 * The root of a strictly decreasing g with g(0) > 0 (a sum of exponentials has no closed-form
 * inverse): bracket by doubling, then bisect until the interval stops shrinking.
 */
function solveDecreasing(g: (t: number) => number): number {
  let lo = 0;
  let hi = 1;
  while (g(hi) > 0) {
    lo = hi;
    hi *= 2;
    if (hi > 1e15) return Number.POSITIVE_INFINITY;
  }
  for (let i = 0; i < 200; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (g(mid) > 0) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Seconds from now until the score falls to `threshold`: 0 when it already has, Infinity when it
 * never will (a threshold of 0). scoreMemory at now + this equals the threshold.
 */
export function timeUntilThreshold(m: ScoreInputs, nowSeconds: number, threshold: number, s: DecaySettings = DEFAULT_DECAY): number {
  const base = reinforcement(m, s);
  if (threshold <= 0) return Number.POSITIVE_INFINITY;
  const elapsed = Math.max(0, nowSeconds - m.last_used);
  const r = threshold / base;
  if (!(r < retention(elapsed, s))) return 0;
  return Math.max(0, retentionInverse(r, s) - elapsed);
}

/**
 * How urgently a memory wants a review: 0 outside the danger zone, rising on a parabola to 1 at
 * its middle (with the default zone 0.15..0.35: 0.20 → 0.75, 0.25 → 1, 0.30 → 0.75). A memory
 * there is about to be forgotten but still worth keeping if it is used again.
 */
export function reviewPriority(score: number, zone: ScoringSettings["danger_zone"] = DEFAULT_SCORING.danger_zone): number {
  if (!(score > zone.min && score < zone.max)) return 0;
  const half = (zone.max - zone.min) / 2;
  const x = (score - (zone.min + half)) / half;
  return Math.max(0, Math.min(1, 1 - x * x));
}

export interface PromotionInputs extends ScoreInputs {
  created_at: number;
  status: string;
}

export type PromotionVerdict =
  | { eligible: true; score: number; reason: "reinforced" | "burst" }
  | { eligible: false; score: number; reason: string };

/**
 * Whether a memory has earned long-term storage. A score alone never promotes: a fresh memory
 * never used scores 1.0 (above any sensible threshold) and has proved nothing. So both rules ask
 * for real use, `promote.min_uses` uses (5), and then either
 *   reinforced: the score is still at least `promote.threshold` (0.65): used that often and
 *               recently enough to be strong now (with 5 uses, within about ten days), or
 *   burst:      all those uses fell within `promote.window_days` (14) of its creation: it was
 *               needed again and again right away, even if it has rested since.
 * These are CortexGraph's two promotion rules, with its score-only path closed.
 */
export function promotionCheck(m: PromotionInputs, nowSeconds: number, settings: ScoringSettings = DEFAULT_SCORING): PromotionVerdict {
  const score = scoreMemory(m, nowSeconds, settings.decay);
  const { threshold, min_uses, window_days } = settings.promote;
  if (m.status !== "active") return { eligible: false, score, reason: `status is ${m.status}` };
  if (m.use_count < min_uses) return { eligible: false, score, reason: `used ${m.use_count} of ${min_uses} times` };
  if (score >= threshold) return { eligible: true, score, reason: "reinforced" };
  if (nowSeconds - m.created_at <= window_days * SECONDS_PER_DAY) return { eligible: true, score, reason: "burst" };
  return { eligible: false, score, reason: `score ${score.toFixed(3)} is under ${threshold} and it is older than ${window_days} days` };
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function pick<T extends object>(defaults: T, raw: unknown, ok: (key: string, v: unknown) => boolean): T {
  const out = { ...defaults } as Record<string, unknown>;
  if (typeof raw !== "object" || raw === null) return out as T;
  for (const key of Object.keys(defaults)) {
    const v = (raw as Record<string, unknown>)[key];
    if (v !== undefined && ok(key, v)) out[key] = v;
  }
  return out as T;
}

/**
 * The scoring settings from .meta.json's `settings` object as it is on disk, without the schema
 * library (a read path such as recall should not load it): each value of the right kind is taken,
 * anything missing or unusable falls back to its default. Writes go through the schema, which
 * refuses bad values, so the fallback only covers hand edits.
 */
export function scoringSettingsFrom(rawSettings: unknown): ScoringSettings {
  const raw = (typeof rawSettings === "object" && rawSettings !== null ? rawSettings : {}) as Record<string, unknown>;
  const decay = pick(DEFAULT_DECAY, raw.decay, (k, v) => {
    if (k === "model") return (DECAY_MODELS as readonly unknown[]).includes(v);
    if (k === "fast_weight") return finite(v) && v >= 0 && v <= 1;
    return finite(v) && (k === "beta" ? v >= 0 : v > 0);
  });
  const positive = (v: unknown) => finite(v) && v >= 0;
  return {
    decay,
    forget_threshold: positive(raw.forget_threshold) ? (raw.forget_threshold as number) : DEFAULT_SCORING.forget_threshold,
    promote: pick(DEFAULT_SCORING.promote, raw.promote, (_, v) => positive(v)),
    danger_zone: pick(DEFAULT_SCORING.danger_zone, raw.danger_zone, (_, v) => positive(v)),
  };
}

/** A rate per second from a half-life in seconds, and back. */
export const rateForHalfLife = (seconds: number) => Math.LN2 / seconds;
export const halfLifeOfRate = (perSecond: number) => Math.LN2 / perSecond;

/** The half-life (f = 1/2) of the chosen model, in days, for display. */
export function halfLifeDays(s: DecaySettings): number {
  return retentionInverse(0.5, s) / SECONDS_PER_DAY;
}
