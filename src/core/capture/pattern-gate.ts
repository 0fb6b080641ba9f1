import { PATTERN_WORDS } from "./pattern-words.gen.ts";
import { patternKey } from "./pattern-words.ts";

// A pattern searched only in a sentence holding one of the words it cannot match without
// (pattern-words.ts, read at build time into pattern-words.gen.ts under each pattern's flags and
// source). A pattern the table does not hold (a new or changed one before the next build) is
// always searched: slower, never a different answer.

const wordsOf = new WeakMap<RegExp, readonly string[] | null>();

/** Whether `re` may match a sentence whose lower-cased text is `lower`: false only when it holds none of the pattern's words. */
export function mayMatch(re: RegExp, lower: string): boolean {
  let words = wordsOf.get(re);
  if (words === undefined) wordsOf.set(re, (words = PATTERN_WORDS.get(patternKey(re)) ?? null));
  return words === null || words.some((w) => lower.includes(w));
}

/** `re.test(s)`, false without searching when `s` holds none of the pattern's words. */
export function holds(re: RegExp, s: string): boolean {
  return mayMatch(re, s.toLowerCase()) && re.test(s);
}

/** `re.exec(s)`, null without searching when `s` holds none of the pattern's words. */
export function searched(re: RegExp, s: string): RegExpExecArray | null {
  return mayMatch(re, s.toLowerCase()) ? re.exec(s) : null;
}
