// A standing problem said in the plain present with a condition of a kind (branch capture32): "The
// invoice export returns an empty file whenever the name has an ampersand", "Replica reads return
// old balances after each transfer", "The payroll sync duplicates employees each time HR edits a
// start date", "Build caches get poisoned when a proc macro reads environment variables".
//
// Such a sentence often holds no word of trouble at all: the trouble is in what the thing gives
// (nothing, an empty file, stale results, zero CPU, each reminder twice) or in a verb that says the
// thing damages what it handles (mangles, duplicates, loses). It is read from the sentence's shape,
// not from a list of failing verbs:
//   - a thing as the subject (not I / we / you / this), with no auxiliary or modal before its verb
//     ("should return nothing" is a spec, "is showing stale results" a state of the moment);
//   - the verb in the plain present (not -ed, not -ing);
//   - what it gives is a failure's result, or its verb is one of damage;
//   - a condition of a kind: a recurrence ("whenever", "each time", "on every run") or a class of
//     cases ("when the queue has more than ten jobs", "for titles with accents").
// A behaviour meant that way says so ("an empty list, not a 404", "by design"), or names neither a
// failure's result nor damage ("The deploy job runs every time a tag is pushed"): no problem.

/** A sentence that does not open on a thing: a person, a pointer, an occasion, a request. */
const NOT_A_THING =
  /^(?:i|we|you|i'm|we're|you're|i've|we've|it|it's|this|that|these|those|he|she|they|there|here|my|your|his|her|when|whenever|if|once|after|before|while|since|please|pls|make|let|can|could|would|should|does|do|did|is|are|was|were|has|have|why|how|what|which|who|so|and|but|also|then|now|just|maybe|ugh|ok|okay|yes|no|not)\b/i;

/** Words that cannot sit in a subject before its verb: auxiliaries, modals, links, the speaker. */
const NOT_IN_SUBJECT =
  /^(?:is|are|was|were|be|been|being|am|has|have|had|do|does|did|will|would|shall|should|can|could|may|might|must|won't|can't|don't|doesn't|isn't|aren't|keeps?|kept|that|which|who|when|whenever|if|and|but|so|because|we|i|you|they|it|not|never|no|still|also|now|just|seems?|looks?|checks?|says?|thinks?)$/i;

/** A verb of giving a result: what follows is what the thing gives. */
const GIVES =
  "(?:return|show|serve|display|give|report|render|send|print|write|produce|export|list|read|fetch|load|emit|generate|output|compute|calculate|count|store|save|record|log|put|turn|spit|come|end|hand)(?:s|es)?";
/**
 * What a thing gives that is a failure's result: nothing, an empty or blank one, nulls and zeros,
 * garbage, wrong or stale values, the same one twice, half of them.
 */
const FAILED_RESULT =
  "(?:nothing|no (?:results?|rows?|data|hits?|output|events?|items?)|(?:an? |the )?(?:empty|blank|zero-byte|black|white|all-zero)\\b|null\\b|nulls|nan\\b|zeroe?s\\b|zero\\b|garbage|gibberish|mojibake|garbled|scrambled|(?:the )?wrong\\b|stale|outdated|out-of-date|old (?:data|values?|balances?|prices?|results?|versions?|totals?|counts?)|duplicates?\\b|duplicated|(?:[\\w-]+ ){0,3}twice|(?:the )?same [\\w-]+ (?:twice|again|over and over)|half (?:the|of|its|their)\\b|question marks|invalid|corrupt(?:ed)?\\b|truncated|partial|incomplete)";
/** A verb that says the thing damages what it handles, in the plain present (3rd person or plural). */
const DAMAGES =
  "(?:mangle|garble|corrupt|scramble|clobber|duplicate|double-count|lose|loses|misread|miscount|misroute|mislabel|misplace|swallow|reboot|jam|flicker|stutter|glitch|glitches|drop|overlap|drift|fail|crash|crashes|hang)(?:s)?";
/** A passive of damage: "caches get poisoned", "bookings get lost", "labels come out wrong". */
const GETS_DAMAGED =
  "(?:gets?|go|goes|end up|ends up)\\s+(?:poisoned|corrupted|lost|wiped|mangled|duplicated|stuck|dropped|clobbered|scrambled|garbled|mixed up|swapped|overwritten|cut off|truncated|down|blank|dark|offline)\\b";

/** A result that is a failure whatever the verb gives it: the same one twice, garbled, stale, wrong (not "twice a day": a schedule). */
const FAILED_ANY =
  "(?:(?<=s )nothing\\b|(?:[\\w-]+ ){0,3}twice(?! (?:a|an|per|daily|weekly|yearly)\\b)|(?:the )?same [\\w-]+ (?:twice|again|over and over)|duplicates\\b|garbled|garbage|mojibake|corrupt(?:ed)?\\b|stale|(?:the )?wrong\\b)";

/** The predicate: the verb and what it gives (or a verb of damage). */
const PREDICATE = `(?:(?<any>(?!(?:is|was|has|keeps|seems|looks)\\b)[a-z]+s)\\s+(?:(?:out|up|back|in|as|into|with|each|every|all|its|their|the|an?|[\\w.+-]+)\\s+){0,4}?${FAILED_ANY}|(?<gives>${GIVES})\\s+(?:(?:out|up|back|in|as|into|with|each|every|all|its|their|the|an?|[\\w.+-]+)\\s+){0,4}?${FAILED_RESULT}|(?<damages>${DAMAGES})\\b|${GETS_DAMAGED})`;
/** Most words a subject is read with. */
const SUBJECT_WORDS = 7;
/** Subject words (exactly n of them), then the predicate: one pattern per length, so that a noun that looks like a verb ("the PDF export returns ...") is tried as part of the subject too. */
let shapes: RegExp[] | null = null;
const shapeOf = (n: number) => (shapes ??= Array.from({ length: SUBJECT_WORDS }, (_, i) => new RegExp(`^((?:[\\w.'+/&-]+\\s+){${i + 1}})${PREDICATE}`, "i")))[n - 1]!;

