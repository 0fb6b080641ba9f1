// The terms the full-text index (FTS5, `porter unicode61 remove_diacritics 2`) makes of a text,
// made in JS for the texts where that can be told for sure. Used by impact-price.ts to price
// postings kept per term (branch ftsbound30: per-term counts kept on every write were measured and
// taken out again; impact-ordered postings are the route it priced), where a count or a posting is
// only exact when the terms are FTS5's own. So this answers only for text whose characters are ASCII or non-ASCII
// separators known to be separators to unicode61 (isNonAsciiSeparator: nothing for its token
// classes or diacritic folding to do); for anything else (a letter with an accent, CJK, a
// combining mark, an emoji) it says null and the caller asks FTS5 itself. The stemmer follows FTS5's porter
// (its steps, their order and conditions), checked term for term against FTS5 by
// tests/store/fts-tokens.test.ts.

/** FTS5's porter leaves tokens shorter than this, or longer than PORTER_MAX, as they are. */
const PORTER_MIN = 3;
const PORTER_MAX = 64;

/**
 * Non-ASCII characters unicode61 separates on for sure: punctuation, symbols and spaces of the
 * blocks prose and terminal output use (Latin-1's, general punctuation, arrows, mathematical
 * operators, box drawing and shapes, miscellaneous symbols, dingbats, CJK punctuation), all
 * assigned long before SQLite's tables were made. A character assigned later (an emoji, a new
 * currency sign) is a token character to unicode61, whatever JS's tables say: left to FTS5.
 * tests/store/fts-tokens.test.ts checks every character this admits against FTS5.
 */
const OLD_BLOCKS = /^[\u00a0-\u00bf\u00d7\u00f7\u2000-\u206f\u2190-\u22ff\u2500-\u26ff\u2701-\u27bf\u3000-\u303f]$/u;
const SEPARATOR_CLASS = /^[\p{P}\p{S}\p{Z}]$/u;
export const isNonAsciiSeparator = (c: string): boolean => OLD_BLOCKS.test(c) && SEPARATOR_CLASS.test(c);
const NON_ASCII = /[^\x00-\x7f]/gu;
const HAS_NON_ASCII = /[^\x00-\x7f]/;

/**
 * The distinct terms FTS5 indexes for `text`, or null when it holds a character whose treatment
 * is not told here (see the file's head).
 */
export function ftsTerms(text: string): Set<string> | null {
  const out = new Set<string>();
  if (!addTerms(text, out)) return null;
  return out;
}

/** ftsTerms of several texts (a memory's columns) in one set; null as ftsTerms. */
export function ftsTermsOf(texts: readonly string[]): Set<string> | null {
  const out = new Set<string>();
  for (const t of texts) if (!addTerms(t, out)) return null;
  return out;
}

/** The terms of `text` in order, repeats kept (a query's phrase); null as ftsTerms. */
export function ftsTermList(text: string): string[] | null {
  if (!plain(text)) return null;
  return tokens(text).map(stem);
}

function addTerms(text: string, out: Set<string>): boolean {
  if (!plain(text)) return false;
  for (const t of tokens(text)) out.add(stem(t));
  return true;
}

function plain(text: string): boolean {
  if (!HAS_NON_ASCII.test(text)) return true;
  for (const c of text.match(NON_ASCII) ?? []) if (!isNonAsciiSeparator(c)) return false;
  return true;
}

/** unicode61 on such text: runs of ASCII letters and digits, lower-cased. */
function tokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

// --- porter, as FTS5 runs it ---------------------------------------------------------------

const isVowel = (c: string, yIsVowel: boolean) => c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");

/** Past the first vowel-then-consonant run of w (from a consonant state `prevCons`): the index after it, 0 when there is none. */
function gobbleVC(w: string, prevCons: boolean): number {
  let cons = prevCons;
  let i = 0;
  for (; i < w.length; i++) {
    cons = !isVowel(w[i]!, cons);
    if (!cons) break;
  }
  for (i++; i < w.length; i++) {
    cons = !isVowel(w[i]!, cons);
    if (cons) return i + 1;
  }
  return 0;
}

/** m > 0 */
const mGt0 = (w: string) => gobbleVC(w, false) !== 0;
/** m > 1 */
function mGt1(w: string): boolean {
  const n = gobbleVC(w, false);
  return n !== 0 && gobbleVC(w.slice(n), true) !== 0;
}
/** m = 1 */
function mEq1(w: string): boolean {
  const n = gobbleVC(w, false);
  return n !== 0 && gobbleVC(w.slice(n), true) === 0;
}
/** *o: ends consonant-vowel-consonant, the last not w, x or y */
function oStar(w: string): boolean {
  const last = w[w.length - 1];
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let cons = false;
  for (const c of w) {
    cons = !isVowel(c, cons);
    mask = ((mask << 1) | (cons ? 1 : 0)) & 0xff;
  }
  return (mask & 7) === 5;
}
/** *v*: holds a vowel (y one past the first letter) */
function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (isVowel(w[i]!, i > 0)) return true;
  return false;
}
const mGt1SorT = (w: string) => (w.endsWith("s") || w.endsWith("t")) && mGt1(w);

