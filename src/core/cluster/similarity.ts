import type { Features } from "./features.ts";

// How alike two memories are, 0..1: a blend of their content words (Jaccard and cosine of the word
// sets), tags and entities (Jaccard). Labels count only where both memories carry them: an
// untagged note is not unlike a tagged one. A pair where one negates a word the other states
// plainly is halved: "use X" and "never use X" say opposite things. (A negation elsewhere, in a
// sentence the other note does not have, is no contradiction.)

export const WEIGHTS = { content: 0.7, tags: 0.15, entities: 0.15 } as const;
export const NEGATION_PENALTY = 0.5;

/** Size of the intersection of two sorted integer sets. */
export function overlap(a: Int32Array, b: Int32Array): number {
  return overlapAtLeast(a, b, 0);
}

export function jaccard(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  const n = overlap(a, b);
  return n / (a.length + b.length - n);
}

/** Content: the mean of Jaccard and cosine of the word sets (cosine forgives a difference in length). */
export function contentSimilarity(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0;
  return contentOf(overlap(a, b), a.length, b.length);
}

/** The content similarity of two non-empty word sets of sizes x and y sharing n words. */
const contentOf = (n: number, x: number, y: number) => (n / (x + y - n) + n / Math.sqrt(x * y)) / 2;

/**
 * The overlap of two sorted sets when it reaches `need`, else -1: the walk stops as soon as what
 * is left of the shorter side cannot make up the difference (most candidates share few words).
 */
function overlapAtLeast(a: Int32Array, b: Int32Array, need: number): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (n + Math.min(a.length - i, b.length - j) < need) return -1;
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n >= need ? n : -1;
}

/**
 * The fewest shared words with which two sets of sizes x and y (both non-empty) can reach a
 * content similarity of c: contentOf(n, x, y) = c solved for n (the smaller root of
 * n² - n(g + s + 2cg) + 2cgs = 0, with s = x + y, g = √(xy)), rounded down a little so that
 * rounding never rejects a pair that reaches c.
 */
function overlapNeeded(c: number, x: number, y: number): number {
  if (c <= 0) return 0;
  const s = x + y;
  const g = Math.sqrt(x * y);
  const p = g + s + 2 * c * g;
  const root = (p - Math.sqrt(Math.max(0, p * p - 8 * c * g * s))) / 2;
  return Math.max(0, Math.ceil(root - 1e-6));
}

function has(sorted: Int32Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** a negates a word b states plainly (and b does not negate it too). */
function negatesWhatOtherSays(a: Features, b: Features): boolean {
  for (const x of a.negates) if (has(b.words, x) && !has(b.negates, x)) return true;
  return false;
}

export function contradicts(a: Features, b: Features): boolean {
  return negatesWhatOtherSays(a, b) || negatesWhatOtherSays(b, a);
}

/** Tags' (or entities') Jaccard, NaN where either side has none (they then do not count). */
const labelJaccard = (a: Int32Array, b: Int32Array) => (a.length && b.length ? jaccard(a, b) : Number.NaN);

/** The blend of content, tags and entities, before the negation penalty (one order of operations for every caller). */
function blend(content: number, tags: number, entities: number): number {
  let sum = WEIGHTS.content * content;
  let weight = WEIGHTS.content;
  if (!Number.isNaN(tags)) {
    sum += WEIGHTS.tags * tags;
    weight += WEIGHTS.tags;
  }
  if (!Number.isNaN(entities)) {
    sum += WEIGHTS.entities * entities;
    weight += WEIGHTS.entities;
  }
  return sum / weight;
}

function blended(a: Features, b: Features): number {
  return blend(contentSimilarity(a.words, b.words), labelJaccard(a.tags, b.tags), labelJaccard(a.entities, b.entities));
}

/** Slack for floating-point rounding: a bound only rejects a pair that misses by more. */
const SLACK = 1e-9;

export function similarity(a: Features, b: Features): number {
  const s = blended(a, b);
  return contradicts(a, b) ? s * NEGATION_PENALTY : s;
}

/**
 * The similarity when it reaches `threshold`, else null. The contradiction check (most of the
 * cost of a pair) runs only for a pair whose blend reaches the threshold: it can only lower it.
 */
export function similarityAtLeast(a: Features, b: Features, threshold: number): number | null {
  const s = blendAtLeast(a, b, threshold);
  if (s === null || s < threshold) return null;
  const t = contradicts(a, b) ? s * NEGATION_PENALTY : s;
  return t >= threshold ? t : null;
}

/**
 * blended(a, b) when it can reach `threshold`, else null, without walking both word lists for
 * most pairs: from the labels, the content similarity the pair needs; from the set sizes, the
 * most it can have (all of the shorter set shared), and the shared words it needs, which lets the
 * walk stop early. Same value as blended() for every pair it returns.
 */
function blendAtLeast(a: Features, b: Features, threshold: number): number | null {
  const x = a.words.length;
  const y = b.words.length;
  if (x === 0 || y === 0) return blend(x === y ? 1 : 0, labelJaccard(a.tags, b.tags), labelJaccard(a.entities, b.entities));
  const tagged = a.tags.length > 0 && b.tags.length > 0;
  const named = a.entities.length > 0 && b.entities.length > 0;
  const weight = WEIGHTS.content + (tagged ? WEIGHTS.tags : 0) + (named ? WEIGHTS.entities : 0);
  const most = contentOf(Math.min(x, y), x, y);
  // labels at their best first (no walk of them), then as they are
  if (most < (threshold * weight - (weight - WEIGHTS.content)) / WEIGHTS.content - SLACK) return null;
  const tags = tagged ? jaccard(a.tags, b.tags) : Number.NaN;
  const entities = named ? jaccard(a.entities, b.entities) : Number.NaN;
  const rest = (tagged ? WEIGHTS.tags * tags : 0) + (named ? WEIGHTS.entities * entities : 0);
  const needed = (threshold * weight - rest) / WEIGHTS.content - SLACK;
  if (most < needed) return null;
  const n = overlapAtLeast(a.words, b.words, overlapNeeded(needed, x, y));
  return n < 0 ? null : blend(contentOf(n, x, y), tags, entities);
}
