import { EVERYDAY_WORDS } from "./everyday-words.ts";
import type { Fit, RecallTerms } from "./recall-rank.ts";

// Recall's query gate where no memory passes the relevance floor (branch recallgate): a short
// prompt in the store's trade words still fits the store. "zendesk sla", "the autovacuum tweak":
// one word a few memories hold and everyday English does not say; "who painted the starry
// night" shares one word with a memory too, but one anybody says. Measured on the recall corpus:
// on every set but new10 the paraphrases that BM25 found and recall did not were mostly such
// prompts (docs/benchmarks.md, branch recallgate); counting the held word alone let 5-30% of
// off-topic prompts through.

/** A prompt of at most this many strong words (a longer one that fits shares more than one). */
export const GATE_QUERY_WORDS = 2;
/** ...of which at most this many are in no memory (one word of a two-word prompt may be the asker's own). */
export const GATE_UNKNOWN_WORDS = 1;
/** A word held by at most this many memories names what they are about. */
export const GATE_HOLDERS = 3;

/** Whether everyday spoken English says this word (one of its 20,000 most said, core/everyday-words.ts), in this form or without a plural's "s". */
export function everyday(word: string): boolean {
  return EVERYDAY_WORDS.includes(`\n${word}\n`) || (word.endsWith("s") && EVERYDAY_WORDS.includes(`\n${word.slice(0, -1)}\n`));
}

/**
 * Which candidates a prompt that passes no memory's floor is let through to: those holding a
 * trade word of a short prompt (GATE_*: few holders, not everyday English). Holders are counted
 * over the candidates, so only when they are every match (everyMatch); else none.
 */
export function tradeWordMatches(terms: RecallTerms, fits: readonly Fit[], everyMatch: boolean): boolean[] {
  const none = fits.map(() => false);
  if (!everyMatch || terms.strong.length > GATE_QUERY_WORDS) return none;
  const holders = new Map<string, number>();
  for (const f of fits) for (const w of f.strongFound) holders.set(w, (holders.get(w) ?? 0) + 1);
  if (terms.strong.filter((w) => !holders.has(w)).length > GATE_UNKNOWN_WORDS) return none;
  // a number is no trade word: it names nothing without the words around it ("24 hour pharmacy")
  const trade = new Set([...holders].flatMap(([w, n]) => (n <= GATE_HOLDERS && !everyday(w) && /\p{L}/u.test(w) ? [w] : [])));
  return trade.size ? fits.map((f) => f.strongFound.some((w) => trade.has(w))) : none;
}
