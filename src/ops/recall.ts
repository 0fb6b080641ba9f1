import { type BlockEntry, renderBlock } from "../core/context-block.ts";
import { scoringSettingsFrom } from "../core/decay.ts";
import { short } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { heldByAssociation } from "../core/recall-associated.ts";
import { tradeWordMatches } from "../core/recall-gate.ts";
import { isTrouble } from "../core/capture/cues.ts";
import { leadWeight } from "../core/recall-lead.ts";
import { memoryTerms, recallText, type RecallMemoryTerms, storedTermsCurrent, termsFromStored } from "../core/memory-terms.ts";
import { collapseNearDuplicates, contentWords, fitOf, floorOf, matchAll, rareCoverage, newerFirst, PREFIX_FROM, rank, type RankParts, type RecallTerms, recallTerms, relevanceOf, shownTiers, supersededAmong } from "../core/recall-rank.ts";
import { cleanText } from "../core/redact.ts";
import { namedProject, shownOutside, withinProject } from "../core/recall-scope.ts";
import { restates, type Stated, stemSet } from "../core/recall-restated.ts";
import { isoTime } from "../core/time.ts";
import { beyondChance, type CountUpTo, everyWordHeldWhole, narrowingTerms, reachedByOneWord, wholeWordsAll, wordNarrowing } from "./recall-counts.ts";
import type { MemoryFilter } from "../store/index-db.ts";
import type { Store } from "../store/store.ts";
import { mark } from "../runtime/cold-trace.ts";

// recall: the memories most relevant to a query (a prompt), as plain data and as the block a
// hook injects into an agent's context. Forgiving where search is strict: stop words are left
// out, any word may match, and the concepts the query names (core/recall-concepts.ts: a product
// by any alias, a kind of thing by its products, abbreviations) match too; every match is ranked
// by BM25 in the index. Quiet where search is not: a candidate that shares no concept and too few
// meaningful words with the query is dropped (the relevance floor, core/recall-rank.ts fitOf and floorOf),
// so a prompt about something else gets nothing. The rest are re-ranked by the blend of
// relevance (BM25 and the share of the query found), decay score and recency; a memory a newer
// one replaces comes after it, marked; near-duplicates fold into the best of them; lines are
// added while the budget allows. Recall reads only: it does not count as a use (a hook runs it
// on every prompt).

export const RECALL_DEFAULTS = { budget: 2000, limit: 10 } as const;

/** Matches re-ranked by the blend; BM25 order decides which get that far. */
const CANDIDATES = 50;
/**
 * Matches re-ranked past NARROW_ABOVE matches: the best BM25 scores there lead the blend well
 * enough that half as many lost nothing to rank the rest, and ranking costs ~0.1-0.2 ms a
 * candidate in a cold process (branch recallflat8, recall-quality-scale.ts at 1k / 10k / 50k).
 */
const NARROWED_CANDIDATES = 25;
/**
 * When at least this many memories that pass the filter hold every query word whole ("timeout",
 * not "timeout"*), the candidates are ranked from those alone: the best matches are among them.
 * One knob for both ways recall gets there (they were WHOLE_POOL and WHOLE_AHEAD, both 50):
 * - past NARROW_ABOVE matches (candidates()): not every prefix match is ranked. The index stems
 *   words (porter), so "timeout" holds "timeouts" too; what a prefix adds is longer words
 *   ("connectionpool"). 200 and 50 changed no split's recall@5, MRR or off-topic answered on the
 *   labelled corpus inside the 1k, 10k and 50k bench stores (branch recallflat8); 50 also takes
 *   the long prompt at 50k (~140 hold every word whole).
 * - more matches than CANDIDATES, not narrowed, two or more words and no concept phrases: the
 *   candidates are NARROWED_CANDIDATES of the holders. The rare prompt at 50k ranked 50 of its
 *   234 matches where 1k ranks 6; 64 hold both words. On the labelled corpus inside the 1k bench
 *   store 50 changed no outcome; 25 lost one superseded query; with concept phrases allowed, a
 *   memory found through a concept ("postgres" for "database") was cut (branch recallflat9).
 * At least CANDIDATES either way, so the holders fill what is ranked.
 */
