import { stemmer } from "stemmer";
import type { Memory } from "./model/memory.ts";
import { STOP_WORDS } from "./stop-words.ts";

// What recall compares a memory by — its words and their stems, its entities, its content's
// meaningful words — made here and only here. The index keeps them per memory (index-db.ts,
// memory_docs.terms), made when the memory is indexed, so a recall in a cold process reads them
// with its candidates instead of splitting and stemming each candidate's text again (most of
// recall's own time in a hook). Pure; loads no vocabulary, so the store can use it on every write.
//
// Change what storedTerms makes (tokens, stems, which text) → raise TERMS_VERSION. Terms of
// another version are not used (recall makes them from the text, as before they were stored),
// so a stale index is slower, never wrong; raise INDEX_VERSION in store/fixed-paths.ts too, with a
// step that calls fillTerms (as 6 → 7 does), so an upgraded index has them again.

/** The version of what storedTerms makes: the first line of the stored text. */
export const TERMS_VERSION = 1;

/** Stems already made (a word's stem never changes): recall stems every word of each candidate. */
const stems = new Map<string, string>();
/** Words whose stems are kept at most; past that the memo starts again (a long-running server). */
const STEMS_KEPT = 100_000;

/** A word's stem as FTS5's porter tokenizer makes it ("retried", "retry" -> "retri"). */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stems.size >= STEMS_KEPT) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** The words of a text as a set (lower case, letters and digits), for comparing memories. */
export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** A text's meaningful words (stop words out): what near-duplicates are compared by. */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of wordSet(text)) if (!STOP_WORDS.has(w)) out.add(w);
  return out;
}

/** Whether any of a memory's words has this stem. */
export interface StemSet {
  has(stem: string): boolean;
}

/** A memory's words: looked up one by one, and gone through (prefixes). A Set is one. */
export interface WordSet extends Iterable<string> {
  has(word: string): boolean;
  /**
   * Where the first word that starts with this one (letters and digits) and is longer is, as a
   * position that grows with the words' order; -1 for none. Without it, the words are gone through.
   */
  whereWordStarts?(prefix: string): number;
}

/** What recall compares a memory by: its words and their stems, its entities. */
export interface MemoryTerms {
  words: WordSet;
  stems: StemSet;
  entities: ReadonlySet<string>;
}

/** MemoryTerms with the content's meaningful words (near-duplicates are compared by them). */
export interface RecallMemoryTerms extends MemoryTerms {
  readonly content: ReadonlySet<string>;
}

/**
 * The stems of a set of words, made only for the words a lookup may concern: a porter stem keeps
 * its word's first letter (every rule rewrites an ending and leaves a stem of one letter at least),
 * so asking for "retri" stems the words that start with "r" alone. For terms made from text (not
 * from the index), where stemming every word would be wasted on a lookup or two.
 */
class LazyStems implements StemSet {
  private readonly letters = new Set<string>();
  private readonly made = new Set<string>();

  constructor(private readonly words: ReadonlySet<string>) {}

  has(s: string): boolean {
    const first = s.charAt(0);
    if (!first) return false;
    if (!this.letters.has(first)) {
      this.letters.add(first);
      for (const w of this.words) if (w.charAt(0) === first) this.made.add(stem(w));
    }
    return this.made.has(s);
  }
}

