import { commonFrom, JUDGED_MOST, loneWords } from "../core/recall-chance.ts";
import { COMMON_SHARE, discriminating, type Fit, matchAny, PREFIX_FROM, type RecallTerms } from "../core/recall-rank.ts";

// Counting matches no further than recall's choices need. In a large store a common word's
// matches are many, and a prefix term ("connection"*) has FTS5 merge the lists of every word it
// covers before the first row, whatever LIMIT says: recall's counts grew with the store although
// each only had to tell "at least N" or which terms are rarest. Each answer here is the one the
// full count gives; only the work differs.

/** Counts the matches of an FTS5 expression (with recall's filter when `filtered`) up to `upTo`. */
export type CountUpTo = (match: string, upTo: number, filtered: boolean) => Promise<number>;

/** Words tried by reachedByOneWord before the full count: a try that fails costs a count of its own (two cost a rare query ~0.9 ms at 50k). */
const WORDS_TRIED = 1;

/**
 * Whether one word of the query alone has `upTo` filtered matches, so the query's count up to
 * `upTo` is `upTo`: the word as a whole term ("timeout", no prefix) matches a subset of what the
 * query's OR matches (it holds "timeout"*), and its count stops at `upTo` without merging the
 * lists of every word the prefix covers. Only the query's first prefix word is tried (a count of
 * whole terms stops early by itself). false says nothing: count the query.
 */
export async function reachedByOneWord(words: readonly string[], upTo: number, count: CountUpTo): Promise<boolean> {
  for (const w of words.filter((x) => x.length >= PREFIX_FROM).slice(0, WORDS_TRIED)) {
    // fewer matches of every memory than upTo: fewer that pass the filter. Told by the full-text
    // index alone, where the filtered count reads each match's memory row (a rare word at 50k:
    // ~0.1 against ~0.65 ms, the memory rows' pages cold); a common word pays the extra ~0.1 ms
    if ((await count(`"${w}"`, upTo, false)) < upTo) continue;
    if ((await count(`"${w}"`, upTo, true)) >= upTo) return true;
  }
  return false;
}

/** Words tried by wordNarrowing: a try that fails costs a count of the word's whole list (short: it has fewer matches than the bound). */
const NARROWING_WORDS_TRIED = 2;

/**
 * A word of the query that alone has `upTo` matches of every memory, told by the full-text index
 * alone: the query's OR holds the word (whole, or as a prefix that matches what the whole word
 * does), so it has that many matches too. The hook asked the OR itself (its ~19 terms with a
 * concept's phrases, each prefix's words merged, every match joined to its memory for the filter:
 * ~1.8 ms of a cold hook at 10k) only to learn this; a common word's count stops at the bound
 * (~0.2 ms). Only the first words are tried; null says nothing (count the query).
 */
export async function wordNarrowing(words: readonly string[], upTo: number, count: CountUpTo): Promise<string | null> {
  for (const w of words.slice(0, NARROWING_WORDS_TRIED)) if ((await count(`"${w}"`, upTo, false)) >= upTo) return w;
  return null;
}

/**
 * How many filtered memories hold every word of the query, each taken whole ("timeout", not
 * "timeout"*), counted up to `upTo`; 0 when no word has a prefix (the whole words are then the
 * query itself, counted by the caller). Each whole word matches within its prefix form, so their
 * AND matches within the every-word query's: reaching `upTo` here, that query reaches it too. The
 * whole words' AND stops at `upTo` without merging the lists of every word each prefix covers (a
 * short prompt's count at 50k: ~1.1 against ~2.2 ms CPU; a long one's ~1.2 against ~3.9).
 */
export async function everyWordHeldWhole(words: readonly string[], upTo: number, count: CountUpTo): Promise<number> {
  if (!words.some((w) => w.length >= PREFIX_FROM)) return 0;
  return count(wholeWordsAll(words), upTo, true);
}

/** The every-word FTS5 expression with each word whole (no prefix). */
export function wholeWordsAll(words: readonly string[]): string {
  return words.map((w) => `"${w}"`).join(" AND ");
}

/** A term (an FTS5 expression) and how many memories match it, counted up to some bound. */
export interface Counted {
  match: string;
  df: number;
}

/**
 * The present terms rarestWithin chooses from: `words` as counted, then each phrase that any
 * memory holds, with its count up to `cap` — as counting every phrase up to `cap` gives them, or
 * with a phrase's count left at `probe` (a lower bound) when that cannot change the choice.
 * Each phrase is counted up to `probe` first: most are absent (0) or rare (exact), and a common
 * one (a concept's "database", ~8,000 of 50,000 memories) costs a quarter of counting it to `cap`.
 *
 * Why the choice is the same: rarestWithin takes terms by ascending count while they fit within
 * `atMost` and stops at the first that does not (always taking the first). Every term counted
 * below `probe` is exact and comes before every phrase left at `probe` (their true counts are
 * `probe` or more). If going through those exact ones stops among them, or ends with a sum to
 * which `probe` no longer fits (and something taken), the next term cannot fit whatever its true
 * count: the phrases left at `probe` are never reached. Otherwise they are counted up to `cap`.
 */
export async function presentTerms(words: readonly Counted[], phrases: readonly string[], atMost: number, cap: number, probe: number, count: CountUpTo): Promise<Counted[]> {
  return finishTerms(words, await probedPhrases(phrases, Math.min(probe, cap), count), atMost, cap, probe, count);
}

/** Each phrase any memory holds, counted up to `upTo` (presentTerms' first step). */
async function probedPhrases(phrases: readonly string[], upTo: number, count: CountUpTo): Promise<Counted[]> {
  const out: Counted[] = [];
  for (const p of phrases) {
    const match = `"${p}"`;
    const n = await count(match, upTo, false);
    if (n > 0) out.push({ match, df: n });
  }
  return out;
}