export const WHOLE_HOLDERS = CANDIDATES;
/** Past this many matches, candidates are chosen by the query's less common words only. */
const NARROW_ABOVE = 1000;
/**
 * Chosen that way, by the rarest words and concept phrases whose matches together are at most
 * this many: a bound on what BM25 ranks whatever the store's size. Set on the labelled corpus
 * inside a 50k bench store (scripts/bench-lib/recall-quality-scale.ts): 8,000 kept every held-out
 * split at or above ranking every match; 4,000 lost on one.
 */
const RANKED_AT_MOST = 8000;
/** Words and phrases are counted this far first (recall-counts.ts narrowingTerms): past it only when the choice needs it. */
const PHRASES_PROBED_TO = 2000;
/**
 * Matches are counted up to this many and no further (a common word matches much of the store,
 * and counting every match cost more than ranking the candidates): past it, total is a lower
 * bound, total_exact is false and the block says "more than N more".
 */
export const COUNT_UP_TO = NARROW_ABOVE + 1;
/** A candidate less relevant than this share of the best match is not shown. */
const MIN_RELATIVE_RELEVANCE = 0.15;
/**
 * A memory under the floor that shares one strong word (shown after those that pass) only from
 * this share of the best match: at MIN_RELATIVE_RELEVANCE such memories added 2.3 items (+37% of
 * the block's characters) to an on-topic prompt's page for the same recall; at 0.4, 0.8 (+12%)
 * and one query's MRR lost (new6 0.793 -> 0.791); at 0.5, 0.5 (+8%) and new3 0.867 -> 0.856.
 */
const MIN_RELATIVE_BELOW_FLOOR = 0.4;
/** Characters of one memory's text in the block at most. */
const ITEM_MAX = 300;

/** terms: the memory's recall terms as the index keeps them (null: not kept, made from the text). */
type Hit = { memory: Memory; score: number; terms: string | null };

export interface RecallOptions {
  query: string;
  /** The block's size limit in characters (default 2,000). */
  budget?: number;
  /** At most this many memories (default 10). */
  limit?: number;
  /**
   * Only this project's memories and those of no project; null: a prompt asked outside any
   * project (a hook's session outside a repository): a prompt that names a project is asked of it
   * (core/recall-scope.ts namedProject); else memories of no project, and another project's only
   * when the memory matches strongly (shownOutside);
   * absent: every project's, alike (the CLI's recall without --project).
   */
  project?: string | null;
  /** Unix seconds (default: the store's clock). */
  now?: number;
  /**
   * Count matches up to this many (default COUNT_UP_TO, 1,001). A caller that shows only the
   * block (the hook, on every prompt) passes less: past NARROW_ABOVE the count then stops early,
   * and which way candidates are chosen is told by a count over the full-text index alone (no
   * lookup of each match's status and project), which cost a cold process most of the count.
   */
  countUpTo?: number;
  /** recallTerms(query), when the caller made them already (the hook, to tell whether to recall). */
  terms?: RecallTerms;
}

export interface RecallItem extends RankParts {
  id: string;
  short_id: string;
  type: string;
  project: string | null;
  created_at: number;
  /** What the block shows: the gist, else the content (the block may cut it at a word). */
  text: string;
  from_gist: boolean;
  /** Near-duplicates folded into this one (not shown). */
  collapsed: string[];
  /** A newer memory among the results that replaces this one (its id): shown after it, marked. */
  superseded_by?: string;
}

export interface RecallOutcome {
  query: string;
  /** The words looked for (stop words left out); empty when the query had only stop words. */
  words: string[];
  /** Memories matching any word; counted up to COUNT_UP_TO (1,001), so past that a lower bound. */
  total: number;
  /** Whether total (and more) are exact; false: there are more matches than they say. */
  total_exact: boolean;
  /** The memories in the block, best first. */
  items: RecallItem[];
  /** Near-duplicates folded into the items shown. */
  collapsed: number;
  /** Relevant matches not shown (beyond the budget or the limit; not those under the relevance floor): what the block's last line counts. */
  more: number;
  budget: number;
  /** The block: heading, one line per memory, a closing line when more matched; "" for none. */
  text: string;
}