function textWords(text: string): Set<string> {
  return new Set(text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

function entitySet(entities: readonly string[]): Set<string> {
  return new Set(entities.map((e) => e.toLowerCase()));
}

/** A text's terms (stems made on demand). */
export function memoryTerms(text: string, entities: readonly string[]): MemoryTerms {
  const words = textWords(text);
  return { words, stems: new LazyStems(words), entities: entitySet(entities) };
}

/** The text recall matches a memory on: content, gist, tags and entities (as the full-text index has them). */
export function recallText(m: Pick<Memory, "content" | "gist" | "entities"> & { meta: { tags: readonly string[] } }): string {
  return `${m.content}\n${m.gist ?? ""}\n${m.meta.tags.join(" ")}\n${m.entities.join(" ")}`;
}

const TOKEN = /[\p{L}\p{N}]+/gu;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * A memory's terms as the index keeps them: four lines (TERMS_VERSION; its words, the stem of
 * each, its content's meaningful words; space-separated: a word holds letters and digits only).
 * Words may repeat (lookups do not mind, and near-duplicates make a set of the content words):
 * made for every memory a rebuild indexes, so without a set per line. The content is split once
 * when it is ASCII (NFKC changes nothing there), the usual case: recallText joins its parts with
 * line breaks, which no word crosses, so its words are the content's and then the rest's.
 */
export function storedTerms(m: Pick<Memory, "content" | "gist" | "entities"> & { meta: { tags: readonly string[] } }): string {
  const text = recallText(m);
  const cut = m.content.length;
  const ascii = ASCII.test(m.content);
  const head = ascii ? (m.content.toLowerCase().match(TOKEN) ?? []) : null;
  const words = head ? [...head, ...(text.slice(cut).normalize("NFKC").toLowerCase().match(TOKEN) ?? [])] : (text.normalize("NFKC").toLowerCase().match(TOKEN) ?? []);
  const content = (head ?? m.content.toLowerCase().match(TOKEN) ?? []).filter((w) => !STOP_WORDS.has(w));
  return `${TERMS_VERSION}\n${words.join(" ")}\n${words.map(stem).join(" ")}\n${content.join(" ")}`;
}

/**
 * Words of one stored line, looked up in the text itself (a native search) and split only when
 * gone through: a cold process runs recall's code before the JIT has warmed up, and building a
 * Set of every word, stem and content word of 50 candidates cost more than the lookups it served.
 * A long-running process (serve, mcp) keeps a memory's terms across requests (ops/recall.ts), so
 * one line is looked up many times: past SET_AFTER lookups it becomes a Set, whose lookup does
 * not grow with the line's length.
 */
class StoredWords implements WordSet, StemSet {
  private readonly padded: string;
  private list: string[] | undefined;
  private set: Set<string> | undefined;
  private lookups = 0;

  constructor(private readonly line: string) {
    this.padded = ` ${line} `;
  }

  has(word: string): boolean {
    if (this.set) return this.set.has(word);
    if (++this.lookups > SET_AFTER) {
      this.set = new Set(this.words());
      return this.set.has(word);
    }
    return word !== "" && !word.includes(" ") && this.padded.includes(` ${word} `);
  }

  whereWordStarts(prefix: string): number {
    if (prefix === "" || prefix.includes(" ")) return -1;
    // a native search of the line: words are one space apart, so a match after a space is at a
    // word's start, and the word is longer when no space follows the match
    const at = ` ${prefix}`;
    for (let i = this.padded.indexOf(at); i >= 0; i = this.padded.indexOf(at, i + 1)) if (this.padded[i + at.length] !== " ") return i;
    return -1;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.words().values();
  }

  private words(): string[] {
    return (this.list ??= this.line ? this.line.split(" ") : []);
  }
}

/** Lookups of one stored line before it is made a Set (one recall makes a few dozen at most). */
const SET_AFTER = 64;

const HEAD = `${TERMS_VERSION}\n`;

/** Whether stored terms are of this version (termsFromStored reads them). */
export function storedTermsCurrent(stored: string): boolean {
  return stored.startsWith(HEAD);
}

/** A memory's terms from what storedTerms made (null when the text is not of this version's form). */
export function termsFromStored(stored: string, entities: readonly string[]): RecallMemoryTerms | null {
  if (!stored.startsWith(HEAD)) return null;
  const a = stored.indexOf("\n", HEAD.length);
  const b = a < 0 ? -1 : stored.indexOf("\n", a + 1);
  if (b < 0) return null;
  const contentLine = stored.slice(b + 1);
  let content: ReadonlySet<string> | undefined;
  return {
    words: new StoredWords(stored.slice(HEAD.length, a)),
    stems: new StoredWords(stored.slice(a + 1, b)),
    entities: entitySet(entities),
    // near-duplicates compare sizes and shared words: a Set, made only for those that get that far
    get content() {
      return (content ??= new Set(contentLine ? contentLine.split(" ") : []));
    },
  };
}
