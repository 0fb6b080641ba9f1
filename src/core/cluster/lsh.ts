import { fmix32 } from "./hash.ts";

// Candidate pairs without comparing all pairs: MinHash signatures cut into bands (locality-
// sensitive hashing). Two sets whose Jaccard similarity is J share at least one band with
// probability 1 - (1 - J^rows)^bands: with 24 bands of 3 rows, 0.96 at J = 0.5 and 0.80 at J = 0.4,
// while pairs at J = 0.1 meet in 2.4% of cases. Only pairs that share a band are compared.
// Seeded hashing: the same sets always give the same signatures, so candidates are stable.

export interface LshParams {
  bands: number;
  rows: number;
  /** A crowded bucket pairs each item with this many neighbours on either side (candidatePairs). */
  window?: number;
  /**
   * Each item keeps its this many most alike candidates (by signature agreement); a pair stays
   * when either side keeps it, so there are at most items · perItem pairs (candidatePairs).
   */
  perItem?: number;
}

export const DEFAULT_LSH: LshParams = { bands: 24, rows: 3, window: 4, perItem: 8 };

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
  const len = featureHashes.length;
  // one function at a time over all the features: its constants and the running minimum stay in
  // registers. The minimum is kept as a signed 32-bit integer with the top bit flipped, which
  // orders as the unsigned value does, so the loop never leaves integer arithmetic.
  for (let i = 0; i < k; i++) {
    const m = mul[i]!;
    const a = add[i]!;
    let least = 0x7fffffff; // 0xffffffff, flipped
    for (let f = 0; f < len; f++) {
      const v = (Math.imul(featureHashes[f]!, m) + a) ^ 0x80000000;
      if (v < least) least = v;
    }
    out[i] = least ^ 0x80000000;
  }
  return out;
}

/** One band's key: its rows' values mixed together with the band number and a group's hash. */
function bandKey(sig: Uint32Array, at: number, band: number, rows: number, group: number): number {
  let h = fmix32(group ^ Math.imul(band + 1, 0x27d4eb2d));
  for (let r = 0; r < rows; r++) h = fmix32(h ^ sig[at + band * rows + r]!);
  return h;
}

/** Items per call at most: a band's key and an item's index share one double (32 + 21 bits). */
const MAX_ITEMS = 2 ** 21;

/**
 * Pairs (i < j) of items that share a band. `group` keeps items apart that must never be paired
 * (different projects). Items without features take part in no pair. Calls `visit` once per pair,
 * in order of i, then j.
 *
 * A bucket of at most `window` + 1 items gives all its pairs. A larger one (many items alike in
 * one band: a common template, a small vocabulary) gives each item only its `window` nearest
 * neighbours on either side in signature order (the values of the following bands): items that
 * agree on more values, so on more of their features, sit next to each other. So an item has at
 * most 2 · window · bands candidates, and the count grows with n, not n²; a pair of near-
 * duplicates that lands in a crowded bucket is still found through its other bands. Then each
 * item keeps its `perItem` pairs whose signatures agree most (strongestPairs): at most
 * n · perItem pairs in all, whatever the corpus.
 */
export function candidatePairs(
  items: readonly { hashes: ArrayLike<number>; group: number }[],
  params: LshParams,
  visit: (i: number, j: number) => void,
): void {
  const { bands, rows } = params;
  const window = params.window ?? DEFAULT_LSH.window!;
  const k = bands * rows;
  const n = items.length;
  if (n > MAX_ITEMS) throw new RangeError(`candidatePairs: at most ${MAX_ITEMS} items, not ${n}`);
  const sigs = new Uint32Array(n * k);
  const live: number[] = [];
  for (let i = 0; i < n; i++) {
    if (items[i]!.hashes.length === 0) continue;
    signature(items[i]!.hashes, k, sigs.subarray(i * k, (i + 1) * k));
    live.push(i);
  }
  // pairs as i·n + j (exact in a double up to n ≈ 9.4e7) in a flat typed array, not a set of
  // millions of numbers; a pair met in several bands is there several times until the array is
  // full, then it is sorted and made unique in place, and grows only if that did not free half
  let pairs = new Float64Array(4096);
  let count = 0;
  const compact = () => {
    pairs.subarray(0, count).sort();
    let m = 0;
    for (let p = 0; p < count; p++) if (p === 0 || pairs[p] !== pairs[m - 1]) pairs[m++] = pairs[p]!;
    count = m;
  };
  const add = (x: number, y: number) => {
    if (items[x]!.group !== items[y]!.group) return; // two groups' keys that collide
    if (count === pairs.length) {
      compact();
      if (count > pairs.length / 2) {
        const grown = new Float64Array(pairs.length * 2);
        grown.set(pairs.subarray(0, count));
        pairs = grown;
      }
    }
    pairs[count++] = x < y ? x * n + y : y * n + x;
  };
  // one band at a time: each item's key and index in one double, sorted, so a bucket is a run
  const keyed = new Float64Array(live.length);
  const bucket: number[] = [];
  for (let b = 0; b < bands; b++) {
    for (let x = 0; x < live.length; x++) {
      const i = live[x]!;
      keyed[x] = bandKey(sigs, i * k, b, rows, items[i]!.group) * MAX_ITEMS + i;
    }
    keyed.sort();
    // the order a crowded bucket is walked in: the signature from the next band on
    const start = (b + 1) * rows;
    const bySignature = (p: number, q: number) => {
      for (let r = 0; r < k; r++) {
        const at = (start + r) % k;
        const d = sigs[p * k + at]! - sigs[q * k + at]!;
        if (d !== 0) return d;
      }
      return p - q;
    };
    for (let x = 0; x < keyed.length; ) {
      const key = Math.floor(keyed[x]! / MAX_ITEMS);
      bucket.length = 0;
      for (; x < keyed.length && Math.floor(keyed[x]! / MAX_ITEMS) === key; x++) bucket.push(keyed[x]! - key * MAX_ITEMS);
      if (bucket.length < 2) continue;
      if (bucket.length <= window + 1) {
        for (let p = 0; p < bucket.length; p++) for (let q = p + 1; q < bucket.length; q++) add(bucket[p]!, bucket[q]!);
        continue;
      }
      bucket.sort(bySignature);
      for (let p = 0; p < bucket.length; p++) {
        const end = Math.min(bucket.length, p + window + 1);
        for (let q = p + 1; q < end; q++) add(bucket[p]!, bucket[q]!);
      }
    }
  }
  compact();
  const kept = strongestPairs(pairs.subarray(0, count), n, sigs, k, Math.max(1, Math.floor(params.perItem ?? DEFAULT_LSH.perItem!)));
  for (let p = 0; p < count; p++) {
    if (kept !== null && kept[p] === 0) continue;
    const v = pairs[p]!;
    const i = Math.floor(v / n);
    visit(i, v - i * n);
  }
}