/** What recall reads: the Store's index (after a quick refresh of the memory folders), or a settled index read without the Store (recall-settled.ts). */
export type RecallIndex = Pick<Store, "searchWithTerms" | "boundedSearchReady" | "countMatches" | "countMatchesPassing" | "relationsOfTypeTo" | "projects" | "nowSeconds" | "rawSettings">;

/** `memoryNotCurrent`: a settled read's check of the memory folders has just failed (recall-settled.ts), so the refresh goes straight to its look. */
export function recall(store: Store, opts: RecallOptions, memoryNotCurrent = false): Promise<RecallOutcome> {
  // relations as last indexed (a write or any full refresh updates them): refreshing them too
  // cost recall more than its search; they only mark what is superseded
  return recallIn(store, opts, () => store.refresh(false, ["memory"], { quickFailed: memoryNotCurrent }));
}

/** Recall over an index; `current` brings it up to date first, and runs only when there is something to look for. */
export async function recallIn(store: RecallIndex, opts: RecallOptions, current: () => Promise<unknown>): Promise<RecallOutcome> {
  const budget = opts.budget ?? RECALL_DEFAULTS.budget;
  const limit = opts.limit ?? RECALL_DEFAULTS.limit;
  const asked = opts.terms ?? recallTerms(opts.query);
  const empty: RecallOutcome = { ...echoed(opts.query, asked.words), total: 0, total_exact: true, items: [], collapsed: 0, more: 0, budget, text: "" };
  const match = asked.match;
  if (match === null) return empty;
  await current();
  // outside any repository, a prompt that names a project is asked of it, as inside it
  const project = opts.project === null ? namedProject(opts.query, await store.projects()) : opts.project;
  const terms = withinProject(asked, project);
  const filter: MemoryFilter = { statuses: ["active", "promoted"] };
  if (typeof project === "string") filter.projectOrNone = project;
  const upTo = Math.max(1, Math.floor(opts.countUpTo ?? COUNT_UP_TO));
  let narrow: boolean;
  let total: number;
  const count: CountUpTo = (match, n, filtered) => store.countMatches(match, filtered ? filter : {}, n);
  if (upTo > NARROW_ABOVE) {
    total = (await reachedByOneWord(terms.words, upTo, count)) ? upTo : await store.countMatches(match, filter, upTo);
    narrow = total > NARROW_ABOVE;
  } else {
    // a store of more than NARROW_ABOVE memories: one common word may tell that the query is
    // narrowed, and then the total is the filtered matches up to upTo, which that word's own
    // filtered count proves when it reaches upTo (the hook asks 1: whether any match passes)
    const common = (await store.countMatches(null)) > NARROW_ABOVE ? await wordNarrowing(terms.words, NARROW_ABOVE + 1, count) : null;
    if (common !== null) {
      narrow = true;
      total = (await count(`"${common}"`, upTo, true)) >= upTo ? upTo : await store.countMatches(match, filter, upTo);
    } else {
      // every memory, whatever its status or project: at least as many as the filtered matches;
      // the same pass counts those that pass the filter, which is the total when it has seen every
      // match or found upTo of them (else they are counted on, up to upTo)
      const first = await store.countMatchesPassing(match, filter, NARROW_ABOVE + 1);
      narrow = first.all > NARROW_ABOVE;
      total = !narrow ? first.passing : first.passing >= upTo ? upTo : await store.countMatches(match, filter, upTo);
    }
  }
  mark("recall: counts");
  if (total === 0) return empty;
  const exact = total < (narrow ? upTo : COUNT_UP_TO);
  // more matches than candidates and WHOLE_HOLDERS memories holding every word whole: the best are
  // among those, and ranking each candidate costs a cold process ~0.1-0.2 ms
  // the impact postings (store/impact-postings.ts) bound the candidates' search by the prompt's
  // terms: no narrowing counts or every-word search before it. Only for a narrowed query: with at
  // most NARROW_ABOVE matches FTS5 ranks them all within that bound (a rare word at 50k: ~2.5 ms
  // against ~4.5 for the postings' scratch table, terms and pending memories)
  const bounded = narrow && (await store.boundedSearchReady());
  const ahead = !bounded && !narrow && total > CANDIDATES && terms.words.length >= 2 && terms.phrases.length === 0 && (await everyWordHeldWhole(terms.words, WHOLE_HOLDERS, count)) >= WHOLE_HOLDERS;
  const take = narrow || ahead ? NARROWED_CANDIDATES : CANDIDATES;
  const hits = ahead
    ? await store.searchWithTerms(wholeWordsAll(terms.words), filter, take)
    : bounded
      ? await store.searchWithTerms(match, filter, take)
      : await candidates(store, terms.words, terms.phrases, match, narrow, filter, limit, count, take);

  mark("recall: candidates' search");
  const now = opts.now ?? store.nowSeconds();
  const decay = scoringSettingsFrom(store.rawSettings).decay;
  // the relevance floor first: a memory that shares nothing meaningful with the query is no
  // match however BM25 ranks it (a common word, a prefix), and does not set the scale either
  const fits = hits.map((h) => {
    const mt = termsOf(h.memory, h.terms);
    return { memory: h.memory, terms: mt, bm25: h.score, fit: fitOf(terms, mt) };
  });
  mark("recall: fits");
  // outside any project, another project's memory that matches only in part is no answer
  const outside = project === null ? fits.map((f) => shownOutside(terms, f.memory.project, f.fit)) : null;
  // a word's holders among the candidates are its holders in the store only when none was cut
  const everyMatch = !narrow && !ahead && hits.length < take;
  const floor = floorOf(terms, fits.map((f) => f.fit), everyMatch);
  // a second query word held in the store's own terms passes the floor (core/recall-associated.ts);
  // it does not rank as found: counting it lowered MRR on every set (branch recall9)
  const associated = heldByAssociation(terms, fits.map((f) => f.fit), fits.map((f) => f.terms));
  const floorPasses = await beyondChance(floor.map((p, i) => p || associated[i] !== null), terms, fits.map((f) => f.fit), count, () => store.countMatches(null));
  // the query's gate: whether the prompt fits the store at all (a memory passes the floor, else a
  // short prompt's trade word: core/recall-gate.ts). Once it does, a memory sharing one strong
  // word is shown too, after those (branch recallgate: the floor dropped relevant memories whose
  // own match is weak, "bouncing emails hurt our deliverability"), down to the same relative cut
  const tiers = shownTiers(floorPasses, fits.map((f) => f.fit), () => tradeWordMatches(terms, fits.map((f) => f.fit), everyMatch));
  const rare = rareCoverage(terms, fits.map((f) => f.fit));
  const fitting = fits.flatMap((h, i) => {
    const tier = outside && !outside[i] ? null : tiers[i]!;
    return tier === null ? [] : [{ memory: h.memory, terms: h.terms, bm25: h.bm25, covered: rare[i]!, lead: leadWeight(terms, h.fit, h.memory.content), tier }];
  });
  // those under the floor are shown only beside one that passes (shownTiers)
  mark("recall: floor, tiers");
  if (!fitting.some((h) => h.tier === 0)) return { ...empty, total, total_exact: exact };
  // the scale is set by the memories that pass the floor: those under it leave their order as it was
  const bestBm25 = Math.max(...fitting.filter((h) => h.tier === 0).map((h) => h.bm25));
  const trouble = reportsTrouble(opts.query);
  const scored = fitting.map((h) => ({ ...h, relevance: relevanceOf(h.bm25, bestBm25, h.covered) * choiceWeight(terms, h.memory.type) * troubleWeight(trouble, h.memory.type) * h.lead }));
  const best = Math.max(...scored.filter((h) => h.tier === 0).map((h) => h.relevance));
  // those under the floor are cut relative to the best that passes, but ranked on their own scale:
  // on that one the many whose BM25 outdoes the best that passes all read 1 and were ordered by
  // freshness alone (branch recall27)
  const bestBelow = Math.max(best, ...scored.map((h) => h.relevance));
  const ranked = scored
    .filter((h) => h.relevance >= best * (h.tier === 0 ? MIN_RELATIVE_RELEVANCE : MIN_RELATIVE_BELOW_FLOOR))
    .map((h) => ({ memory: h.memory, terms: h.terms, tier: h.tier, parts: rank({ ...h.memory, relevance: h.relevance }, h.tier === 0 ? best : bestBelow, now, decay) }))
    .sort((a, b) => a.tier - b.tier || b.parts.score - a.parts.score || b.memory.last_used - a.memory.last_used || (a.memory.id < b.memory.id ? 1 : -1));
  mark("recall: ranking");
  // replaced: as a relation says (made at capture, or by hand), else as the newer one among them says
  const replaced = supersededAmong(ranked.map((r) => ({ id: r.memory.id, type: r.memory.type, created_at: r.memory.created_at, content: r.memory.content, terms: r.terms })));
  for (const [newer, older] of await store.relationsOfTypeTo("supersedes", ranked.map((r) => r.memory.id))) replaced.set(older, newer);
  mark("recall: superseded");
  const ordered = newerFirst(ranked, (r) => r.memory.id, replaced);
  const groups = collapseNearDuplicates(ordered, (r) => r.terms.content, (r) => r.memory.id, limit, restatedAmong(replaced));
  const items = groups.map(({ item, collapsed }) => toItem(item.memory, item.parts, collapsed, replaced.get(item.memory.id)));
  // the query as the answer repeats it, cleaned once for the "more" line and the outcome
  const echo = echoed(opts.query, terms.words);

  // the "more" line counts the relevant matches not shown (those ranked, past the limit or the
  // budget), not every match of a word: a match under the floor is no more to look at. When
  // candidates were cut and the last of them (the least by BM25) is still relevant, more may be
  // past them: then it is a lower bound, said as such
  const lastCandidate = hits.at(-1)?.memory.id;
  const relevantExact = hits.length < take || !ranked.some((r) => r.memory.id === lastCandidate);
  const block = renderBlock({
    heading: "## Relevant memories (full text: memsync open <id>)",
    entries: items.map(entryOf),
    total: ranked.length,
    more: (n) => `… ${relevantExact ? "" : "more than "}${n} more match${n === 1 && relevantExact ? "" : "es"}: memsync search --any ${echo.words.slice(0, 6).join(" ")}`,
    budget,
    itemMax: ITEM_MAX,
  });
  const shown = items.slice(0, block.shown);
  mark("recall: near-duplicates, items, block");
  const collapsed = shown.reduce((a, i) => a + i.collapsed.length, 0);
  return { ...echo, total, total_exact: exact, items: shown, collapsed, more: block.more, budget, text: block.text };
}

