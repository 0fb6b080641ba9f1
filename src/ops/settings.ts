import { halfLifeDays, rateForHalfLife } from "../core/decay.ts";
import { invalidInput } from "../core/errors.ts";
import { messages } from "../core/history.ts";
import type { StoreMeta } from "../core/model/store-meta.ts";
import type { Store } from "../store/store.ts";

// `memsync settings [key] [value]`: the store's shared settings (.meta.json, synced to every
// machine): layout, decay model and parameters, thresholds. A change is validated by the schema
// and written in one transaction (one commit). The maintainer is not a setting: it changes only
// through `memsync maintainer --claim` or a maintenance command's --claim-maintainer.

type Flat = Record<string, unknown>;

const NOT_SETTABLE: Record<string, string> = {
  maintainer: "the maintainer changes only with: maintainer claim (on the machine that takes the role)",
};

/** Rates per second that also accept a half-life (12h, 3d): the rate is ln 2 / half-life. */
const RATE_KEYS = new Set(["decay.lambda", "decay.fast_lambda", "decay.slow_lambda"]);
const DURATION: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Nested settings as dotted keys (decay.model), in the schema's order. */
export function flatten(obj: Record<string, unknown>, prefix = ""): Flat {
  const out: Flat = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObject(v)) Object.assign(out, flatten(v, key));
    else out[key] = v;
  }
  return out;
}

export interface SettingsOutcome {
  settings: Flat;
  /** Derived, for reading the parameters: the chosen model's half-life in days. */
  half_life_days: number;
  changed: { key: string; from: unknown; to: unknown } | null;
}

function outcome(meta: StoreMeta, changed: SettingsOutcome["changed"]): SettingsOutcome {
  return { settings: flatten(meta.settings), half_life_days: halfLifeDays(meta.settings.decay), changed };
}

export async function showSettings(store: Store, key?: string): Promise<SettingsOutcome> {
  await store.codec();
  const meta = store.rereadMeta();
  if (key !== undefined) knownKey(flatten(meta.settings), key);
  return outcome(meta, null);
}

function knownKey(flat: Flat, key: string): void {
  if (Object.hasOwn(flat, key)) return;
  throw invalidInput(`unknown setting ${JSON.stringify(key.slice(0, 60))}; the settings are: ${Object.keys(flat).join(", ")}`);
}

/** A value typed like the current one: numbers as numbers (rates also as a half-life), text as text. */
function parseValue(key: string, current: unknown, raw: string): unknown {
  if (typeof current === "number") {
    const half = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(raw.trim());
    if (half && RATE_KEYS.has(key)) return rateForHalfLife(Number(half[1]) * DURATION[half[2]!.toLowerCase()]!);
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) {
      throw invalidInput(`${key} takes a number${RATE_KEYS.has(key) ? " (a rate per second, or a half-life such as 12h or 3d)" : ""}, got ${JSON.stringify(raw.slice(0, 40))}`);
    }
    return n;
  }
  if (typeof current === "boolean") {
    if (raw !== "true" && raw !== "false") throw invalidInput(`${key} takes true or false, got ${JSON.stringify(raw.slice(0, 40))}`);
    return raw === "true";
  }
  return raw;
}

function setPath(obj: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split(".");
  let at = obj;
  for (const p of parts.slice(0, -1)) at = at[p] as Record<string, unknown>;
  at[parts[parts.length - 1]!] = value;
}

export async function setSetting(store: Store, key: string, raw: string): Promise<SettingsOutcome> {
  const codec = await store.codec();
  // own keys only: "__proto__" or "toString" would find Object.prototype's and crash on it
  const top = key.split(".")[0]!;
  const reason = Object.hasOwn(NOT_SETTABLE, top) ? NOT_SETTABLE[top] : undefined;
  // the way to change it is another operation's input: named as such (the CLI says its command)
  if (reason) throw invalidInput(reason, { fields: ["maintainer claim"] });
  return store.write((tx) => {
    const meta = tx.meta();
    const flat = flatten(meta.settings);
    knownKey(flat, key);
    const from = flat[key];
    const value = parseValue(key, from, raw);
    const next = structuredClone(meta);
    setPath(next.settings as Record<string, unknown>, key, value);
    const checked = codec.validate("meta", next);
    if (!checked.ok) throw invalidInput(`invalid value for ${key}: ${checked.problem.replace(/^settings\./, "")}`);
    const zone = next.settings.danger_zone;
    if (!(zone.min < zone.max)) throw invalidInput(`the danger zone must have min < max (it would be ${zone.min}..${zone.max})`);
    if (from === value) return outcome(meta, null);
    const written = tx.updateMeta(() => next);
    tx.note("settings", messages.settings(key, value));
    return outcome(written, { key, from, to: value });
  }, []);
}
