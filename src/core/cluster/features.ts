import { hashString } from "./hash.ts";

// What consolidation compares: each memory reduced to three sets of interned integers (content
// words, tags, entities) and the words it negates. Pure: the same memory always gives the same
// features, whatever else the store holds, so a pair's similarity never depends on a third memory.

/** Words too common to say what a note is about. Negations are not here: they are a feature. */
const STOP = new Set(
  (
    "a an the and or but nor so yet of in on at to for from by with without into onto over under about above below " +
    "as is are was were be been being am do does did doing done have has had having will would shall should can could may might must " +
    "i me my we us our you your he him his she her it its they them their this that these those there here " +
    "what which who whom whose when where why how all any both each few more most other some such only own same than too very " +
    "just also then once again further up down out off if because while until after before during between through " +
    "s t d ll m re ve e.g i.e etc"
  ).split(" "),
);

/**
 * Words that flip what follows: "use X" and "do not use X" are not duplicates. The next content
 * word is marked negated ("!use"), a different word from the plain one.
 */
const NEGATIONS = new Set(["not", "no", "never", "dont", "don't", "doesnt", "doesn't", "isnt", "isn't", "cannot", "can't", "wont", "won't", "avoid", "without"]);

export interface Features {
  /** Sorted, distinct word ids of the content. */
  words: Int32Array;
  tags: Int32Array;
  entities: Int32Array;
  /** Sorted ids of the plain words this memory negates ("do not use" -> the id of "use"). */
  negates: Int32Array;
}

/** Lowercased words of a text, apostrophes kept inside words (don't), everything else a break. */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  // most notes are ASCII: a plain character class is several times faster than Unicode properties
  if (ASCII.test(lower)) return lower.match(/[a-z0-9]+(?:'[a-z]+)*/g) ?? [];
  return lower.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
}

const ASCII = /^[\x00-\x7f]*$/;
const APOSTROPHE = 39;
/** [a-z0-9] */
const isWordCode = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
/** [a-z] */
const isLetterCode = (c: number) => c >= 97 && c <= 122;

/** A light stemmer: plural and common verb endings, so "endpoints" meets "endpoint". */
export function stem(w: string): string {
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) return w.slice(0, -1);
  return w;
}

/** A negation reaches this many words ahead for a content word to mark ("not really use"). */
const NEGATION_REACH = 3;

/** What a word is to contentTerms: a negation, a word that carries no meaning, or the term it gives. */
const NEGATION = 0;
const SKIP = 1;
type Token = typeof NEGATION | typeof SKIP | string;