/** presentTerms' second step: the phrases left at `probe` counted on to `cap` when the choice could reach them. */
async function finishTerms(words: readonly Counted[], probed: readonly Counted[], atMost: number, cap: number, probe: number, count: CountUpTo): Promise<Counted[]> {
  const out: Counted[] = [...words, ...probed];
  const lowerBounds = probe < cap ? out.flatMap((t, i) => (i >= words.length && t.df >= probe ? [i] : [])) : [];
  if (lowerBounds.length === 0 || stopsBelow(out, atMost, probe)) return out;
  for (const i of lowerBounds) out[i] = { match: out[i]!.match, df: await count(out[i]!.match, cap, false) };
  return out;
}

/**
 * The terms recall's narrowed search chooses from (rarestWithin): the query's words that are in
 * at most COMMON_SHARE of the store's `size` memories (discriminating), then the phrases
 * presentTerms finds, as counting each word up to that share's bound gives them — or without the
 * words whose count reaches `probe`, when those cannot be chosen. A prefix word's count merges
 * the lists of every word it covers and costs more the further it goes (four words of a prompt
 * at 50k: ~4.5 ms CPU to 10,001, ~3 ms to 2,000).
 *
 * Why the choice is the same: when the phrases counted below `probe` already end rarestWithin's
 * walk before any term of `probe` or more (stopsBelow), adding words counted below `probe` (exact,
 * and discriminating either way) only ends it sooner; a word that reaches `probe` has a true
 * count of `probe` or more, so it is never reached, whether discriminating would have kept it or
 * not, and leaving it out changes no exact word's place. Otherwise every word is counted to the
 * share's bound, as before.
 */
export async function narrowingTerms(words: readonly string[], phrases: readonly string[], size: number, atMost: number, cap: number, probe: number, count: CountUpTo): Promise<Counted[]> {
  const common = Math.floor(size * COMMON_SHARE) + 1;
  const probed = await probedPhrases(phrases, Math.min(probe, cap), count);
  // probe the words only when the phrases alone already end the walk below `probe`: more exact
  // terms only end it sooner (stopsBelow holds on), so no word is then counted twice
  const probing = probe < common && stopsBelow(probed, atMost, probe);
  const df = new Map<string, number>();
  for (const w of words) {
    const n = await wordCount(w, probing ? probe : common, count);
    // left at the probe: never reached by the walk, whether discriminating would keep it or not
    if (!probing || n < probe) df.set(w, n);
  }
  // a word or phrase no memory holds matches nothing and adds exactly 0 to every match's BM25:
  // left out, the search finds and ranks the same, while BM25 costs a step per term for each
  // row it ranks (a concept brings ~50 phrases, most absent from a store)
  const counted = discriminating(df, size).flatMap((w) => (df.get(w)! > 0 ? [{ match: matchAny([w]), df: df.get(w)! }] : []));
  return finishTerms(counted, probed, atMost, cap, probe, count);
}

/**
 * A word's matches as its prefix form ("worker"*) counts them, up to `upTo`: the whole word
 * ("worker") first, which matches within the prefix's matches, so reaching `upTo` there the prefix
 * reaches it too and the answer is `upTo` either way. The whole word's count stops at `upTo`
 * without merging the lists of every word the prefix covers: a narrowed paraphrase at 50k probed
 * "worker"* and "billing"* to 2,000 in ~0.4-0.8 ms each, their whole words in ~0.15-0.3 ms. A word
 * short of the bound pays its whole count and then the prefix's, as before.
 */
export async function wordCount(w: string, upTo: number, count: CountUpTo): Promise<number> {
  if (w.length >= PREFIX_FROM && (await count(`"${w}"`, upTo, false)) >= upTo) return upTo;
  return count(matchAny([w]), upTo, false);
}

/** Whether rarestWithin's walk stops before any term counted `probe` or more (see presentTerms). */
export function stopsBelow(terms: readonly Counted[], atMost: number, probe: number): boolean {
  const below = terms.filter((t) => t.df < probe).map((t) => t.df).sort((a, b) => a - b);
  let sum = 0;
  for (const [i, df] of below.entries()) {
    if (i > 0 && sum + df > atMost) return true;
    sum += df;
  }
  return below.length > 0 && sum + probe > atMost;
}

/**
 * The floor's passes, or none when every memory that passes does so on a lone word common in this
 * store (core/recall-chance.ts): the prompt is then about something else, one of its words met as
 * it would be in any big enough store. Judged only then: one memory passing on other evidence
 * (more of the prompt, a word few memories hold) opens the prompt as before. A one-word match let
 * through by association (core/recall-associated.ts) is judged as its one word (its fit does not
 * pass): branch floor34 measured it so; whether association should open the prompt is untried. Each judged word is counted in the full-text index up to the common count only (every
 * memory, as the store's size counts them), for at most JUDGED_MOST words.
 */
export async function beyondChance(passes: readonly boolean[], terms: RecallTerms, fits: readonly Fit[], count: CountUpTo, size: () => Promise<number>): Promise<boolean[]> {
  const lone = loneWords(terms, fits, passes);
  if (!passes.some(Boolean) || passes.some((p, i) => p && lone[i] === null)) return [...passes];
  const words = [...new Set(lone.flatMap((w) => (w ? [w] : [])))];
  if (words.length > JUDGED_MOST) return [...passes];
  const common = commonFrom(await size());
  for (const w of words) if ((await count(matchAny([w]), common, false)) < common) return [...passes];
  return passes.map(() => false);
}
