// Whether a prompt fits a memory beyond chance in THIS store (issue 15, branch floor34). The bigger
// a store, the more of everyday English its memories say: a long prompt about something else
// ("clear the cache in my browser", "reverse a linked list in python", "write a cover letter for a
// junior developer job") meets one of its words in some memory, and that word alone (a concept of
// the prompt, or floorOf's one word in the store's language) let the memory pass. Whether such a
// word is evidence is told by the store's own count of it: a word held by a good share of the
// memories is met by any prompt that says it, and says nothing of which memory the prompt is about
// when it is only a part of the prompt. A word few memories hold, at any size, still is.
//
// Priced and left out (branch floor34's first commit): two common words held together under twice
// chance's count (h_a·h_b/N). At 10k it took as many paraphrases as off-topic prompts: the store's
// dev words co-occur 1.1-2x chance whether the prompt is about them or not.

import type { Fit, RecallTerms } from "./recall-rank.ts";

/** A word held by at least this share of the store's memories is common in it: chance meets it often. */
export const COMMON_IN_STORE = 0.05;
/** ...and by at least this many: fewer pick out a handful of memories, whatever the store's size (a small store's every word is 5% of it). */
export const COMMON_HOLDERS_LEAST = 10;
/** A lone word is judged in a prompt of at least this many strong words (it is not most of it). */
export const LONE_IN_WORDS = 3;
/** At most this many distinct words are judged per prompt (each costs a count). */
export const JUDGED_MOST = 6;

/** Holders a word needs among `size` memories to be common in the store. */
export function commonFrom(size: number): number {
  return Math.max(COMMON_HOLDERS_LEAST, Math.ceil(COMMON_IN_STORE * size));
}

/**
 * The word each fit passes on alone, when chance is to judge it, else null: a memory passing on
 * one strong word (a concept, floorOf's relaxation, or association: any fit not passing fitOf's
 * floor alone) of a prompt of LONE_IN_WORDS or more. A
 * memory holding more of the prompt, or a prompt of fewer words (the word is most of it), is not
 * judged.
 */
export function loneWords(terms: RecallTerms, fits: readonly Fit[], passes: readonly boolean[]): (string | null)[] {
  const strong = new Set(terms.strong);
  return fits.map((f, i) => {
    if (!passes[i] || strong.size < LONE_IN_WORDS) return null;
    const held = new Set(f.strongFound.filter((w) => strong.has(w)));
    return held.size === 1 && (f.byConcept || !f.passes) ? [...held][0]! : null;
  });
}
