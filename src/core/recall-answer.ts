import type { WordSet } from "./memory-terms.ts";
import { mayMatch } from "./capture/pattern-gate.ts";

// What kind of answer a question asks for, when it asks for a quantity ("how long", "how often",
// "when", "how many", "how much", "max size"), and whether a memory states one. The asking words
// are stop or weak words, so a paraphrase that asks "how long do we keep database dumps" shares
// one strong word ("dumps") with the memory that answers it ("pg_dump backups are kept for 30
// days") and as many with any other memory about dumps or databases: the duration in the memory
// is what tells the answer. Pure; looks at a memory's word set only (the index keeps it).

export type AnswerKind = "duration" | "frequency" | "time" | "count" | "amount" | "version" | "choice";

export const ASKS: readonly [RegExp, AnswerKind][] = [
  [/\bhow often\b|\bhow frequently\b|\bhow many times\b|\bwhat cadence\b|\bwhat schedule\b|\bon what schedule\b/, "frequency"],
  [/\bhow long\b|\bhow many (?:seconds|minutes|hours|days|weeks|months|years)\b|\b(?:expiry|lifetime|retention period|ttl|timeout) of\b/, "duration"],
  [/^(?:so |and |but |ok |okay )?when\b|\bwhen (?:do|does|did|is|are|was|were|will|should|can)\b|\bwhat time\b|\bwhich day\b|\bwhat day\b/, "time"],
  [/\bhow much\b|\bhow big\b|\bhow large\b|\bhow small\b|\bwhat size\b|\b(?:max|maximum|min|minimum|largest|biggest|smallest) (?:\w+ )?(?:size|amount|length|number|count|limit|price|cost|upload|file|width|height)\b|\bsize limit\b|\b(?:max|maximum|largest|biggest) \w+ size\b/, "amount"],
  [/\bhow many\b|\bnumber of\b|\bhow fast\b|\bhow slow\b/, "count"],
  // "pg version", "which version of node": a release of a thing, not versions as a practice ("api versioning")
  [/\b(?:which|what) version\b|\bversion (?:of|are|is|do|does)\b|\bversion\W*$/, "version"],
];

/** A question for a choice: "which X", "what X do we use", "what is it written in". */
export const CHOICE = /\bwhich\b|^(?:so |and |ok )?what\b|\bwhat (?:\w+ )?(?:do|does|did|are|is|should) (?:we|they|you|i)\b/;

/**
 * The kind of quantity a question asks for, if it asks for one; else "choice" for a question that
 * asks which product of a kind (names: the query names a kind of thing, a recall concept with
 * products: "which database"), answered by a memory that carries one of them as an entity.
 */
export function asksFor(query: string, names = false): AnswerKind | null {
  const q = query.toLowerCase();
  // each pattern searched only in a query holding one of its words (capture/pattern-gate.ts: read
  // from its source at build time): a cold hook compiled all six for most prompts, ~0.2 ms
  for (const [re, kind] of ASKS) if (mayMatch(re, q) && re.test(q)) return kind;
  return names && mayMatch(CHOICE, q) && CHOICE.test(q) ? "choice" : null;
}

/** The patterns asksFor searches through the gate (their words are in capture/pattern-words.gen.ts). */
export function answerPatterns(): RegExp[] {
  return [...ASKS.map(([re]) => re), CHOICE];
}

const NUMBER_WORDS = new Set(
  "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty ninety hundred thousand million dozen half".split(" "),
);
const TIME_UNITS = new Set("ms millisecond milliseconds second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks month months year years".split(" "));
const FREQUENCY = new Set("every daily nightly weekly monthly yearly annually quarterly hourly once twice biweekly fortnightly".split(" "));
const CALENDAR = new Set(
  (
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays " +
    "january february march april may june july august september october november december " +
    "nightly daily weekly monthly midnight noon utc am pm morning evening"
  ).split(" "),
);
const AMOUNT_UNITS = new Set("kb mb gb tb bytes dollars dollar usd eur gbp cents percent ms rps requests seats".split(" "));

/** A number in digits or in words. */
export const isNumber = (w: string): boolean => {
  // the regex only for a word that starts with a digit: recall asks this of every word of ~20
  // candidates (leadAndNumber) in a cold process, where each regex call is dear
  const c = w.charCodeAt(0);
  return (c >= 48 && c <= 57 && /^\d+$/.test(w)) || NUMBER_WORDS.has(w);
};

/**
 * A number as a whole word (as the words [\p{L}\p{N}]+ of a lowercased text are split) that
 * isNumber takes: digits only, or a number word. One native search instead of isNumber called on
 * each word up to the first number (a cold recall asked it of ~3,500 words: ~1 ms).
 */
// Made at its first use, not at import: the filter's Unicode pattern and the lookbehinds cost every
// hook that loads this chunk (most never ask for a number).
let numberAsWord: RegExp | undefined;
const NUMBER_AS_WORD = () =>
  (numberAsWord ??= new RegExp(`(?<![\\p{L}\\p{N}])(?:\\d+|${[...NUMBER_WORDS].filter((w) => /^[\p{L}\p{N}]+$/u.test(w)).join("|")})(?![\\p{L}\\p{N}])`, "u"));

/** Where in a lowercased text its first word that isNumber takes starts, and that word; null: none. */
export function firstNumber(lower: string): { at: number; word: string } | null {
  const m = NUMBER_AS_WORD().exec(lower);
  return m ? { at: m.index, word: m[0] } : null;
}

/**
 * Whether a memory's words state the kind of quantity asked for (a choice: see asksFor). The
 * query's own words are no answer: "when does the nightly export run" is answered by "runs at 02:00
 * UTC", not by another memory's "nightly", which only repeats the question.
 */
export function answers(words: WordSet, kind: Exclude<AnswerKind, "choice">, asked: readonly string[] = []): boolean {
  if (kind === "version") return statesVersion(words, asked);
  let number = false;
  let unit = false;
  for (const w of words) {
    if (asked.includes(w)) continue;
    if (isNumber(w)) number = true;
    switch (kind) {
      case "frequency":
        if (FREQUENCY.has(w)) return true;
        break;
      case "time":
        if (CALENDAR.has(w) || /^\d{1,2}$/.test(w) && words.has("utc")) return true;
        break;
      case "duration":
        if (TIME_UNITS.has(w)) unit = true;
        break;
      case "amount":
        if (AMOUNT_UNITS.has(w)) unit = true;
        break;
      case "count":
        unit = true;
        break;
    }
    if (number && unit) return true;
  }
  return false;
}

/**
 * A version stated: "v2", or a number that counts nothing ("PostgreSQL 16", "Node 22 LTS"; not
 * "kept for 30 days", "a 90-day lifecycle", "100 requests").
 */
function statesVersion(words: WordSet, asked: readonly string[]): boolean {
  let number = false;
  for (const w of words) {
    if (asked.includes(w)) continue;
    if (/^v\d+$/.test(w)) return true;
    if (TIME_UNITS.has(w) || AMOUNT_UNITS.has(w) || FREQUENCY.has(w)) return false;
    if (/^\d+$/.test(w)) number = true;
  }
  return number;
}