/**
 * The query and its words as an answer repeats them (the outcome's `query` and `words`, the "more
 * matches" line), less any secret or <private> span the query holds: the answer goes back to the
 * agent (a hook's context, its transcript, an HTTP or MCP response), and a prompt's token must not
 * come back from memsync when no record may hold it.
 */
function echoed(query: string, words: readonly string[]): { query: string; words: string[] } {
  const clean = cleanText(query);
  if (clean.found.length === 0 && !clean.privateRemoved) return { query, words: [...words] };
  const kept = clean.text.toLowerCase();
  return { query: clean.text, words: words.filter((w) => kept.includes(w)) };
}

/**
 * The candidates, best BM25 first. Few matches: any word. Many (ranking each costs time): every
 * word, when enough memories hold them all (those are the best); else the query's less common
 * words. Either way the candidates are then ranked on all the words.
 */
async function candidates(store: RecallIndex, words: readonly string[], phrases: readonly string[], all: string, narrow: boolean, filter: MemoryFilter, enough: number, count: CountUpTo, take: number): Promise<Hit[]> {
  const search = (match: string) => store.searchWithTerms(match, filter, take);
  if (!narrow || words.length < 2) return search(all);
  // counted before they are ranked: BM25 weighs each word by how many memories hold it, which
  // costs a pass over every word's matches (each a prefix: ~3 ms of a cold hook at 10k), while
  // the count stops at `enough`; most prompts' words are not all in `enough` memories.
  // A whole word (no prefix) that no memory holds leaves nothing to count: found with a count
  // that stops at the first match, before FTS5 merges the prefix words' lists. The whole words'
  // AND goes first: when it reaches `enough`, every word is held whole, so none is absent (two
  // counts fewer for a prompt whose words are all common, ~0.3 ms of a cold hook)
  const every = matchAll(words);
  // whole words first when they alone fill the candidates: ranking every prefix match grew with
  // the store (the short prompt at 50k: ~6,200 rows, each prefix's covered words merged again for
  // BM25's idf; the long prompt's 8 prefixes ~10 ms against ~1 ms for its ~140 whole matches)
  const held = await everyWordHeldWhole(words, Math.max(WHOLE_HOLDERS, enough), count);
  if (held >= WHOLE_HOLDERS) return search(wholeWordsAll(words));
  // the whole words' AND within the query's: `enough` of them, and the every-word search has enough
  if (held >= enough || (!(await someWholeWordAbsent(words, count)) && (await store.countMatches(every, filter, enough)) >= enough)) return search(every);
  const size = await store.countMatches(null);
  const present = await narrowingTerms(words, phrases, size, RANKED_AT_MOST, RANKED_AT_MOST + 1, PHRASES_PROBED_TO, count);
  // then the rarest of them within a bound: ranking every match of all of them grew with the
  // store (the paraphrase prompt at 50k: ~35,000 rows)
  const chosen = rarestWithin(present, RANKED_AT_MOST);
  // their counts summed: about how many match (the index chooses how to apply the filter by it)
  const about = present.filter((t) => chosen.includes(t.match)).reduce((a, t) => a + t.df, 0);
  return chosen.length ? store.searchWithTerms(chosen.join(" OR "), filter, take, about) : [];
}

