import { ALIAS_KEYS, ALIAS_LONGEST, ALIAS_NAMES, BUILT_FROM } from "./alias-index.gen.ts";
import { vocabulary, type VocabAlias, type VocabEntry, vocabularyEntryAt, vocabularySource } from "./vocabulary.ts";

// The vocabulary's aliases by key (the alias as units() splits it, lowercase, joined by spaces),
// and its entries by canonical name. Every capture and every hook's recall looks words up here.
// Built alias by alias it cost ~2 ms of each cold hook (a lowercasing, a regex test, a split and a
// Map entry per alias, run before the JIT warms up); alias-index.gen.ts holds the same index made
// by scripts/gen-alias-index.ts (and by every build), read with one JSON.parse, and only the
// entries a lookup finds are parsed. It is used only when made from the vocabulary as it is now
// (the table's text, compared whole): an edited table whose index was not made again is indexed
// here alias by alias, as before, so a lookup always answers from the current table.

export const MAX_ALIAS_UNITS = 5;

export interface AliasHit {
  entry: VocabEntry;
  alias: VocabAlias;
  length: number;
}

/** Lookups by alias key and by canonical name. */
export interface AliasLookup {
  hit(key: string): AliasHit | undefined;
  named(name: string): VocabEntry | undefined;
  /** The most units a key starting with `word` has: 1 unless a key of more units starts with it. */
  longestFrom(word: string): number;
}

/**
 * As JSON texts: per key, entry * ENTRY + alias * ALIAS + units (the entry's position in the table,
 * the alias's in its entry), the keys in BUCKETS texts by their first word (bucketOf); per name,
 * the entry's position. Numbers: JSON.parse makes no array each. Only the buckets a text's words
 * fall in are parsed: one parse of the whole index was ~0.6 ms of every cold hook (a compiled
 * probe), which looks up the ~20 words of one prompt.
 */
export interface Prebuilt {
  keys: readonly string[];
  names: string;
  /** Each first word of a key of two units or more, with the most units of such a key. */
  longest: string;
}
export const BUCKETS = 64;

/** The bucket of a key: a hash of its first word (the longer keys a text's word starts fall in the same one). */
export function bucketOf(key: string): number {
  const end = key.indexOf(" ");
  const n = end < 0 ? key.length : end;
  let h = 0;
  for (let i = 0; i < n; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return (h >>> 0) % BUCKETS;
}

const ENTRY = 4096;
const ALIAS = 8;

let lookup: AliasLookup | undefined;

/**
 * An alias as the units it matches: the vocabulary's aliases are plain words, so splitting at
 * spaces, hyphens and slashes gives what units() would, without a regex pass per alias.
 */
export function aliasKey(text: string): string[] {
  const lower = text.toLowerCase();
  // most aliases are one word: no regex split for them
  if (!/[\s/-]/.test(lower)) return lower ? [lower] : [];
  return lower.split(/[\s/-]+/).filter(Boolean);
}

function current(): AliasLookup {
  return (lookup ??= lookupFor(vocabularySource(), BUILT_FROM, { keys: ALIAS_KEYS, names: ALIAS_NAMES, longest: ALIAS_LONGEST }));
}

/** The entry and alias a key names (the first alias of the table with that key), if any. */
export function aliasHit(key: string): AliasHit | undefined {
  return current().hit(key);
}

/**
 * The most units a key starting with this word may have (1 unless a longer one does). A text's
 * unit needs looking up as the start of no longer key than this: a cold hook tried every length up
 * to five at every unit, each with its adjacency tests (a pasted log's ~300 units: ~1.2 ms).
 */
export function longestAliasFrom(word: string): number {
  return current().longestFrom(word);
}

/** Each first word of a key of two units or more, with the most units of such a key. */
function longestByFirst(keys: Iterable<[string, number]>): Record<string, number> {
  const out = Object.create(null) as Record<string, number>;
  for (const [k, units] of keys) {
    if (units < 2) continue;
    const first = k.slice(0, k.indexOf(" "));
    if (units > (out[first] ?? 0)) out[first] = units;
  }
  return out;
}

/** The first entry of the table with this canonical name. */
export function entryNamed(name: string): VocabEntry | undefined {
  return current().named(name);
}

/**
 * Lookups in the prebuilt index `json` when it was made from `source` (the table as it is now:
 * `builtFrom` equal to it), else in the index made here alias by alias.
 */
export function lookupFor(source: string, builtFrom: string, prebuilt: Prebuilt): AliasLookup {
  if (source !== builtFrom) {
    const index = buildIndex();
    let longest: Record<string, number> | undefined;
    return {
      hit: (key) => index.get(key),
      named: (name) => vocabulary().find((e) => e.name === name),
      longestFrom: (word) => (longest ??= longestByFirst([...index].map(([k, h]) => [k, h.length])))[word] ?? 1,
    };
  }
  const parsed: (Record<string, number> | undefined)[] = [];
  let longest: Record<string, number> | undefined;
  let names: Record<string, number> | undefined;
  return {
    longestFrom(word) {
      longest ??= JSON.parse(prebuilt.longest) as Record<string, number>;
      return Object.hasOwn(longest, word) ? longest[word]! : 1;
    },
    // nothing kept per key: a server looks up every word of every prompt
    hit(key) {
      const b = prebuilt.keys.length === BUCKETS ? bucketOf(key) : -1;
      const keys = b < 0 ? undefined : (parsed[b] ??= JSON.parse(prebuilt.keys[b]!) as Record<string, number>);
      const at = keys && Object.hasOwn(keys, key) ? keys[key]! : -1;
      const entry = at < 0 ? undefined : vocabularyEntryAt(Math.floor(at / ENTRY));
      return entry ? { entry, alias: entry.aliases[Math.floor((at % ENTRY) / ALIAS)]!, length: at % ALIAS } : undefined;
    },
    named(name) {
      names ??= JSON.parse(prebuilt.names) as Record<string, number>;
      return Object.hasOwn(names, name) ? vocabularyEntryAt(names[name]!) : undefined;
    },
  };
}

/** The index made alias by alias: the first alias with a key wins. */
export function buildIndex(): Map<string, AliasHit> {
  const index = new Map<string, AliasHit>();
  for (const entry of vocabulary()) {
    for (const alias of entry.aliases) {
      const key = aliasKey(alias.text);
      if (key.length === 0 || key.length > MAX_ALIAS_UNITS) continue;
      const k = key.join(" ");
      if (!index.has(k)) index.set(k, { entry, alias, length: key.length });
    }
  }
  return index;
}

/** The index as alias-index.gen.ts holds it (JSON texts), made from the vocabulary as it is now. */
export function prebuiltIndex(): Prebuilt {
  const all = vocabulary();
  const keys = Array.from({ length: BUCKETS }, () => Object.create(null) as Record<string, number>);
  const names = Object.create(null) as Record<string, number>;
  for (const [k, h] of buildIndex()) {
    const alias = h.entry.aliases.indexOf(h.alias);
    if (alias >= ENTRY / ALIAS || h.length >= ALIAS) throw new Error(`the alias index cannot hold ${k} (alias ${alias}, ${h.length} units)`);
    keys[bucketOf(k)]![k] = all.indexOf(h.entry) * ENTRY + alias * ALIAS + h.length;
  }
  all.forEach((e, i) => {
    if (!(e.name in names)) names[e.name] = i;
  });
  return { keys: keys.map((b) => JSON.stringify(b)), names: JSON.stringify(names), longest: JSON.stringify(longestByFirst([...buildIndex()].map(([k, h]) => [k, h.length]))) };
}
