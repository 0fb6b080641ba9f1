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

/**
 * Which fits that fail fitOf's floor with one strong word found hold a second strong word of the
 * query by association (see above). `contents[i]` is candidate i's content words (stop words out; a Set a long-running process keeps per memory). Returns, per fit, the
 * query word it holds by association (null for none, and for those that pass already).
 */
export function heldByAssociation(terms: RecallTerms, fits: readonly Fit[], contents: readonly Iterable<string>[]): (string | null)[] {
  const none = fits.map(() => null);
  if (terms.strong.length < 2 || !fits.some((f) => !f.passes && f.strongFound.length === 1)) return none;
  // each candidate's words as written (stemming every word of 50 memories would be most of the
  // cost; only the few associated words are stemmed, to leave the query's own words out)
  const wordsOf = contents.map((c) => {
    const s = new Set<string>();
    for (const w of c) if (w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w)) s.add(w);
    return s;
  });
  const inCandidates = new Map<string, number>();
  for (const s of wordsOf) for (const x of s) inCandidates.set(x, (inCandidates.get(x) ?? 0) + 1);
  const tooCommon = MAX_CANDIDATE_SHARE * fits.length;
  const queryStems = new Set(terms.words.map(stem));
  // for each strong word: the words most of its holders say with it
  const associated = new Map<string, Set<string>>();
  for (const w of terms.strong) {
    const holders = fits.flatMap((f, i) => (f.strongFound.includes(w) ? [i] : []));
    if (holders.length < MIN_HOLDERS) continue;
    const count = new Map<string, number>();
    for (const i of holders) for (const x of wordsOf[i]!) count.set(x, (count.get(x) ?? 0) + 1);
    const need = Math.max(MIN_HOLDERS, HOLDER_SHARE * holders.length);
    const words = new Set<string>();
    for (const [x, n] of count) if (n >= need && (inCandidates.get(x) ?? 0) <= tooCommon && !queryStems.has(stem(x))) words.add(x);
    if (words.size) associated.set(w, words);
  }
  if (associated.size === 0) return none;
  return fits.map((f, i) => {
    if (f.passes || f.strongFound.length !== 1) return null;
    for (const [w, words] of associated) {
      if (f.strongFound.includes(w)) continue;
      for (const x of wordsOf[i]!) if (words.has(x)) return w;
    }
    return null;
  });
}

