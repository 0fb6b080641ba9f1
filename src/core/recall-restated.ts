import { stem } from "./memory-terms.ts";

// Two memories that state one fact in other words ("We chose PostgreSQL for the orders database
// because we need JSONB columns" and "The orders database is PostgreSQL, picked for its JSONB
// column support"): recall shows the better of them and folds the other into it, as it folds
// near-duplicates (core/recall-rank.ts nearDuplicates), which need the same words (branch recall26).

/** What a memory says, as compared here. */
export interface Stated {
  type: string;
  content: string;
  entities: readonly string[];
  /** The content's meaningful words (stop words out). */
  words: ReadonlySet<string>;
}

/** At least this many word stems shared... */
export const RESTATED_SHARED = 4;
/** ...and at least this share of the two memories' stems together (Jaccard). */
export const RESTATED_SHARE = 0.5;

/** A word that turns a statement around: two memories that differ in one say different things. */
const NEGATION = /\b(?:not|never|no|don't|doesn't|didn't|won't|isn't|aren't|without|avoid|stop|stopped)\b/i;
const NUMBER = /\d+(?:[.,:]\d+)*/g;

/**
 * Whether two memories state the same fact: of one type, naming the same things (entities, at least
 * one: without them, "retries use exponential backoff" and "retries use linear backoff" differ in one
 * word as a paraphrase does, and say opposite things), with the same numbers
 * and the same polarity (a changed figure or a "not" is another statement: supersededAmong's
 * business), sharing RESTATED_SHARED stems of their content that are RESTATED_SHARE of all of them.
 */
export function restates<S extends Stated>(a: S, b: S, stemsOf: (s: S) => ReadonlySet<string> = stemSet): boolean {
  if (a.type !== b.type || a.entities.length === 0 || !sameMembers(a.entities, b.entities)) return false;
  if (NEGATION.test(a.content) !== NEGATION.test(b.content)) return false;
  if (!sameMembers(a.content.match(NUMBER) ?? [], b.content.match(NUMBER) ?? [])) return false;
  const sa = stemsOf(a);
  const sb = stemsOf(b);
  let shared = 0;
  for (const s of sa) if (sb.has(s)) shared++;
  return shared >= RESTATED_SHARED && shared / (sa.size + sb.size - shared) >= RESTATED_SHARE;
}

/** The stems of a memory's meaningful content words. */
export function stemSet(s: Stated): ReadonlySet<string> {
  return new Set([...s.words].map(stem));
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a.map((v) => v.toLowerCase()));
  const y = new Set(b.map((v) => v.toLowerCase()));
  return x.size === y.size && [...x].every((v) => y.has(v));
}
