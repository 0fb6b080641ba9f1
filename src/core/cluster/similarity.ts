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
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

export function jaccard(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  const n = overlap(a, b);
  return n / (a.length + b.length - n);
}

/** Content: the mean of Jaccard and cosine of the word sets (cosine forgives a difference in length). */
export function contentSimilarity(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0;
  const n = overlap(a, b);
  return (n / (a.length + b.length - n) + n / Math.sqrt(a.length * b.length)) / 2;
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

/** The blend of content, tags and entities, before the negation penalty. */
function blended(a: Features, b: Features): number {
  let sum = WEIGHTS.content * contentSimilarity(a.words, b.words);
  let weight = WEIGHTS.content;
  if (a.tags.length && b.tags.length) {
    sum += WEIGHTS.tags * jaccard(a.tags, b.tags);
    weight += WEIGHTS.tags;
  }
  if (a.entities.length && b.entities.length) {
    sum += WEIGHTS.entities * jaccard(a.entities, b.entities);
    weight += WEIGHTS.entities;
  }
  return sum / weight;
}

export function similarity(a: Features, b: Features): number {
  const s = blended(a, b);
  return contradicts(a, b) ? s * NEGATION_PENALTY : s;
}

/**
 * The similarity when it reaches `threshold`, else null. The contradiction check (most of the
 * cost of a pair) runs only for a pair whose blend reaches the threshold: it can only lower it.
 */
export function similarityAtLeast(a: Features, b: Features, threshold: number): number | null {
  const s = blended(a, b);
  if (s < threshold) return null;
  const t = contradicts(a, b) ? s * NEGATION_PENALTY : s;
  return t >= threshold ? t : null;
}
