import { DEFAULT_DECAY, type DecaySettings, scoreMemory, SECONDS_PER_DAY } from "./decay.ts";
import { contentWords, type StemSet, stem, wordSet } from "./memory-terms.ts";
import { baseStem, baseWord, type Concept, holdsConcept, irregularForms, type MemoryTerms, queryConcepts } from "./recall-concepts.ts";

export { contentWords, wordSet };
import { STOP_WORDS } from "./stop-words.ts";
import { type AnswerKind, answers, asksFor, firstNumber } from "./recall-answer.ts";
import { everyday } from "./recall-gate.ts";
import { spellingVariants } from "./recall-spelling.ts";

// Recall's ranking, pure: a natural-language query into forgiving search terms, the blend of
// text relevance with the decay score and recency, and near-duplicate detection.

export interface RecallTerms {
  /** The words looked for (stop words left out). */
  words: string[];
  /** The words that can make a memory relevant (not WEAK_WORDS, not a short number, 3+ letters or a concept's). */
  strong: string[];
  /** What the query speaks of beyond its words (products, kinds of things, abbreviations). */
  concepts: Concept[];
  /**
   * FTS5 expression: any word, quoted (no input is ever FTS syntax), 5+ letters also as prefix;
   * and any phrase of the concepts.
   */
  match: string | null;
  /** The concepts' phrases in the expression (beside the words). */
  phrases: string[];
  /** The kind of quantity the query asks for ("how long": a duration), when it asks for one (core/recall-answer.ts). */
  asks?: AnswerKind;
  /** The query's words that have another spelling, with it ("colour": ["color"]), made once a query. */
  spellings?: ReadonlyMap<string, readonly string[]>;
  /** Two neighbouring words of the query, and the forms of what they make written as one ("rate limit": "ratelimit", "ratelimits", "ratelimiter"...). */
  pairs?: (readonly [string, string, readonly string[]])[];
  /** How many choices the query offers between two strong words ("postmark or sendgrid": 1). */
  alternatives?: number;
  /**
   * The words that are only part of a longer word of the prompt, with that word: a camel-case
   * identifier's ("GitHub": "git", "hub") and a glued name's letters and digits ("rfc9457": "rfc",
   * "9457"). Looked for, but one word said once: a part found counts as its word found.
   */
  parts?: ReadonlyMap<string, string>;
  /** Names of one letter joined by a sign ("n+1", "c#", "c++"), with their letters and digits: found where a memory holds all of them. */
  joined?: ReadonlyMap<string, readonly string[]>;
  /** In a terse prompt (at most TERSE_STRONG strong words), its neighbouring words that are both plain (WEAK_WORDS) and capitalised: a name (namedPairs). */
  plainPairs?: (readonly [string, string])[];
}

/**
 * Words too general to make a memory relevant on their own: a prompt that shares only these with
 * a memory ("I need to log my hours for work", "three ideas") is not about it. They still count
 * in ranking a memory that matches on something else.
 */
export const WEAK_WORDS: ReadonlySet<string> = new Set([
  "work", "works", "worked", "working", "job", "thing", "stuff", "time", "times", "day", "days", "week", "weeks", "month",
  "months", "year", "years", "hour", "hours", "minute", "minutes", "today", "tomorrow", "yesterday", "night", "morning",
  "new", "old", "good", "bad", "best", "better", "worse", "big", "small", "long", "short", "high", "low", "first", "last",
  "next", "right", "wrong", "sure", "fine", "great", "nice", "easy", "hard", "quick", "fast", "slow", "many", "lot", "lots",
  "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "hundred", "thousand", "million", "once",
  "twice", "half", "number", "numbers", "help", "write", "read", "run", "runs", "make", "take", "put", "call", "find",
  "look", "see", "keep", "try", "start", "stop", "change", "fix", "fixed", "add", "remove", "update", "create", "go",
  "come", "say", "said", "ask", "asked", "name", "names", "idea", "ideas", "tip", "tips", "way", "ways", "kind", "sort",
  "type", "types", "example", "examples", "question", "answer", "problem", "issue", "issues", "part", "place", "point",
  "case", "end", "side", "set", "list", "lists", "log", "people", "person", "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "world", "home",
  "life", "family", "friend", "friends", "mom", "dad", "explain", "describe", "recommend", "suggest", "summarize", "tell",
  "happen", "happens", "happened", "mean", "means", "difference", "between", "without", "within", "around", "across",
  "against", "among", "per", "via", "able", "done", "doing", "getting", "got", "went", "gone", "put", "called", "happy",
  "sad", "love", "hate", "fun", "interesting", "important", "different", "similar", "real", "true", "false", "yes",
  "maybe", "probably", "always", "never", "often", "sometimes", "usually", "every", "another", "whole", "full", "empty",
  "here", "away", "back", "together", "later", "soon", "ago", "already", "since", "far", "near", "next", "previous",
  // words that frame a question about a kind of thing ("which forms library", "which tool for
  // newsletters"): the kind is asked for, the topic is the other word
  "library", "libraries", "tool", "tools", "tooling", "framework", "frameworks", "provider", "providers", "system",
  "systems", "platform", "platforms", "solution", "solutions", "approach", "option", "options", "choice", "choices",
  "stack", "technology", "technologies", "tech", "product", "products", "vendor", "vendors", "software", "setup",
  "setting", "settings", "service", "services", "thingy", "stuff", "approach", "strategy", "method", "practice",
  // words that ask about memory itself ("remind me which option we chose"): the topic is elsewhere
  "remind", "remember", "recall", "mentioned", "discussed", "talked",
]);