/** Whether a word the every-word search holds whole (too short for a prefix) is in no memory. */
async function someWholeWordAbsent(words: readonly string[], count: CountUpTo): Promise<boolean> {
  for (const w of words) if (w.length < PREFIX_FROM && (await count(`"${w}"`, 1, false)) === 0) return true;
  return false;
}

/**
 * The rarest terms (fewest matches first; ties in order) while their matches together are at most
 * `atMost`, and always the rarest one: BM25 weighs a rare term most. In the order given.
 */
export function rarestWithin(terms: readonly { match: string; df: number }[], atMost: number): string[] {
  const order = terms.map((t, i) => ({ ...t, i })).sort((a, b) => a.df - b.df || a.i - b.i);
  const chosen = new Set<number>();
  let matches = 0;
  for (const t of order) {
    if (chosen.size > 0 && matches + t.df > atMost) break;
    chosen.add(t.i);
    matches += t.df;
  }
  return terms.flatMap((t, i) => (chosen.has(i) ? [t.match] : []));
}

type Ranked = { memory: Memory; terms: Terms };

/**
 * Whether a later (lower-ranked) memory states what a kept one does in other words
 * (core/recall-restated.ts), unless one of them replaces the other: then both are shown, marked.
 */
function restatedAmong(replaced: ReadonlyMap<string, string>): (later: Ranked, kept: Ranked) => boolean {
  const stems = new Map<string, ReadonlySet<string>>();
  const stated = (r: Ranked): Stated & { id: string } => ({ id: r.memory.id, type: r.memory.type, content: r.memory.content, entities: r.memory.entities, words: r.terms.content });
  const stemsOf = (s: Stated & { id: string }): ReadonlySet<string> => {
    let had = stems.get(s.id);
    if (!had) stems.set(s.id, (had = stemSet(s)));
    return had;
  };
  return (later, kept) => {
    if (replaced.get(later.memory.id) === kept.memory.id || replaced.get(kept.memory.id) === later.memory.id) return false;
    return restates(stated(later), stated(kept), stemsOf);
  };
}

