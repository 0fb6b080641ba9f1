import { DEFAULT_DECAY, type DecaySettings, scoreMemory, SECONDS_PER_DAY } from "./decay.ts";
import { STOP_WORDS } from "./stop-words.ts";

// Recall's ranking, pure: a natural-language query into forgiving search terms, the blend of
// text relevance with the decay score and recency, and near-duplicate detection.

export interface RecallTerms {
  /** The words looked for (stop words left out). */
  words: string[];
  /** FTS5 expression: any word, quoted (no input is ever FTS syntax); 3+ letters also as prefix. */
  match: string | null;
}

/** What is left of "don't", "we'll"... once split at the apostrophe as the index splits words. */
const CONTRACTION_STEMS = new Set(["don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "wouldn", "shouldn", "couldn", "haven", "hasn", "hadn", "can", "ll", "ve", "re"]);

/** At most this many words of a prompt are looked for. */
export const MAX_QUERY_WORDS = 24;

/**
 * A prompt into search terms: lower case, stop words out, any word may match. A query with no
 * meaningful word (stop words only, "what do we do", or punctuation, "?!") gives no terms (match
 * null): recall then finds nothing, as it does for a prompt that matches nothing.
 */
export function recallTerms(query: string): RecallTerms {
  const all = [...new Set(query.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const words = all.filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !CONTRACTION_STEMS.has(w)).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return { words, match: null };
  return { words, match: matchAny(words) };
}

const SUFFIXES = ["ations", "ation", "ings", "ing", "ions", "ion", "ates", "ated", "ate", "ers", "er", "edly", "ed", "ies", "es", "s", "ly"];

/** A crude stem (paginate, pagination -> pagin; timed, timing -> tim): enough to tell a word matched. */
export function stemLite(word: string): string {
  for (const suf of SUFFIXES) {
    if (word.length - suf.length >= 3 && word.endsWith(suf)) return suf === "ies" ? `${word.slice(0, -3)}y` : word.slice(0, -suf.length);
  }
  return word;
}

/**
 * Share of the query's words a memory contains (as a word, a prefix of one, or the same stem).
 * BM25 alone gives a word found in most memories almost no weight; coverage still counts it.
 */
export function coverage(queryWords: readonly string[], memoryWords: ReadonlySet<string>, ...more: ReadonlySet<string>[]): number {
  if (queryWords.length === 0) return 0;
  const qs = queryWords.map((q) => ({ q, stem: stemLite(q) }));
  const found = new Array<boolean>(qs.length).fill(false);
  let n = 0;
  // several sets (the content's words, then the gist's, tags' and entities'): looked through in
  // turn rather than merged into one new set per memory, which cost more than the search itself
  for (const set of [memoryWords, ...more]) {
    for (const w of set) {
      let stem: string | undefined;
      for (let i = 0; i < qs.length; i++) {
        if (found[i]) continue;
        const { q, stem: qStem } = qs[i]!;
        if (w === q || (q.length >= 3 && w.startsWith(q)) || (qStem.length >= 3 && w.startsWith(qStem)) || (stem ??= stemLite(w)) === qStem) {
          found[i] = true;
          n++;
        }
      }
      if (n === qs.length) return 1;
    }
  }
  return n / qs.length;
}

/** The FTS5 expression for some of the words (any may match). */
export function matchAny(words: readonly string[]): string {
  return words.map((w) => (w.length >= 3 ? `"${w}"*` : `"${w}"`)).join(" OR ");
}

/** The FTS5 expression for all of the words. */
export function matchAll(words: readonly string[]): string {
  return words.map((w) => (w.length >= 3 ? `"${w}"*` : `"${w}"`)).join(" AND ");
}

/** A word in more than this share of the memories is too common to choose candidates by. */
export const COMMON_SHARE = 0.2;

/**
 * The words to choose candidates by, when the query as a whole matches much of the store:
 * those in at most COMMON_SHARE of the memories (all words if none is that rare). Ranking every
 * match of a common word costs time (BM25 per matching row) and gives it almost no weight anyway;
 * the candidates are then ranked on all the words (coverage).
 */
export function discriminating(docFreq: ReadonlyMap<string, number>, storeSize: number): string[] {
  const all = [...docFreq.keys()];
  const rare = all.filter((w) => docFreq.get(w)! <= storeSize * COMMON_SHARE);
  return rare.length ? rare : all;
}

export interface RankInputs {
  /** Text relevance, higher is better (>= 0): see relevanceOf. */
  relevance: number;
  use_count: number;
  last_used: number;
  strength: number;
  created_at: number;
  updated_at: number | null;
}

/** Text relevance: BM25 relative to the best match, and the share of query words found, in equal parts. */
export function relevanceOf(bm25: number, bestBm25: number, covered: number): number {
  return 0.5 * (bestBm25 > 0 ? bm25 / bestBm25 : 0) + 0.5 * covered;
}

export interface RankParts {
  /** Relevance relative to the best match of the query (0..1]. */
  relevance: number;
  /** The memory's decay score ((use_count+1)^beta · f(now − last_used) · strength). */
  decay: number;
  /** 0.5 ^ (age in days / 30), age from the last edit or creation. */
  recency: number;
  /** The blend recall orders by. */
  score: number;
}

/** Weights of the blend: relevance leads; use and freshness reorder matches of like relevance. */
export const BLEND = { base: 0.6, decay: 0.25, recency: 0.15, recencyHalfLifeDays: 30 } as const;

/**
 * score = relevance · (0.6 + 0.25 · decay/(decay+1) + 0.15 · recency). An exact old match
 * (relevance 1) still scores 0.6, above a fresh memory half as relevant (at most 0.5); of two
 * equally relevant memories the more used, the fresher ranks first.
 */
export function rank(m: RankInputs, bestRelevance: number, now: number, decay: DecaySettings = DEFAULT_DECAY): RankParts {
  const relevance = bestRelevance > 0 ? Math.min(1, m.relevance / bestRelevance) : 0;
  const d = scoreMemory(m, now, decay);
  const ageDays = Math.max(0, now - Math.max(m.created_at, m.updated_at ?? 0)) / SECONDS_PER_DAY;
  const recency = 0.5 ** (ageDays / BLEND.recencyHalfLifeDays);
  const score = relevance * (BLEND.base + BLEND.decay * (d / (d + 1)) + BLEND.recency * recency);
  return { relevance, decay: d, recency, score };
}

/** The words of a text as a set (lower case, letters and digits), for comparing memories. */
export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Jaccard similarity of two word sets: shared words over all words (1 = the same words). */
export function similarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Memories more similar than this are one memory said twice: recall shows the best of them. */
export const NEAR_DUPLICATE = 0.85;

/**
 * Whether two word sets are near-duplicates. The shared words are at most the smaller set, so
 * sets whose sizes differ by more than the threshold allows are not, without comparing their
 * words (most pairs of candidates: comparing each pair's words was most of recall's own time).
 */
export function nearDuplicates(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a.size, b.size] : [b.size, a.size];
  if (large > 0 && small / large <= NEAR_DUPLICATE) return false;
  return similarity(a, b) > NEAR_DUPLICATE;
}

/**
 * Group items (best first) so each near-duplicate joins the first, better item it resembles.
 * Returns the kept items with the ids folded into each.
 */
export function collapseNearDuplicates<T>(items: readonly T[], wordsOf: (t: T) => ReadonlySet<string>, idOf: (t: T) => string): { item: T; collapsed: string[] }[] {
  const kept: { item: T; words: ReadonlySet<string>; collapsed: string[] }[] = [];
  for (const item of items) {
    const words = wordsOf(item);
    const twin = kept.find((k) => nearDuplicates(words, k.words));
    if (twin) twin.collapsed.push(idOf(item));
    else kept.push({ item, words, collapsed: [] });
  }
  return kept.map(({ item, collapsed }) => ({ item, collapsed }));
}
