import { fmix32 } from "./hash.ts";

// Candidate pairs without comparing all pairs: MinHash signatures cut into bands (locality-
// sensitive hashing). Two sets whose Jaccard similarity is J share at least one band with
// probability 1 - (1 - J^rows)^bands: with 24 bands of 3 rows, 0.96 at J = 0.5 and 0.80 at J = 0.4,
// while pairs at J = 0.1 meet in 2.4% of cases. Only pairs that share a band are compared.
// Seeded hashing: the same sets always give the same signatures, so candidates are stable.

export interface LshParams {
  bands: number;
  rows: number;
}

export const DEFAULT_LSH: LshParams = { bands: 24, rows: 3 };

/** The hash family's constants, from a fixed seed: odd multipliers and offsets, per function. */
function family(k: number): { mul: Uint32Array; add: Uint32Array } {
  const mul = new Uint32Array(k);
  const add = new Uint32Array(k);
  let s = 0x6d2b79f5;
  for (let i = 0; i < k; i++) {
    s = fmix32(s + 0x9e3779b9);
    mul[i] = s | 1;
    s = fmix32(s + 0x9e3779b9);
    add[i] = s;
  }
  return { mul, add };
}

const families = new Map<number, { mul: Uint32Array; add: Uint32Array }>();

/**
 * The MinHash signature of a set of feature hashes: for each of k hash functions, the smallest
 * value over the set. The functions are g_i(x) = a_i·x + b_i mod 2^32 (a_i odd), a universal
 * family over feature hashes that are already well mixed: one multiply and one add per value.
 */
export function signature(featureHashes: ArrayLike<number>, k: number, out = new Uint32Array(k)): Uint32Array {
  let fam = families.get(k);
  if (!fam) families.set(k, (fam = family(k)));
  const { mul, add } = fam;
  out.fill(0xffffffff);
  for (let f = 0; f < featureHashes.length; f++) {
    const x = featureHashes[f]!;
    for (let i = 0; i < k; i++) {
      const v = (Math.imul(x, mul[i]!) + add[i]!) >>> 0;
      if (v < out[i]!) out[i] = v;
    }
  }
  return out;
}

/** One band's key: its rows' values mixed together with the band number and a group's hash. */
function bandKey(sig: Uint32Array, band: number, rows: number, group: number): number {
  let h = fmix32(group ^ Math.imul(band + 1, 0x27d4eb2d));
  for (let r = 0; r < rows; r++) h = fmix32(h ^ sig[band * rows + r]!);
  // band number in the high bits: keys of different bands never meet
  return band * 4294967296 + h;
}

/**
 * Pairs (i < j) of items that share a band. `group` keeps items apart that must never be paired
 * (different projects). Items without features take part in no pair. Calls `visit` once per pair.
 */
export function candidatePairs(
  items: readonly { hashes: ArrayLike<number>; group: number }[],
  params: LshParams,
  visit: (i: number, j: number) => void,
): void {
  const k = params.bands * params.rows;
  const buckets = new Map<number, number[]>();
  const sig = new Uint32Array(k);
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (it.hashes.length === 0) continue;
    signature(it.hashes, k, sig);
    for (let b = 0; b < params.bands; b++) {
      const key = bandKey(sig, b, params.rows, it.group);
      const bucket = buckets.get(key);
      if (bucket) bucket.push(i);
      else buckets.set(key, [i]);
    }
  }
  const seen = new Set<number>();
  const n = items.length;
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue;
    for (let x = 0; x < bucket.length; x++) {
      for (let y = x + 1; y < bucket.length; y++) {
        const i = bucket[x]!;
        const j = bucket[y]!;
        const key = i * n + j;
        if (seen.has(key)) continue;
        seen.add(key);
        visit(i, j);
      }
    }
  }
}