/** What is left of "don't", "we'll"... once split at the apostrophe as the index splits words. */
const CONTRACTION_STEMS = new Set(["don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "wouldn", "shouldn", "couldn", "haven", "hasn", "hadn", "can", "ll", "ve", "re"]);

/** A version's name ("v1", "v22"): under three characters, yet it names one thing ("how long is v1 kept alive after v2", branch recall13). */
const VERSION_NAME = /^v\d{1,2}$/;

/** An identifier written in camel case ("toMatchSnapshot", "InvoicePaid"): a lower-case letter, then an upper-case one. */
const CAMEL = /\b[A-Za-z][a-z]+(?:[A-Z][a-z]+)+\b/g;

/**
 * The text with each camel-case identifier followed by its parts ("toMatchSnapshot" -> "toMatchSnapshot
 * to Match Snapshot"): a memory says "snapshot tests" where a prompt names the matcher (branch recall13).
 */
function camelParts(text: string): string {
  return text.replace(CAMEL, (w) => `${w} ${w.replace(/([a-z])([A-Z])/g, "$1 $2")}`);
}

/** A name of letters with digits glued on ("rfc9457", "route53", "e164", "sha256"); not a version's name ("v2"). */
const GLUED = /^([a-z]+)(\d+)$/;

/**
 * The parts of the prompt's longer words, each with the word it is part of (RecallTerms.parts):
 * camel case ("GitHub": git, hub) and letters with digits glued on ("rfc9457": rfc, 9457; a memory
 * writes "RFC 9457"). A part the prompt also says on its own is a word of its own.
 */
function partsOf(query: string, said: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const alone = new Set(said);
  const add = (whole: string, parts: readonly string[]) => {
    for (const p of parts) if (p !== whole && !alone.has(p) && !out.has(p)) out.set(p, whole);
  };
  for (const w of query.match(CAMEL) ?? []) add(w.toLowerCase(), w.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(" "));
  for (const w of said) {
    const g = VERSION_NAME.test(w) ? null : GLUED.exec(w);
    if (g) add(w, [g[1]!, g[2]!]);
  }
  return out;
}

/**
 * A name of one letter joined by a sign to a digit or nothing ("N+1", "C#", "C++", "F#"): its
 * characters are too short to be words, so it was no word of the prompt at all (branch recall28).
 */
const JOINED = /(?<![\p{L}\p{N}])(\p{L})(\+\+|[+#])(\p{N}?)(?![\p{L}\p{N}+#])/gu;

/** The prompt's JOINED names, each with its letter and digit. */
function joinedNames(lower: string): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  // no sign, no name: most prompts never compile JOINED (its lookarounds cost a cold hook ~0.1-0.2 ms)
  if (!lower.includes("+") && !lower.includes("#")) return out;
  // "a+", "i/o": a stop word is in every memory, so it finds nothing
  for (const m of lower.matchAll(JOINED)) if (!STOP_WORDS.has(m[1]!)) out.set(m[0], m[3] ? [m[1]!, m[3]] : [m[1]!]);
  return out;
}

/** A prompt with at most this many strong words is terse: its short words (shortName) are strong too. */
const TERSE_STRONG = 1;

/**
 * A word too short to be strong in a longer prompt that names a thing in a terse one: two letters
 * ("uv", "ip", "mb") or a number of one or two digits ("24 hours", "42 issues"), and not a word
 * everyday English says ("tv", "no", "ok"): plain BM25 found these and recall did not (branch recall28).
 */
function shortName(w: string): boolean {
  return (w.length === 2 || /^\d{1,2}$/.test(w)) && !WEAK_WORDS.has(w) && !everyday(w);
}

/**
 * Neighbouring words of the prompt that are both plain (WEAK_WORDS) and both written with a capital
 * ("Better Stack", "Secret Manager"): a name. Written in lower case they are as often said by
 * chance ("a long run", "five minutes"), and counting those answered off-topic prompts (branch recall28).
 */
function namedPairs(query: string, pairs: readonly (readonly [string, string, readonly string[]])[]): (readonly [string, string])[] {
  const out: (readonly [string, string])[] = [];
  for (const [a, b] of pairs) {
    if (!WEAK_WORDS.has(a) || !WEAK_WORDS.has(b)) continue;
    const cap = (w: string) => `${w[0]!.toUpperCase()}${w.slice(1)}`;
    if (query.includes(`${cap(a)} ${cap(b)}`)) out.push([a, b]);
  }
  return out;
}

/** At most this many words of a prompt are looked for. */
export const MAX_QUERY_WORDS = 24;

/**
 * A prompt into search terms: lower case, stop words out, any word may match. A query with no
 * meaningful word (stop words only, "what do we do", or punctuation, "?!") gives no terms (match
 * null): recall then finds nothing, as it does for a prompt that matches nothing.
 */
export function recallTerms(query: string): RecallTerms {
  const normal = query.normalize("NFKC");
  const said = [...new Set(normal.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const partOf = partsOf(normal, said);
  const all = [...new Set([...camelParts(normal).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [], ...[...partOf.keys()].filter((p) => /^\d/.test(p) || GLUED.test(partOf.get(p)!))])];
  const joined = joinedNames(normal.toLowerCase());
  const words = [...all.filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !CONTRACTION_STEMS.has(w)), ...joined.keys()].slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return { words, strong: [], concepts: [], match: null, phrases: [] };
  const concepts = queryConcepts(query.slice(0, CONCEPTS_FROM_CHARS)).filter((c) => c.from.some((w) => words.includes(w)));
  const named = new Set(concepts.flatMap((c) => c.from));
  // a part of a longer word is not one more strong word: "GitHub" is one word said, not three
  const parts = new Map([...partOf].filter(([p]) => words.includes(p)));
  const long = words.filter((w) => !parts.has(w) && (named.has(w) || joined.has(w) || (w.length >= 3 && !WEAK_WORDS.has(w) && !/^\d{1,2}$/.test(w)) || VERSION_NAME.test(w)));
  // a terse prompt's short word is its subject ("uv", "per IP", "24 hours", "5 MB")
  const strong = long.length <= TERSE_STRONG ? words.filter((w) => long.includes(w) || (!parts.has(w) && shortName(w))) : long;
  // a derived form's base is looked for too ("parseable" -> "parse"): the index stems only inflections
  const bases = words.flatMap((w) => (baseStem(w) === null ? [] : [baseWord(w)]));
  // and its other spelling ("colour" -> "color"): the index stems them apart
  const spellings = new Map(words.flatMap((w) => {
    const v = spellingVariants(w);
    return v.length ? [[w, v] as const] : [];
  }));
  const spelled = [...spellings.values()].flat();
  // (two neighbouring words written as one, "time stamp" -> "timestamp", are not looked for in the
  // index: their terms cost an off-topic prompt's recall 5-9% at 10k; fitOf still finds them)
  const pairs = neighbours(all, words);
  const plainPairs = long.length <= TERSE_STRONG ? namedPairs(normal, pairs) : [];
  const phrases = [...new Set([...bases, ...spelled, ...concepts.flatMap((c) => c.terms)])].filter((t) => !words.includes(t)).slice(0, MAX_CONCEPT_TERMS);
  const asks = asksFor(query.slice(0, CONCEPTS_FROM_CHARS), concepts.some((c) => c.kind));
  const alternatives = choicesBetween(all, strong);
  return {
    words,
    strong,
    concepts,
    phrases,
    match: [matchAny(words), ...phrases.map((p) => `"${p}"`)].join(" OR "),
    ...(asks ? { asks } : {}),
    ...(spellings.size ? { spellings } : {}),
    ...(pairs.length ? { pairs } : {}),
    ...(alternatives ? { alternatives } : {}),
    ...(parts.size ? { parts } : {}),
    ...(plainPairs.length ? { plainPairs } : {}),
    ...(joined.size ? { joined } : {}),
  };
}

/**
 * The choices a query offers ("postmark or sendgrid", "utc or local time"): two strong words either
 * side of "or". A memory that names one of them answers the question as well as one naming both.
 */
function choicesBetween(all: readonly string[], strong: readonly string[]): number {
  let n = 0;
  for (let i = 1; i + 1 < all.length; i++) if (all[i] === "or" && strong.includes(all[i - 1]!) && strong.includes(all[i + 1]!)) n++;
  return n;
}

/** Two words make one only when each has this many letters ("in" + "put" is no "input"). */
const PART_FROM = 3;

/** The endings a word written from two is looked up with ("timestamps", "ratelimiter"). */
const JOINED_ENDINGS = ["", "s", "er", "ers"];

/** A word written from two in the forms looked up: with JOINED_ENDINGS, and without a plural's "s" ("post mortems": "postmortem"). */
function joinedForms(ab: string): string[] {
  const forms = JOINED_ENDINGS.map((e) => ab + e);
  if (ab.endsWith("s")) forms.push(ab.slice(0, -1));
  return forms;
}

/** Neighbouring words of the query that are both looked for, with what they make as one word. */
function neighbours(all: readonly string[], words: readonly string[]): (readonly [string, string, readonly string[]])[] {
  const out: (readonly [string, string, readonly string[]])[] = [];
  for (let i = 1; i < all.length; i++) {
    const a = all[i - 1]!;
    const b = all[i]!;
    if (a.length >= PART_FROM && b.length >= PART_FROM && words.includes(a) && words.includes(b)) out.push([a, b, joinedForms(a + b)]);
  }
  return out;
}

/**
 * Whether a prompt says enough to recall for, unasked (a hook on every prompt): a concept, or two
 * strong words. "yes, go on" or "continue" does not; "fix the flaky checkout test" does.
 */
export function substantive(terms: RecallTerms): boolean {
  return terms.concepts.length > 0 || terms.strong.length >= 2;
}

/** Concepts are looked for in this much of a prompt. */
const CONCEPTS_FROM_CHARS = 2_000;
/** At most this many phrases of concepts join the words in the FTS5 expression. */
const MAX_CONCEPT_TERMS = 200;

/** A query word found in a memory as a prefix of one of its words only when it has this many letters. */
export const PREFIX_FROM = 5;

/** The share of a query a concept must cover when it is the only thing found. */
export const CONCEPT_ALONE = 0.3;

/** How a memory fits a query: the weighted share of the query found, and whether it passes the relevance floor. */
export interface Fit {
  /** Strong words weigh 1, weak 0.5; a word counts as found when a concept it names is. 0..1. */
  covered: number;
  /** The memory shares something meaningful with the query (see fitOf). */
  passes: boolean;
  /** The query's strong words this memory holds (by word, stem, prefix or a concept). */
  strongFound: string[];
  /** All the query's words this memory holds. */
  found: ReadonlySet<string>;
  /** The query asks for a quantity (RecallTerms.asks) and the memory states one. */
  answered: boolean;
  /** A concept of the query carries the pass (not the strong words alone). */
  byConcept: boolean;
}

/**
 * How a memory fits a query. A word is found as a word, by stem (FTS5's porter), or, with 5+
 * letters, as the start of a longer word ("postgres" in "postgresql"; "log" is not found in
 * "login", nor "work" in "workflow"). The relevance floor: a concept of the query found, or two
 * of its strong words (its only one, when it has one): one word shared by chance with a long
 * prompt ("a card for my mom's birthday" and "card data never touches our servers") is not enough.
 */
export function fitOf(terms: RecallTerms, m: MemoryTerms): Fit {
  const found = new Set<string>();
  const prefixed: string[] = [];
  for (const f of wordFormsOf(terms)) {
    const q = f.word;
    if (m.words.has(q) || m.stems.has(f.stem)) found.add(q);
    // derived forms: "parseable" finds "parse", "scheduler" finds "schedule"; other spellings: "colour" finds "color"
    else if ((f.base !== null && m.stems.has(f.base)) || f.irregular.some((x) => m.words.has(x)) || otherSpelling(terms, q, m)) found.add(q);
    else if (f.prefix) prefixed.push(q);
  }
  if (prefixed.length) {
    // not found as a word: any word it starts is longer. Added in the order of the words they
    // start (as going through the words adds them): rareCoverage sums over found in its order
    const where = m.words.whereWordStarts;
    if (where) {
      const at = prefixed.map((q) => ({ q, at: where.call(m.words, q) })).filter((x) => x.at >= 0);
      for (const x of at.sort((a, b) => a.at - b.at)) found.add(x.q);
    } else for (const w of m.words) for (const q of prefixed) if (w.length > q.length && w.startsWith(q)) found.add(q);
  }
  // two words of the query the memory writes as one ("rate limit": "ratelimit", "ratelimiter"): looked
  // up with the endings of inflection, not by prefix (a pass over the memory's words for each query
  // made fitOf 1.1-1.4x slower)
  for (const [a, b, forms] of terms.pairs ?? []) {
    if (found.has(a) && found.has(b)) continue;
    if (forms.some((f) => m.words.has(f))) {
      found.add(a);
      found.add(b);
    }
  }
  for (const [name, chars] of terms.joined ?? []) if (chars.every((x) => m.words.has(x))) found.add(name);
  let concept = false;
  for (const c of terms.concepts) {
    if (!holdsConcept(m, c)) continue;
    // a thesaurus link between words (core/dev-thesaurus.ts) finds the words it stands for, but
    // carries no match alone, as a product's names do (its kinds): a weaker link (branch recall32:
    // as good on the readable sets without that)
    if (!c.linkOnly || c.kind) concept = true;
    for (const w of c.from) found.add(w);
  }
  // a part of a longer word found is that word found ("RFC 9457" for "rfc9457"); it counts once, as the word
  const parts = terms.parts;
  if (parts) for (const [p, whole] of parts) if (found.has(p)) found.add(whole);
  const strong = new Set(terms.strong);
  let weight = 0;
  let got = 0;
  const strongFound: string[] = [];
  for (const w of terms.words) {
    if (parts?.has(w)) continue;
    const wt = strong.has(w) ? 1 : 0.5;
    weight += wt;
    if (!found.has(w)) continue;
    got += wt;
    if (strong.has(w)) strongFound.push(w);
  }
  // a question for a quantity ("how long...") is answered by a memory that states one: it counts as
  // one more word of the query found (floorOf lets it carry a one-word match in the store's language)
  const answered =
    terms.asks === "choice"
      ? terms.concepts.some((c) => c.kind && c.names.some((n) => m.entities.has(n)))
      : terms.asks !== undefined && answers(m.words, terms.asks, terms.words);
  if (terms.asks !== undefined) weight += 1;
  if (answered) got += 1;
  const covered = weight ? got / weight : 0;
  // a terse prompt's two neighbouring plain words written as a name ("Better Stack"), both held by
  // the memory: they count as one strong word found
  for (const [a, b] of terms.plainPairs ?? []) {
    if (found.has(a) && found.has(b) && !strongFound.includes(a)) {
      strongFound.push(a);
      break;
    }
  }
  const n = strongFound.length;
  // a concept carries a match, unless it is all the query shares with the memory and most of the
  // query is about something else ("how do I reverse a linked list in Python?")
  // each choice the query offers counts its two words as one ("postmark or sendgrid": one is enough)
  const byConcept = n > 0 && concept && (n >= 2 || covered >= CONCEPT_ALONE);
  const passes = byConcept || (n > 0 && n >= Math.min(2, strong.size - (terms.alternatives ?? 0)));
  return { covered, passes, strongFound, found, answered, byConcept };
}

/** What fitOf looks for of one query word: its stem, its base's stem, its irregular forms. */
interface WordForms {
  word: string;
  stem: string;
  base: string | null;
  irregular: readonly string[];
  /** Long enough to be found as the start of a longer word. */
  prefix: boolean;
}

const formsOfTerms = new WeakMap<RecallTerms, readonly WordForms[]>();

/**
 * The forms of the query's words, made once per query: fitOf runs for each of ~50 candidates,
 * and a cold process (no JIT yet) spent most of its time there making the same forms again.
 */
function wordFormsOf(terms: RecallTerms): readonly WordForms[] {
  let forms = formsOfTerms.get(terms);
  if (!forms) {
    forms = terms.words.map((q) => ({ word: q, stem: stem(q), base: baseStem(q), irregular: irregularForms(q), prefix: q.length >= PREFIX_FROM }));
    formsOfTerms.set(terms, forms);
  }
  return forms;
}

/** Whether the memory holds a query word in its other spelling ("colour": "color"). */
function otherSpelling(terms: RecallTerms, q: string, m: MemoryTerms): boolean {
  const vs = terms.spellings?.get(q);
  return vs !== undefined && vs.some((v) => m.words.has(v) || m.stems.has(stem(v)));
}

/**
 * Coverage for ranking, each query word weighted by how rare it is among the candidates (they are
 * every memory that holds any query word, up to a limit, so a word's count among them stands for
 * its document frequency at no extra cost): a memory that holds the query's rare word ("keys" in
 * "how do cache keys look") ranks above one that holds its common ones ("cache", "look"). Strong
 * words weigh twice a weak one, as in fitOf. 0..1 per fit.
 */
export function rareCoverage(terms: RecallTerms, fits: readonly Fit[]): number[] {
  const count = new Map<string, number>();
  for (const f of fits) for (const w of f.found) count.set(w, (count.get(w) ?? 0) + 1);
  const strong = new Set(terms.strong);
  const c = Math.max(1, fits.length);
  const weight = new Map(terms.words.map((w) => [w, (strong.has(w) ? 1 : 0.5) * Math.log(1 + c / (1 + (count.get(w) ?? 0)))]));
  let total = 0;
  for (const x of weight.values()) total += x;
  // the quantity asked for weighs as a strong word, by how rare stating one is among the candidates
  const answeredBy = fits.filter((f) => f.answered).length;
  const answerWeight = terms.asks !== undefined ? Math.log(1 + c / (1 + answeredBy)) : 0;
  total += answerWeight;
  return fits.map((f) => {
    let got = f.answered ? answerWeight : 0;
    for (const w of f.found) got += weight.get(w) ?? 0;
    return total > 0 ? got / total : 0;
  });
}

/**
 * The relevance floor over all of a query's candidates (fitOf's for each, in order), relaxed for
 * a query in the store's own language. When every strong word of the query is held by some
 * candidate (the store speaks of each), a memory that shares one strong word passes too, if that
 * word is one no memory passing fitOf's floor holds: it answers a part of the query the better
 * matches leave open. A paraphrase says what a memory says with other words the store knows ("how
 * are pdfs generated": the store speaks of generating, the memory of rendering PDFs); a prompt
 * about something else brings words no memory holds ("a card for my mom's birthday": no memory
 * speaks of birthdays), so one word shared by chance stays no match. And a memory that shares
 * only what the better matches share adds noise, not an answer. Returns whether each passes.
 */
export function floorOf(terms: RecallTerms, fits: readonly Fit[], everyMatch = false): boolean[] {
  const known = new Set<string>();
  const held = new Set<string>();
  for (const f of fits) {
    for (const w of f.strongFound) {
      known.add(w);
      if (f.passes) held.add(w);
    }
  }
  const inLanguage = terms.strong.length >= 2 && terms.strong.every((w) => known.has(w));
  // a memory that states the quantity asked for ("how long...": a duration) answers with one word
  // (a version is not: a number that counts nothing is in too many memories to carry a match alone)
  const carries = terms.asks !== "version";
  const specific = everyMatch && inLanguage ? specificWords(terms, fits) : null;
  // a match carried by one word alone (a concept: fitOf's CONCEPT_ALONE) when two or more of the
  // query's strong words are in no memory, and the memory holds no other word of the query: the
  // prompt is about something else ("flaky skin in winter", "garden hose leak"). Only when the
  // candidates are every match (else a word can be in the store and not among them)
  const unknown = terms.strong.length - known.size;
  const alone = (f: Fit) => everyMatch && unknown >= UNKNOWN_AROUND_ONE && f.strongFound.length === 1 && f.found.size === 1 && !terms.alternatives;
  return fits.map((f) => (f.passes && !alone(f)) || (inLanguage && ((carries && f.answered) || f.strongFound.some((w) => !held.has(w) || specific?.has(w)))));
}

/**
 * Which candidates are shown, given which pass the relevance floor (floorOf) and, for a prompt
 * none passes, which the query gate lets through (core/recall-gate.ts tradeWordMatches): none when
 * neither has one (the prompt fits nothing in the store), else those and those sharing at least
 * one strong word (or a concept) with the query. The latter rank after all the others (recall
 * sorts by tier), so they fill the page without moving a better match (branch recallgate: ranked
 * among them, they lowered MRR on four sets). Returns the tier of each: 0 passes, 1 shown after,
 * null not shown.
 */
export function shownTiers(passes: readonly boolean[], fits: readonly Fit[], opened: () => readonly boolean[]): (0 | 1 | null)[] {
  const first = passes.some(Boolean) ? passes : opened();
  if (!first.some(Boolean)) return fits.map(() => null);
  return fits.map((f, i) => (first[i] ? 0 : f.strongFound.length > 0 ? 1 : null));
}

/** A query with this many strong words no memory holds is about something else, where one word alone matches. */
export const UNKNOWN_AROUND_ONE = 2;

/** A word this few memories hold is specific enough to carry a short query's match alone, */
export const SPECIFIC_HOLDERS = 6;
/** ...in a query of at most this many strong words (one of them is a fair share of it). */
export const SPECIFIC_QUERY_WORDS = 4;

/**
 * The strong words of a short query in the store's language that carry a match alone even where
 * better matches hold them too (branch recallfloor11): "kafka consumers falling behind by hours"
 * shares only "consumers" with "Consumer lag on the order events topic grew...". Specific by the store's own count: held by at most
 * SPECIFIC_HOLDERS memories, counted over the candidates, so only when they are every match
 * (floorOf's everyMatch). A word many memories hold ("test", "cache", "dashboard") does not, and a
 * query with a word no memory holds does not (an off-topic prompt brings one: "swimming pool ph
 * levels"). Such memories rank under those sharing more (coverage leads relevance).
 */
function specificWords(terms: RecallTerms, fits: readonly Fit[]): ReadonlySet<string> {
  if (terms.strong.length > SPECIFIC_QUERY_WORDS) return new Set();
  const holders = new Map<string, number>();
  for (const f of fits) for (const w of f.strongFound) holders.set(w, (holders.get(w) ?? 0) + 1);
  return new Set([...holders].flatMap(([w, c]) => (c <= SPECIFIC_HOLDERS ? [w] : [])));
}

/** The FTS5 expression for some of the words (any may match); 5+ letters also as a prefix. */
export function matchAny(words: readonly string[]): string {
  return words.map((w) => (w.length >= PREFIX_FROM ? `"${w}"*` : `"${w}"`)).join(" OR ");
}

/** The FTS5 expression for all of the words. */
export function matchAll(words: readonly string[]): string {
  return words.map((w) => (w.length >= PREFIX_FROM ? `"${w}"*` : `"${w}"`)).join(" AND ");
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

/**
 * Text relevance: BM25 relative to the best match (0.35), and the share of query words found (0.65).
 * Coverage leads: BM25 over an expression with a concept's many phrases counts one query word once
 * per phrase a memory holds ("helm" as helm, charts, kubernetes), so it over-rates such memories.
 */
export function relevanceOf(bm25: number, bestBm25: number, covered: number): number {
  return 0.35 * (bestBm25 > 0 ? bm25 / bestBm25 : 0) + 0.65 * covered;
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

/**
 * Weights of the blend: relevance leads; use and freshness reorder matches of like relevance (within
 * 10%). They weighed 0.4 before (0.25 + 0.15): a fresh memory 10% less relevant then outranked the
 * answer ("what is the mobile app written in": the newest mobile memory first), and what freshness
 * was for, a newer statement before the one it replaces, supersededAmong does by itself.
 */
export const BLEND = { base: 0.9, decay: 0.06, recency: 0.04, recencyHalfLifeDays: 30 } as const;

/**
 * score = relevance · (0.9 + 0.06 · decay/(decay+1) + 0.04 · recency). An exact old match
 * (relevance 1) still scores 0.9, above a fresh memory 10% less relevant (at most 0.9); of two
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
 * Whether two word sets are near-duplicates: similarity(a, b) > NEAR_DUPLICATE. The shared words
 * are at most the smaller set, so sets whose sizes differ by more than the threshold allows are
 * not, without comparing their words (most pairs of candidates). Then the smaller set's words are
 * looked up until so many are missing from the other that even all the rest shared could not
 * reach the threshold (at ~45 words each, the fourth missing word): two memories that are not
 * near-duplicates are told apart in a few lookups. (A 128-bit sketch of each set did this before;
 * making the sketches was most of a cold hook's 2 ms of near-duplicate checks.)
 */
export function nearDuplicates(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (large.size === 0) return similarity(a, b) > NEAR_DUPLICATE;
  if (small.size / large.size <= NEAR_DUPLICATE) return false;
  const sizes = a.size + b.size;
  let shared = 0;
  let missing = 0;
  for (const w of small) {
    if (large.has(w)) shared++;
    else {
      // x / (sizes - x) grows with x: at most this many shared, the threshold is out of reach
      const most = small.size - ++missing;
      if (most / (sizes - most) <= NEAR_DUPLICATE) return false;
    }
  }
  // as similarity() computes it, to the last bit
  return shared / (sizes - shared) > NEAR_DUPLICATE;
}

/**
 * Group items (best first) so each near-duplicate joins the first, better item it resembles (or,
 * with `sameFact`, states the same fact in other words).
 * Returns the kept items with the ids folded into each; with `limit`, the first `limit` of them
 * (an item that resembles none of those starts a group past the limit, which is not returned,
 * and later items are not compared with it: the first group they resemble is among the first
 * `limit` or is not returned either).
 */
export function collapseNearDuplicates<T>(items: readonly T[], wordsOf: (t: T) => ReadonlySet<string>, idOf: (t: T) => string, limit = Infinity, sameFact?: (later: T, kept: T) => boolean): { item: T; collapsed: string[] }[] {
  const kept: { item: T; words: ReadonlySet<string>; collapsed: string[] }[] = [];
  for (const item of items) {
    const words = wordsOf(item);
    const twin = kept.find((k) => nearDuplicates(words, k.words) || (sameFact?.(item, k.item) ?? false));
    if (twin) twin.collapsed.push(idOf(item));
    else if (kept.length < limit) kept.push({ item, words, collapsed: [] });
  }
  return kept.map(({ item, collapsed }) => ({ item, collapsed }));
}

/**
 * A change that names what it replaces: "switched from X", "moved off X", "replacing X",
 * "instead of X", "dropped X", "from X to Y". X is the words after it up to the first small word.
 */
export const REPLACES =
  /\b(?:(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|went|chang(?:ed|ing)|port(?:ed|ing)|upgrad(?:ed|ing)) (?:away )?(?:from|off)|replac(?:e|es|ed|ing)|instead of|in place of|rather than|no more|swap(?:s|ped|ping)?|dropp(?:ed|ing)|no longer (?:use|uses|using|run|runs on)|from(?= \S+(?: \S+)? to\b))\s+(?:(?:the|our|a|an) )?([^,;:!?()]{1,80})/giu;
/** Kinds of memory that state how things are (a problem does not replace a decision). */
const STATEMENTS = new Set(["decision", "fact", "preference", "pattern"]);

export interface Statement {
  id: string;
  type: string;
  created_at: number;
  content: string;
  terms: { stems: StemSet };
}

/**
 * Words one of which every match of REPLACES holds (each alternative names one; read off the
 * pattern, tests/core/replaces-hints.test.ts): a text holding none is not searched. A cold hook
 * ran the pattern on every candidate's text, most of which replace nothing.
 */
export const REPLACES_HINTS: readonly string[] = ["from", "off", "replac", "instead of", "in place of", "rather than", "no more", "swap", "dropp", "no longer"];

/** Whether a text may hold a match of REPLACES: one of its hints, or a long s (ſ), which the pattern's /iu folds to "s". */
export function mayReplace(content: string): boolean {
  const lower = content.toLowerCase();
  return REPLACES_HINTS.some((h) => lower.includes(h)) || lower.includes("ſ");
}

/** The strong words a memory says it replaces (lower case, at most 3 each time). */
export function replacedWords(content: string): string[] {
  const out: string[] = [];
  if (!mayReplace(content)) return out;
  for (const m of content.matchAll(REPLACES)) {
    const words: string[] = [];
    for (const w of m[1]!.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (STOP_WORDS.has(w) || words.length === 3) break;
      if (!WEAK_WORDS.has(w) && w.length >= 3 && !/^\d+$/.test(w)) words.push(w);
    }
    if (words.length) out.push(words.join(" "));
  }
  return out;
}

/**
 * What a statement says before its first number, and that number: "The free trial is 30 days"
 * -> ["the free trial is", "30"]. null without a number, or with fewer than two meaningful words
 * before it or none of them strong (too little to be the same subject).
 */
export function leadAndNumber(content: string): [string, string] | null {
  const lower = content.toLowerCase();
  // the first number found natively: only the words before it are split (recall-answer.ts firstNumber)
  const first = firstNumber(lower);
  if (!first) return null;
  const lead = lower.slice(0, first.at).match(/[\p{L}\p{N}]+/gu) ?? [];
  // "the services run on node 18": a general word or two ("services", "run") with one specific one
  // still names one subject, and the same words before another number say it changed
  const said = lead.filter((w) => !STOP_WORDS.has(w));
  if (said.length < 2 || !said.some((w) => !WEAK_WORDS.has(w))) return null;
  return [lead.join(" "), first.word];
}

/** What a statement's text says of what it replaces: replacedWords and leadAndNumber of it. */
interface Said {
  replaces: string[];
  lead: [string, string] | null;
}

/** Texts whose Said a process keeps (a server ranks the same memories on many prompts). */
const SAID_KEPT = 4096;
const said = new Map<string, Said>();

/** Said of a text, kept by the text itself (a changed memory is a new text); the oldest go first. */
function saidOf(content: string): Said {
  const had = said.get(content);
  if (had) {
    said.delete(content);
    said.set(content, had);
    return had;
  }
  const made: Said = { replaces: replacedWords(content), lead: leadAndNumber(content) };
  if (said.size >= SAID_KEPT) said.delete(said.keys().next().value!);
  said.set(content, made);
  return made;
}

/**
 * Which of these memories a newer one among them replaces: a newer statement that names what it
 * replaces ("we moved from Sidekiq to BullMQ"), and an older statement that holds those words
 * (all of them, or two when more were named); or a newer statement that says the same words up
 * to a number and another number there ("The free trial is 14 days" after "The free trial is 30
 * days": the figure changed). Returns older id -> newer id.
 */
export function supersededAmong(items: readonly Statement[]): Map<string, string> {
  const out = new Map<string, string>();
  const olderThan = (o: Statement, n: Statement) => o.created_at < n.created_at || (o.created_at === n.created_at && o.id < n.id);
  // statements by what they say before their number: only those with the same lead are compared
  // (every pair was compared before, most of this function's time), in the items' order
  const byLead = new Map<string, Statement[]>();
  for (const s of items) {
    const lead = STATEMENTS.has(s.type) ? saidOf(s.content).lead : null;
    if (lead) byLead.set(lead[0], [...(byLead.get(lead[0]) ?? []), s]);
  }
  for (const n of items) {
    if (!STATEMENTS.has(n.type)) continue;
    const { lead, replaces } = saidOf(n.content);
    if (lead) {
      for (const o of byLead.get(lead[0])!) {
        if (o === n || !olderThan(o, n) || out.has(o.id)) continue;
        if (saidOf(o.content).lead![1] !== lead[1]) out.set(o.id, n.id);
      }
    }
    for (const phrase of replaces) {
      const named = phrase.split(" ").map(stem);
      const need = Math.min(named.length, 2);
      for (const o of items) {
        // older: created earlier, or in the same second with an earlier id (UUIDv7 ids follow time)
        if (o === n || !olderThan(o, n) || !STATEMENTS.has(o.type) || out.has(o.id)) continue;
        if (named.filter((w) => o.terms.stems.has(w)).length < need) continue;
        // the older one saying it replaced the same thing is another change, not the old state
        if (saidOf(o.content).replaces.includes(phrase)) continue;
        out.set(o.id, n.id);
      }
    }
  }
  return out;
}

/** The items with each replaced one moved to just after the one replacing it, when it came first. */
export function newerFirst<T>(items: readonly T[], idOf: (t: T) => string, replaced: ReadonlyMap<string, string>): T[] {
  if (replaced.size === 0) return [...items];
  const present = new Set(items.map(idOf));
  const waiting = new Map<string, T[]>();
  const out: T[] = [];
  const emit = (t: T) => {
    out.push(t);
    const after = waiting.get(idOf(t));
    if (after) for (const a of after) emit(a);
  };
  for (const t of items) {
    const newer = replaced.get(idOf(t));
    if (newer && present.has(newer) && !out.some((o) => idOf(o) === newer)) waiting.set(newer, [...(waiting.get(newer) ?? []), t]);
    else emit(t);
  }
  return out;
}
