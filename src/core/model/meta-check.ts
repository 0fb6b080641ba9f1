import { DECAY_MODELS } from "../decay.ts";
import { LAYOUTS } from "./vocab.ts";

// .meta.json checked by hand, as StoreMetaSchema (store-meta.ts) checks it and in the same words
// (describeIssue in validate.ts): every command opens the store through this, so all of them
// refuse a broken .meta.json alike, and read commands still never load the schema library
// (~5 ms of start-up). A test compares the two on broken files (tests/core/meta-check.test.ts).

type Check = (v: unknown) => string | null;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const num =
  (min?: number, max?: number, gt?: number): Check =>
  (v) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return "must be a number";
    if (gt !== undefined && !(v > gt)) return `must be greater than ${gt}`;
    if (min !== undefined && v < min) return `must be at least ${min}`;
    if (max !== undefined && v > max) return `must be at most ${max}`;
    return null;
  };

const int =
  (min: number): Check =>
  (v) => {
    if (typeof v !== "number") return "must be a number";
    if (!Number.isInteger(v)) return "must be an integer";
    return v < min ? `must be at least ${min}` : null;
  };

const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    values.includes(v as string) ? null : `must be one of ${values.join(", ")}`;

const text: Check = (v) => (typeof v === "string" ? null : "must be a string");

/** A field that may be missing (the schema fills in a default) or, with nullable, null. */
const optional =
  (check: Check, nullable = false): Check =>
  (v) =>
    v === undefined || (nullable && v === null) ? null : check(v);

type Shape = { [key: string]: Check | Shape };

const DECAY: Shape = {
  model: optional(oneOf(DECAY_MODELS)),
  beta: optional(num(0)),
  half_life_days: optional(num(undefined, undefined, 0)),
  alpha: optional(num(undefined, undefined, 0)),
  lambda: optional(num(undefined, undefined, 0)),
  fast_lambda: optional(num(undefined, undefined, 0)),
  slow_lambda: optional(num(undefined, undefined, 0)),
  fast_weight: optional(num(0, 1)),
};

const SETTINGS: Shape = {
  layout: optional(oneOf(LAYOUTS)),
  shard_threshold: optional(int(0)),
  maintainer: optional(text, true),
  decay: DECAY,
  forget_threshold: optional(num(0)),
  promote: { threshold: optional(num(0)), min_uses: optional(int(1)), window_days: optional(num(0)) },
  danger_zone: { min: optional(num(0)), max: optional(num(0)) },
};

const META: Shape = {
  created_at: num(0),
  machine_id: optional(text, true),
  last_gc_at: optional(num(0), true),
  last_consolidation_at: optional(num(0), true),
  migrated_from: optional(text, true),
  settings: SETTINGS,
};

function walk(shape: Shape, value: Record<string, unknown>, at: string, out: string[]): void {
  for (const [key, check] of Object.entries(shape)) {
    const where = at ? `${at}.${key}` : key;
    const v = value[key];
    if (typeof check === "function") {
      const problem = check(v);
      if (problem) out.push(v === undefined ? `${where} is required` : `${where} ${problem}`);
    } else if (v !== undefined) {
      // a nested object may be missing (its defaults apply), but not of another type
      if (isObj(v)) walk(check, v, where, out);
      else out.push(`${where} must be an object`);
    }
  }
}

/** What is wrong with a parsed .meta.json (storage_version aside), in the schema's words; null if nothing. */
export function metaProblem(raw: Record<string, unknown>): string | null {
  const issues: string[] = [];
  walk(META, raw, "", issues);
  if (issues.length === 0) return null;
  const first = issues.slice(0, 3).join("; ");
  return issues.length > 3 ? `${first}; and ${issues.length - 3} more` : first;
}