/** A condition of a kind: a recurrence, or a class of cases. */
const CONDITION =
  /\b(?:whenever|every ?time|each time|every (?!single\b)[\w-]+|(?:on|for|with|after|before|at) (?:every|each|all|any)\b|(?:when|if|once|while|unless|until|after|before) (?!i\b|i'm\b|we\b|you\b)(?:the|an?|any|some|its|their|more|there|two|both|it|they|[\w-]+s?)\b|for (?:(?:[\w+-]+\s+){0,2}?)[\w-]+s\s+(?:with|from|that|which|whose|over|under|in|on|of|older|larger|bigger|longer|(?!need|feed|seed|speed|bed|red|shed)[a-z]{2,}ed)\b|for (?:any|all|every|some|certain|older|newer|large|big|long)\b|(?:that|which|who) (?:contain|have|has|include|use|span|cross|start|end)s?\b|(?:over|above|more than|beyond|past|under|below) \d)/i;

/** A named platform as the class of cases: "on Android", "in Safari", "on older iPads" (not a day or a month: one occasion). */
const ON_PLATFORM =
  /\b(?:on|in) (?:older |newer |some |most |all )?(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|(?:January|February|March|April|May|June|July|August|September|October|November|December|Q[1-4])\b)[A-Z][\w.-]+/;

/** A result meant that way: "an empty list, not a 404", "by design", "as expected". */
const MEANT =
  /,\s*not\s+(?:an?|the)\b|\b(?:instead of|rather than|by design|on purpose|intentionally|deliberately|as (?:expected|intended|designed|documented)|(?:which|that) is (?:expected|intended|fine|correct|by design)|that's (?:expected|intended|fine|by design))\b/i;

/** A spell near now or a one-off aside: "right now", "today", "again", "this morning". */
const NOT_STANDING = /\b(?:right now|at the moment|today|tonight|this (?:morning|afternoon|evening|week)|yesterday|again|just now|for now)\b/i;

/**
 * Words one of which every match of the predicate holds, lower-cased (read off FAILED_ANY,
 * FAILED_RESULT, DAMAGES and GETS_DAMAGED): a sentence holding none is not searched further, so
 * that the ordinary sentence costs one pass of includes. tests/core/capture-standing-failure32.test.ts
 * holds each alternative to it.
 */
export const FAILURE_HINTS: readonly string[] = [
  "nothing", "no ", "empty", "blank", "zero", "black", "white", "null", "nan", "garbage", "gibberish", "mojibake", "garbl", "scrambl",
  "wrong", "stale", "outdated", "out-of-date", "old ", "duplicat", "twice", "same ", "half ", "question marks", "invalid", "corrupt",
  "truncat", "partial", "incomplete", "mangle", "clobber", "double-count", "lose", "misread", "miscount", "misroute", "mislabel",
  "misplace", "swallow", "reboot", "jam", "flicker", "stutter", "glitch", "drop", "overlap", "drift", "fail", "crash", "hang",
  "poisoned", "lost", "wiped", "stuck", "mixed up", "swapped", "overwritten", "cut off", "down", "dark", "offline",
];

/**
 * Whether `s` (one sentence, spaces normalised) states a standing problem in the plain present:
 * the match of its trouble (index and text), or null.
 */
export function standingFailure(s: string): RegExpExecArray | null {
  // one sentence is asked about up to three times in a row (the cue gate, the cue reading, the lesson check)
  if (s === lastAsked) return lastAnswer;
  lastAsked = s;
  return (lastAnswer = readFailure(s));
}
let lastAsked: string | null = null;
let lastAnswer: RegExpExecArray | null = null;

function readFailure(s: string): RegExpExecArray | null {
  // the cheapest and most selective looks first: the opening word, the condition, the failure words
  if (NOT_A_THING.test(s) || !(CONDITION.test(s) || ON_PLATFORM.test(s))) return null;
  const lower = s.toLowerCase();
  if (!FAILURE_HINTS.some((h) => lower.includes(h)) || MEANT.test(s) || NOT_STANDING.test(s)) return null;
  for (let n = 1; n <= SUBJECT_WORDS; n++) {
    const m = shapeOf(n).exec(s);
    if (!m) continue;
    const subject = m[1]!.trim().split(/\s+/);
    // "The lookup should return ...", "Search is showing ...", "This test checks that ...": not a thing's plain present
    if (subject.some((w) => NOT_IN_SUBJECT.test(w))) return null;
    // a verb without its -s agrees with a plural subject ("sorter cameras return", "devices drop"):
    // after a singular one it is a noun ("Code freeze starts ...", "the PDF export returns ...")
    const verb = m.groups?.gives ?? m.groups?.damages ?? m.groups?.any ?? "";
    // (the subject's head is the word before its first preposition: "card create calls in the sandbox fail")
    const of = subject.findIndex((w, i) => i > 0 && /^(?:in|on|for|of|at|from|with|behind|under|inside|through)$/i.test(w));
    const head = subject[(of === -1 ? subject.length : of) - 1]!;
    if (verb && !/s$/i.test(verb) && !/[^s']s$/i.test(head)) continue;
    return m;
  }
  return null;
}
