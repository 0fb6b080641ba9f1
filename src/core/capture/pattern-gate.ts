import { PATTERN_WORDS } from "./pattern-words.gen.ts";

// A pattern searched only in a sentence holding one of the words it cannot match without
// (pattern-words.ts, read at build time into pattern-words.gen.ts under each pattern's key). A
// pattern the table does not hold (a new or changed one before the next build) is always
// searched: slower, never a different answer.

/**
 * The key a pattern's words are kept under: its flags and source, so a changed pattern finds none.
 * A character outside ASCII as \uXXXX: JavaScriptCore's source escapes it, V8's (Deno) does not.
 */
export const patternKey = (re: RegExp): string => `${re.flags}/${re.source.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`;

const wordsOf = new WeakMap<RegExp, readonly string[] | null>();

/** The words a pattern's key holds in the table, null for none. */
export function tableWords(re: RegExp): readonly string[] | null {
  return PATTERN_WORDS.get(patternKey(re)) ?? null;
}

/** Whether `re` may match a sentence whose lower-cased text is `lower`: false only when it holds none of the pattern's words. */
export function mayMatch(re: RegExp, lower: string): boolean {
  let words = wordsOf.get(re);
  if (words === undefined) wordsOf.set(re, (words = tableWords(re)));
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