type Rule = readonly [suffix: string, replacement: string, when: (stem: string) => boolean];
/** A step's rules by the last letter of their suffix, in their order (only those can end a word ending so). */
type Rules = ReadonlyMap<string, readonly Rule[]>;

function byLastLetter(rules: readonly Rule[]): Rules {
  const out = new Map<string, Rule[]>();
  for (const r of rules) {
    const last = r[0][r[0].length - 1]!;
    const list = out.get(last);
    if (list) list.push(r);
    else out.set(last, [r]);
  }
  return out;
}

/**
 * One step: the first rule whose suffix ends the word (the word longer than the suffix) decides;
 * its condition on what precedes the suffix says whether it is replaced. Returns the word and
 * whether a rule applied. (Indexed loops over the few rules of the word's last letter: a cold
 * process runs this interpreted, once per term of every memory written.)
 */
function step(w: string, rules: Rules): [string, boolean] {
  const list = rules.get(w[w.length - 1]!);
  if (list === undefined) return [w, false];
  for (let i = 0; i < list.length; i++) {
    const rule = list[i]!;
    const suffix = rule[0];
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const rest = w.slice(0, w.length - suffix.length);
      return rule[2](rest) ? [rest + rule[1], true] : [w, false];
    }
  }
  return [w, false];
}

const always = () => true;

const STEP_1B = byLastLetter([
  ["eed", "ee", mGt0],
  ["ed", "", hasVowel],
  ["ing", "", hasVowel],
]);
const STEP_1B2 = byLastLetter([
  ["at", "ate", always],
  ["bl", "ble", always],
  ["iz", "ize", always],
]);
const STEP_2 = byLastLetter(
  (
  [
    ["ational", "ate"],
    ["tional", "tion"],
    ["enci", "ence"],
    ["anci", "ance"],
    ["izer", "ize"],
    ["logi", "log"],
    ["bli", "ble"],
    ["alli", "al"],
    ["entli", "ent"],
    ["eli", "e"],
    ["ousli", "ous"],
    ["ization", "ize"],
    ["ation", "ate"],
    ["ator", "ate"],
    ["alism", "al"],
    ["iveness", "ive"],
    ["fulness", "ful"],
    ["ousness", "ous"],
    ["aliti", "al"],
    ["iviti", "ive"],
    ["biliti", "ble"],
  ] as const
).map(([s, r]) => [s, r, mGt0] as const),
);
const STEP_3 = byLastLetter(
  (
  [
    ["icate", "ic"],
    ["ative", ""],
    ["alize", "al"],
    ["iciti", "ic"],
    ["ical", "ic"],
    ["ful", ""],
    ["ness", ""],
  ] as const
).map(([s, r]) => [s, r, mGt0] as const),
);
const STEP_4 = byLastLetter([
  ...(["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"] as const).map((s) => [s, "", mGt1] as const),
  ["ion", "", mGt1SorT],
  ...(["ou", "ism", "ate", "iti", "ous", "ive", "ize"] as const).map((s) => [s, "", mGt1] as const),
]);

function step1a(w: string): string {
  const n = w.length;
  if (w[n - 1] !== "s") return w;
  if ((n > 4 && w.endsWith("sses")) || (n > 3 && w.endsWith("ies"))) return w.slice(0, n - 2);
  return w[n - 2] !== "s" ? w.slice(0, n - 1) : w;
}

/** A lower-case ASCII token as FTS5's porter stems it. */
export function stem(token: string): string {
  if (token.length < PORTER_MIN || token.length > PORTER_MAX) return token;
  let w = step1a(token);
  let applied: boolean;
  [w, applied] = step(w, STEP_1B);
  if (applied) {
    let again: boolean;
    [w, again] = step(w, STEP_1B2);
    if (!again) {
      const c = w[w.length - 1]!;
      if (!isVowel(c, false) && c !== "l" && c !== "s" && c !== "z" && c === w[w.length - 2]) w = w.slice(0, -1);
      else if (mEq1(w) && oStar(w)) w += "e";
    }
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  [w] = step(w, STEP_2);
  [w] = step(w, STEP_3);
  [w] = step(w, STEP_4);
  if (w.endsWith("e")) {
    const rest = w.slice(0, -1);
    if (mGt1(rest) || (mEq1(rest) && !oStar(rest))) w = rest;
  }
  if (w.length > 1 && w.endsWith("ll") && mGt1(w.slice(0, -1))) w = w.slice(0, -1);
  return w;
}
