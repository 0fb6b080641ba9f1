import { stem } from "./memory-terms.ts";
import type { Fit, RecallTerms } from "./recall-rank.ts";
import { STOP_WORDS } from "./stop-words.ts";

// What a memory is about is said first: "Reporting queries go to the read replica" is about
// reporting queries; "Server state is handled with TanStack Query" mentions a query in passing. A
// query word found among a memory's first words counts more in its relevance, as a title field
// does in BM25F: the memory's lead is its title.

/** A memory's lead: its first content words (stop words out); 2 moved no set down, 3-5 lowered one (branch recall9). */
const LEAD_WORDS = 2;
/** How much more a memory whose lead holds the whole query weighs (a share of it: in proportion); 0.1-0.3 tried. */
export const LEAD_WEIGHT = 0.2;

const ASCII_WORD = /[a-z0-9]+/gi;
const WORD = /[\p{L}\p{N}]+/gu;

/** The stems of a text's first meaningful words (read from its start only: no split of the whole text). */
function leadOf(text: string): string[] {
  const lead: string[] = [];
  // ASCII, the usual case (judged on the start, where the lead is): a plain pattern is faster than the Unicode one
  const ascii = /^[\x00-\x7f]*$/.test(text.slice(0, 200));
  const word = ascii ? ASCII_WORD : WORD;
  word.lastIndex = 0;
  for (let m = word.exec(text); m !== null && lead.length < LEAD_WORDS; m = word.exec(text)) {
    const w = (ascii ? m[0] : m[0].normalize("NFKC")).toLowerCase();
    if (!STOP_WORDS.has(w)) lead.push(stem(w));
  }
  return lead;
}

/** A query's words by stem, with their weights (strong 1, weak 0.5) and the total: made once a query. */
interface QueryStems {
  words: Map<string, string[]>;
  weight: Map<string, number>;
  total: number;
}
const stemsOfQuery = new WeakMap<RecallTerms, QueryStems>();

function queryStems(terms: RecallTerms): QueryStems {
  let q = stemsOfQuery.get(terms);
  if (!q) {
    q = { words: new Map(), weight: new Map(), total: 0 };
    for (const w of terms.words) {
      const wt = terms.strong.includes(w) ? 1 : 0.5;
      const s = stem(w);
      q.words.set(s, [...(q.words.get(s) ?? []), w]);
      q.weight.set(w, wt);
      q.total += wt;
    }
    stemsOfQuery.set(terms, q);
  }
  return q;
}

/** The share of the query's words (strong 1, weak 0.5) that a memory's lead holds, 0..1. */
export function leadShare(terms: RecallTerms, fit: Fit, content: string): number {
  if (fit.found.size === 0) return 0;
  const q = queryStems(terms);
  if (q.total === 0) return 0;
  let got = 0;
  const counted = new Set<string>();
  for (const s of leadOf(content)) {
    for (const w of q.words.get(s) ?? []) {
      if (!fit.found.has(w) || counted.has(w)) continue;
      counted.add(w);
      got += q.weight.get(w)!;
    }
  }
  return got / q.total;
}

/** The weight of a memory's relevance for what its lead holds of the query: 1 .. 1 + LEAD_WEIGHT. */
export function leadWeight(terms: RecallTerms, fit: Fit, content: string): number {
  return 1 + LEAD_WEIGHT * leadShare(terms, fit, content);
}
