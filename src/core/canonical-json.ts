// Canonical JSON: the same value always gives the same bytes, on every runtime.
// Known keys come in the order their schema declares them; keys memsync does not know follow,
// sorted, so a newer version's fields survive an older one and diffs stay minimal.

export interface KeyOrder {
  readonly keys: readonly string[];
  readonly nested: Readonly<Record<string, KeyOrder>>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function canonicalize(value: unknown, order?: KeyOrder): Json {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("canonical JSON: non-finite number");
    if (value === undefined) return null;
    return value as Json;
  }
  if (Array.isArray(value)) return value.map((v) => canonicalize(v));
  const src = value as Record<string, unknown>;
  const out: Record<string, Json> = {};
  const known = order?.keys ?? [];
  for (const k of known) {
    if (Object.hasOwn(src, k) && src[k] !== undefined) out[k] = canonicalize(src[k], order?.nested[k]);
  }
  const rest = Object.keys(src).filter((k) => !known.includes(k) && src[k] !== undefined).sort(compareKeys);
  for (const k of rest) out[k] = canonicalize(src[k]);
  return out;
}

/** 2-space indent, trailing newline; JSON.stringify leaves non-ASCII characters as real UTF-8. */
export function canonicalJson(value: unknown, order?: KeyOrder): string {
  return `${JSON.stringify(canonicalize(value, order), null, 2)}\n`;
}
