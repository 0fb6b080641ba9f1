// Whether a memory's match on some of a prompt's words is more than chance in THIS store (issue 15,
// branch floor34). A memory passes fitOf's floor on two strong words of the prompt; in a store of
// 280 memories two words held together are rarely chance, but the bigger a store, the more of
// everyday English its memories say, and two words of a long prompt end up in one memory by chance
// ("cover letter for a junior developer" -> a memory of a cover and a developer). The store's own
// counts tell: with h_a and h_b holders among N memories, chance alone puts both words in
// h_a·h_b/N memories. Words held together by about that many are no evidence that the prompt is
// about what those memories say; words held together far more often than chance (they belong
// together in this store), or by a memory where chance would put them in hardly any, are.

import type { Fit, RecallTerms } from "./recall-rank.ts";

/** A word held by at least this share of the store's memories is common in it: chance meets it often. */
export const COMMON_IN_STORE = 0.05;
/** Chance expects at least this many memories to hold the words together before it is a suspect. */
export const CHANCE_EXPECTED = 1;
/** Words held together by fewer than this many times chance's count are held together by chance. */
export const CHANCE_LIFT = 2;
/** At most this many distinct word sets are judged per prompt (each may cost a count). */
export const CHANCE_SETS_MOST = 6;
/** A lone word is judged in a prompt of at least this many strong words (it is not most of it). */
export const LONE_IN_WORDS = 3;

/** How many memories chance alone puts every word in, given each word's holders among `size`. */
export function expectedTogether(holders: readonly number[], size: number): number {
  if (size <= 0) return 0;
  return holders.reduce((e, h) => e * Math.min(1, h / size), size);
}

/** Whether a word with `holders` among `size` memories is common in the store. */
export function commonIn(holders: number, size: number): boolean {
  return holders >= COMMON_IN_STORE * size;
}

/**
 * Whether words each held by `holders` memories, held together by `together`, are met by chance.
 * A lone word: when it is common in the store (a prompt's one word shared with a memory is then
 * what any prompt meets). Two or more: when every one is common and they are held together by
 * fewer than CHANCE_LIFT times the count chance gives them (a word the store holds rarely is
 * evidence of what the prompt is about, whatever the other is).
 */
export function metByChance(holders: readonly number[], together: number, size: number): boolean {
  if (!holders.every((h) => commonIn(h, size))) return false;
  if (holders.length === 1) return true;
  const expected = expectedTogether(holders, size);
  return expected >= CHANCE_EXPECTED && together < CHANCE_LIFT * expected;
}

/**
 * The word sets whose chance is judged, per fit (its strong words found, sorted), or null: a
 * memory that passes on strong words alone (no concept) and leaves some of the prompt's strong
 * words out; or one that passes on one word (a concept, or floorOf's relaxation) of a prompt of
 * LONE_IN_WORDS or more. A memory holding every strong word answers the whole prompt, however
 * common its words, and a concept with more words found is evidence of another kind.
 */
export function judgedSets(terms: RecallTerms, fits: readonly Fit[], passes: readonly boolean[]): (string[] | null)[] {
  const strong = new Set(terms.strong);
  return fits.map((f, i) => {
    if (!passes[i]) return null;
    const held = [...new Set(f.strongFound.filter((w) => strong.has(w)))].sort();
    if (held.length === 1) return (f.byConcept || !f.passes) && strong.size >= LONE_IN_WORDS ? held : null;
    return f.passes && !f.byConcept && held.length >= 2 && held.length < strong.size ? held : null;
  });
}
