import { stem } from "./memory-terms.ts";
import type { Fit, RecallTerms } from "./recall-rank.ts";
import { STOP_WORDS } from "./stop-words.ts";

// Words the store itself links: a query word stands for the words that the memories holding it
// say with it. "naming scheme for redis keys": the memories that name Redis say "cache" with it,
// so "Cache keys are namespaced by service" holds the query's "redis" in the store's own terms,
// as a second word of the query, and passes the relevance floor. Pseudo-relevance feedback over the
// candidates recall already has (every memory that holds a query word, up to its limit), bounded so
// that a chance word cannot carry an off-topic prompt: it only completes a memory that already
// shares one strong word of the query, and only with a word most holders of another query word say.

/** A word stands for another when at least this many of its holders hold that one too... */
const MIN_HOLDERS = 2;
/** ...and at least this share of them... */
const HOLDER_SHARE = 0.5;
/** ...and the other is held by at most this share of all candidates (not a word every memory says). */
const MAX_CANDIDATE_SHARE = 0.34;
/** Enough candidates pass the floor to fill the first page (recall@5): a memory completed by association would rank below them. */
const PASSING_ENOUGH = 5;
/** The words most said with a query word, at most: each is looked up in every candidate. */
const MAX_WORDS = 6;

/** What the association reads of a candidate: its content words (gone through only for those that hold a query word) and a lookup of its words. */
export interface CandidateWords {
  readonly content: Iterable<string>;
  readonly words: { has(word: string): boolean };
}

/**
 * Which fits that fail fitOf's floor with one strong word found hold a second strong word of the
 * query by association (see above); `memories[i]` is candidate i's. Returns, per fit, the query
 * word it holds by association (null for none, and for those that pass already).
 */
export function heldByAssociation(terms: RecallTerms, fits: readonly Fit[], memories: readonly CandidateWords[]): (string | null)[] {
  const none = fits.map(() => null);
  if (terms.strong.length < 2 || !fits.some((f) => !f.passes && f.strongFound.length === 1)) return none;
  if (fits.filter((f) => f.passes).length >= PASSING_ENOUGH) return none;
  const tooCommon = MAX_CANDIDATE_SHARE * fits.length;
  let queryStems: Set<string> | undefined;
  // for each strong word: the words most of its holders say with it. Only the holders' words are
  // gone through; how common a word is among all candidates is looked up for those few (going
  // through every candidate's words cost as much as the rest of the ranking)
  const associated = new Map<string, string[]>();
  for (const w of terms.strong) {
    const holders = fits.flatMap((f, i) => (f.strongFound.includes(w) ? [i] : []));
    if (holders.length < MIN_HOLDERS) continue;
    const count = new Map<string, number>();
    for (const i of holders) for (const x of memories[i]!.content) if (x.length >= 3 && !/^\d+$/.test(x)) count.set(x, (count.get(x) ?? 0) + 1);
    const need = Math.max(MIN_HOLDERS, HOLDER_SHARE * holders.length);
    const said: [string, number][] = [];
    for (const [x, n] of count) if (n >= need && !STOP_WORDS.has(x)) said.push([x, n]);
    const words: string[] = [];
    for (const [x] of said.sort((a, b) => b[1] - a[1]).slice(0, MAX_WORDS)) {
      queryStems ??= new Set(terms.words.map(stem));
      if (queryStems.has(stem(x))) continue;
      let held = 0;
      for (const m of memories) if (m.words.has(x) && ++held > tooCommon) break;
      if (held <= tooCommon) words.push(x);
    }
    if (words.length) associated.set(w, words);
  }
  if (associated.size === 0) return none;
  return fits.map((f, i) => {
    if (f.passes || f.strongFound.length !== 1) return null;
    for (const [w, words] of associated) {
      if (f.strongFound.includes(w)) continue;
      if (words.some((x) => memories[i]!.words.has(x))) return w;
    }
    return null;
  });
}
