// Three-way merge of plain JSON values, the part of memsync's merge that knows nothing about
// memories. Deterministic and symmetric: merging (base, a, b) and (base, b, a) give the same
// value, so two machines that merge each other's changes converge on the same bytes.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A total order on JSON values, used only to break ties the same way on every machine. */
export function jsonCompare(a: unknown, b: unknown): number {
  const sa = JSON.stringify(a) ?? "";
  const sb = JSON.stringify(b) ?? "";
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * Merge a value changed on both sides. A side that did not change gives way to the one that did;
 * objects merge key by key; anything else both sides changed differently goes to `prefer`
 * (which must itself be symmetric), and the value that lost is reported to `onConflict`.
 */
export function merge3(
  base: Json | undefined,
  ours: Json | undefined,
  theirs: Json | undefined,
  prefer: (a: Json | undefined, b: Json | undefined) => Json | undefined,
  onConflict?: (path: string, kept: Json | undefined, lost: Json | undefined) => void,
  path = "",
): Json | undefined {
  if (jsonEqual(ours, theirs)) return ours;
  if (jsonEqual(base, ours)) return theirs;
  if (jsonEqual(base, theirs)) return ours;
  if (isObject(ours) && isObject(theirs)) {
    const b = isObject(base) ? base : {};
    const out: Record<string, Json> = {};
    const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].sort();
    for (const k of keys) {
      const v = merge3(b[k], ours[k], theirs[k], prefer, onConflict, path ? `${path}.${k}` : k);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  const kept = prefer(ours, theirs);
  onConflict?.(path, kept, jsonEqual(kept, ours) ? theirs : ours);
  return kept;
}

/** Set semantics for label lists: what either side added, minus what either side removed. */
export function mergeSet(base: readonly string[] | undefined, ours: readonly string[], theirs: readonly string[], key: (s: string) => string = (s) => s): string[] {
  const b = base ?? [];
  const has = (list: readonly string[], s: string) => list.some((x) => key(x) === key(s));
  const removed = (side: readonly string[]) => b.filter((s) => !has(side, s));
  const gone = new Set([...removed(ours), ...removed(theirs)].map(key));
  const kept = b.filter((s) => !gone.has(key(s)));
  const added = [...ours, ...theirs].filter((s) => !has(b, s)).sort();
  const out: string[] = [];
  for (const s of [...kept, ...added]) if (!has(out, s)) out.push(s);
  return out;
}