/** How many memories' terms a process keeps. */
const TERMS_KEPT = 8192;

type Terms = RecallMemoryTerms;
/** Per memory id: what its terms were made from (the index's stored terms, or its text) and them. */
const kept = new Map<string, { from: string; entities: readonly string[]; terms: Terms }>();

/**
 * A memory's terms (its words and their stems, over content, gist, tags and entities; the content's
 * meaningful words for near-duplicates), kept per memory: a long-running process (serve, mcp)
 * ranks the same memories on many prompts, and splitting and stemming each candidate's text, or
 * reading its stored terms again and making the same sets of them, was most of recall's own time.
 * They are kept while what they were made from is the same (the stored terms or the text, and
 * the entities, compared whole): a changed memory gets terms of its new text. The index keeps
 * every memory's terms (made when it was indexed): those are used; only a memory whose stored
 * terms are of another version has its terms made from its text here. The oldest go first.
 */
function termsOf(m: Memory, stored: string | null): Terms {
  const had = kept.get(m.id);
  // terms of another version are not used: keyed by the text they are then made from
  const fromIndex = stored !== null && storedTermsCurrent(stored) ? stored : null;
  const from = fromIndex ?? recallText(m);
  if (had && had.from === from && sameWords(had.entities, m.entities)) {
    // used again: the newest to go
    kept.delete(m.id);
    kept.set(m.id, had);
    return had.terms;
  }
  const terms = (fromIndex === null ? null : termsFromStored(fromIndex, m.entities)) ?? termsOfText(m, fromIndex === null ? from : recallText(m));
  if (had) kept.delete(m.id);
  else if (kept.size >= TERMS_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(m.id, { from, entities: m.entities, terms });
  return terms;
}

function termsOfText(m: Memory, text: string): Terms {
  // the content's words only for near-duplicates among those that pass the floor (most do not)
  let content: ReadonlySet<string> | undefined;
  return {
    ...memoryTerms(text, m.entities),
    get content() {
      return (content ??= contentWords(m.content));
    },
  };
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function toItem(m: Memory, parts: RankParts, collapsed: string[], supersededBy: string | undefined): RecallItem {
  return {
    ...(supersededBy ? { superseded_by: supersededBy } : {}),
    id: m.id,
    short_id: short(m.id),
    type: m.type,
    project: m.project,
    created_at: m.created_at,
    text: m.gist ?? m.content,
    from_gist: m.gist !== null,
    ...parts,
    collapsed,
  };
}

function entryOf(i: RecallItem): BlockEntry {
  const similar = i.collapsed.length ? ` +${i.collapsed.length} similar` : "";
  const replaced = i.superseded_by ? ` superseded by ${short(i.superseded_by)}` : "";
  return { text: i.text, tail: `[${i.type} ${isoTime(i.created_at).slice(0, 10)} ${i.short_id}${similar}${replaced}]`, covers: 1 + i.collapsed.length };
}

/** How much a decision counts over another memory, for a question for a choice. */
const CHOICE_DECISION_WEIGHT = 1.2;

/**
 * A question for which product of a kind ("which database do we use") is answered by a decision
 * that names one; a problem or a fix that mentions the product ranks after it when they match alike.
 */
export function choiceWeight(terms: RecallTerms, type: string): number {
  return terms.asks === "choice" && type === "decision" ? CHOICE_DECISION_WEIGHT : 1;
}

/** How much a problem or its solution counts over another memory, for a prompt that reports trouble; 1.1-1.35 tried (branch recall13). */
const TROUBLE_WEIGHT = 1.2;
/** The start of a prompt read for trouble (as its concepts are). */
const TROUBLE_FROM_CHARS = 2_000;

/**
 * Whether a prompt reports trouble in developer talk ("dashboard js is huge", "tokens rejected as
 * not yet valid", "too many clients error from postgres"), as capture reads a problem
 * (core/capture/cues.ts TROUBLE): such a prompt is answered by what went wrong and what fixed it
 * rather than by a decision that mentions the same words.
 */
export function reportsTrouble(query: string): boolean {
  const start = query.slice(0, TROUBLE_FROM_CHARS);
  return isTrouble(start);
}

/** A problem or a solution counts TROUBLE_WEIGHT over another memory when the prompt reports trouble. */
export function troubleWeight(trouble: boolean, type: string): number {
  return trouble && (type === "problem" || type === "solution") ? TROUBLE_WEIGHT : 1;
}