/**
 * Which of the unique pairs (i·n + j, sorted) to keep (1) so that each item keeps at most `perItem`
 * of its own: those whose signatures agree on the most values (the MinHash estimate of their
 * Jaccard similarity; ties: the smaller partner index). A pair stays when either side keeps it.
 * null: no item has more than `perItem` pairs, all stay. Without it a growing store meets more
 * chance collisions per item (a band of three common words), and candidates grow faster than n.
 */
function strongestPairs(pairs: Float64Array, n: number, sigs: Uint32Array, k: number, perItem: number): Uint8Array | null {
  const m = pairs.length;
  const degree = new Int32Array(n + 1);
  for (let p = 0; p < m; p++) {
    const i = Math.floor(pairs[p]! / n);
    degree[i]!++;
    degree[pairs[p]! - i * n]!++;
  }
  let crowded = false;
  for (let x = 0; x < n; x++) if (degree[x]! > perItem) crowded = true;
  if (!crowded) return null;
  // each item's pairs (by pair index), grouped by item: offsets from the degrees
  const start = new Int32Array(n + 1);
  for (let x = 0; x < n; x++) start[x + 1] = start[x]! + degree[x]!;
  const fill = start.slice(0, n);
  const of = new Int32Array(2 * m);
  const agree = k > 255 ? new Uint16Array(m) : new Uint8Array(m);
  // the same bits as signed integers: compared for equality only, and they stay small integers
  // for the engine (an unsigned value past 2^31 is a double)
  const ints = new Int32Array(sigs.buffer, sigs.byteOffset, sigs.length);
  for (let p = 0; p < m; p++) {
    const i = Math.floor(pairs[p]! / n) | 0;
    const j = (pairs[p]! - i * n) | 0;
    const a = i * k;
    const b = j * k;
    let same = 0;
    for (let r = 0; r < k; r++) if (ints[a + r] === ints[b + r]) same++;
    agree[p] = same;
    of[fill[i]!++] = p;
    of[fill[j]!++] = p;
  }
  const keep = new Uint8Array(m);
  // each crowded item's best perItem, kept best first by insertion (no sort of all its pairs)
  const best = new Int32Array(perItem);
  const bestOther = new Int32Array(perItem);
  for (let x = 0; x < n; x++) {
    const from = start[x]!;
    const to = start[x + 1]!;
    if (to - from <= perItem) {
      for (let t = from; t < to; t++) keep[of[t]!] = 1;
      continue;
    }
    let len = 0;
    for (let t = from; t < to; t++) {
      const p = of[t]!;
      const i = Math.floor(pairs[p]! / n);
      const other = i === x ? pairs[p]! - i * n : i;
      const a = agree[p]!;
      // the pairs come in order of pair index, so of partner: an equal agreement never beats
      if (len === perItem && a <= agree[best[len - 1]!]!) continue;
      let at = len < perItem ? len++ : len - 1;
      while (at > 0 && (a > agree[best[at - 1]!]! || (a === agree[best[at - 1]!]! && other < bestOther[at - 1]!))) {
        best[at] = best[at - 1]!;
        bestOther[at] = bestOther[at - 1]!;
        at--;
      }
      best[at] = p;
      bestOther[at] = other;
    }
    for (let t = 0; t < len; t++) keep[best[t]!] = 1;
  }
  return keep;
}