function tokenOf(raw: string): Token {
  const w = raw.includes("’") ? raw.replace(/’/g, "'") : raw;
  if (NEGATIONS.has(w)) return NEGATION;
  if (STOP.has(w) || (w.length < 2 && !(w >= "0" && w <= "9"))) return SKIP;
  return stem(w.includes("'") ? w.replace(/'/g, "") : w);
}

/**
 * The content words that carry meaning, stemmed, in order (with repeats); a word after a negation
 * is marked "!" (and listed in `negated`, plain).
 */
export function contentTerms(text: string): { terms: string[]; negated: string[] } {
  const terms: string[] = [];
  const negated: string[] = [];
  walkTerms<string>((visit) => {
    for (const w of words(text)) visit(tokenOf(w));
  }, (t, isNegated) => {
    if (isNegated) {
      negated.push(t);
      terms.push(`!${t}`);
    } else terms.push(t);
  });
  return { terms, negated };
}

/**
 * The negation rule, once: each token, told whether a negation word stands within
 * NEGATION_REACH skipped words before it (the first term after a negation takes it).
 */
function walkTerms<T>(eachToken: (visit: (t: typeof NEGATION | typeof SKIP | T) => void) => void, onTerm: (t: T, negated: boolean) => void): void {
  let reach = 0;
  eachToken((t) => {
    if (t === NEGATION) {
      reach = NEGATION_REACH;
      return;
    }
    if (t === SKIP) {
      if (reach) reach--;
      return;
    }
    onTerm(t as T, reach > 0);
    reach = 0;
  });
}

/**
 * Strings to small integers, so sets compare as sorted integer arrays; one interner per kind of
 * label, so a tag and a word of the same spelling differ. The integers depend on the order strings
 * arrive in; anything that must be stable (MinHash) uses `hashes`, a seeded hash of the string.
 */
export class Interner {
  private readonly ids = new Map<string, number>();
  constructor(
    readonly hashes: number[] = [],
    private readonly seed = 0x811c9dc5,
  ) {}
  id(s: string): number {
    let n = this.ids.get(s);
    if (n === undefined) {
      n = this.hashes.length;
      this.ids.set(s, n);
      this.hashes.push(hashString(s, this.seed));
    }
    return n;
  }
}

/** A word of content as featuresOf takes it: the term's word id, and that of its negated form (-1: not made yet). */
interface Term {
  term: string;
  id: number;
  negated: number;
}

/** Interners for words, tags and entities sharing one id space (and one hash table). */
export class Vocabulary {
  readonly hashes: number[] = [];
  readonly words = new Interner(this.hashes, 0x811c9dc5);
  readonly tags = new Interner(this.hashes, 0x5bd1e995);
  readonly entities = new Interner(this.hashes, 0x1b873593);
  /**
   * Each word met, as tokenOf reads it and interned: a store says the same words over and over,
   * so each is classified, stemmed and looked up once, not at every occurrence (making features
   * was the largest part of consolidate's time).
   */
  private readonly seen = new Map<string, typeof NEGATION | typeof SKIP | Term>();

  token(raw: string): typeof NEGATION | typeof SKIP | Term {
    let t = this.seen.get(raw);
    if (t === undefined) {
      const k = tokenOf(raw);
      t = typeof k === "string" ? { term: k, id: this.words.id(k), negated: -1 } : k;
      this.seen.set(raw, t);
    }
    return t;
  }

  /**
   * Each token of a text, as words() and token() give them. An ASCII text is read in place: each
   * word is hashed as it is scanned and found in a table of the words met (no substring, no regex
   * match); a word met for the first time goes through token(). In order, one at a time: what
   * `visit` interns comes between the words, as it would after words().
   */
  eachToken(text: string, visit: (t: typeof NEGATION | typeof SKIP | Term) => void): void {
    const lower = text.toLowerCase();
    if (!ASCII.test(lower)) {
      for (const w of words(text)) visit(this.token(w));
      return;
    }
    // /[a-z0-9]+(?:'[a-z]+)*/g by hand
    const n = lower.length;
    let i = 0;
    while (i < n) {
      if (!isWordCode(lower.charCodeAt(i))) {
        i++;
        continue;
      }
      const start = i;
      let h = 0x811c9dc5;
      for (let c: number; i < n && isWordCode((c = lower.charCodeAt(i))); i++) h = Math.imul(h ^ c, 0x01000193);
      while (i + 1 < n && lower.charCodeAt(i) === APOSTROPHE && isLetterCode(lower.charCodeAt(i + 1))) {
        h = Math.imul(h ^ APOSTROPHE, 0x01000193);
        i++;
        for (let c: number; i < n && isLetterCode((c = lower.charCodeAt(i))); i++) h = Math.imul(h ^ c, 0x01000193);
      }
      visit(this.tokenAt(lower, start, i, h | 0));
    }
  }

  /** Open addressing over the raw words met (tokensOf): slot -> index in rawWords, -1 empty. */
  private slots = new Int32Array(1024).fill(-1);
  private readonly rawWords: string[] = [];
  private readonly rawHashes: number[] = [];
  private readonly rawTokens: (typeof NEGATION | typeof SKIP | Term)[] = [];

  private tokenAt(text: string, start: number, end: number, h: number): typeof NEGATION | typeof SKIP | Term {
    const len = end - start;
    const mask = this.slots.length - 1;
    let slot = h & mask;
    for (let at = this.slots[slot]!; at >= 0; at = this.slots[slot]!) {
      const w = this.rawWords[at]!;
      if (this.rawHashes[at] === h && w.length === len && text.startsWith(w, start)) return this.rawTokens[at]!;
      slot = (slot + 1) & mask;
    }
    const raw = text.slice(start, end);
    const t = this.token(raw);
    this.slots[slot] = this.rawWords.length;
    this.rawWords.push(raw);
    this.rawHashes.push(h);
    this.rawTokens.push(t);
    // at most half full: probes stay short
    if (this.rawWords.length * 2 > this.slots.length) {
      const grown = new Int32Array(this.slots.length * 2).fill(-1);
      const m = grown.length - 1;
      for (let k = 0; k < this.rawWords.length; k++) {
        let s = this.rawHashes[k]! & m;
        while (grown[s]! >= 0) s = (s + 1) & m;
        grown[s] = k;
      }
      this.slots = grown;
    }
    return t;
  }

  negatedId(t: Term): number {
    if (t.negated < 0) t.negated = this.words.id(`!${t.term}`);
    return t.negated;
  }
}

function sortedSet(xs: number[]): Int32Array {
  const a = Int32Array.from(xs);
  a.sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) a[n++] = a[i]!;
  // a copy, not a view: a view over a larger buffer keeps that buffer and a separate ArrayBuffer
  // object alive (JSC), ~3 KB a memory, 160 MB retained at 50k
  return n === a.length ? a : a.slice(0, n);
}

/** The features of a memory: contentTerms' terms and negated words as word ids (through the vocabulary's memo). */
export function featuresOf(m: { content: string; tags: readonly string[]; entities: readonly string[] }, vocab: Vocabulary): Features {
  const terms: number[] = [];
  const negated: number[] = [];
  walkTerms<Term>((visit) => vocab.eachToken(m.content, visit), (t, isNegated) => {
    if (isNegated) {
      negated.push(t.id);
      terms.push(vocab.negatedId(t));
    } else terms.push(t.id);
  });
  return {
    words: sortedSet(terms),
    tags: sortedSet(m.tags.map((t) => vocab.tags.id(t))),
    entities: sortedSet(m.entities.map((e) => vocab.entities.id(e.toLowerCase()))),
    negates: sortedSet(negated),
  };
}
