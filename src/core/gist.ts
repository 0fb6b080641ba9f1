import { DROP_WORDS, type GistLevelRank, isNegation, isNumberWord, KEEP_ARTICLE_BEFORE, OBJECT_FOLLOWERS, PHRASES, PRONOUNS, THAT_AFTER } from "./gist/rules.ts";
import { render, renderSentence, type Sentence, sentences, type Tok, tokenize } from "./gist/tokens.ts";
import { STOP_WORDS } from "./stop-words.ts";
import { tooShortForGist } from "./gist-size.ts";

// Gists: a shorter form of a memory's content for an agent's context, made offline and
// deterministically. Three passes, each level doing all the lower ones do and more:
//   light      filler words and wordy phrases ("in order to" -> "to")
//   moderate   + articles, connectives, courtesy; sentences that repeat an earlier one
//   aggressive + pronouns, forms of "be", auxiliaries; plain sentences that carry no
//              protected token, least novel first, until about half the length
// Never touched: negations, numbers (digits or words), entities (given, or capitalized names),
// code spans, URLs, paths, versions and every other token that is not a plain word. A last check
// compares what the content protects with what the gist holds and falls back if anything is
// missing. No gist (null) for content under 30 words, or when the gist would not be clearly
// shorter (over 85% of the content's length).

export type GistLevel = "light" | "moderate" | "aggressive";

export const GIST_LEVELS: readonly GistLevel[] = ["light", "moderate", "aggressive"];

const RANK: Record<GistLevel, GistLevelRank> = { light: 0, moderate: 1, aggressive: 2 };

export { GIST_MIN_WORDS, wordCount } from "./gist-size.ts";
/** A gist longer than this share of the content is not worth keeping. */
export const GIST_MAX_RATIO = 0.85;
/** Pruning stops once the gist is this share of the content: moderate (sentences), aggressive (clauses too). */
const PRUNE_TARGET = { moderate: 0.75, aggressive: 0.5 } as const;
/** A first clause opening with one of these is a condition: the clause after it is the point. */
/** Sentences that give a reason or a contrast: moderate keeps them whole. */
const REASONING = new Set(["because", "since", "so", "but", "although", "though", "therefore", "reason", "why", "due", "caused", "causes", "means"]);
const SUBORDINATORS = new Set(["when", "whenever", "if", "unless", "because", "since", "although", "though", "while", "after", "before", "once", "until", "as", "where", "whether"]);
/** Near-duplicate sentences: share of content words in common. */
const REPEAT_SIMILARITY = 0.8;
/** Sentences compared for repeats (beyond this, only exact repeats are looked for). */
const REPEAT_WINDOW = 200;

const lower = (t: Tok) => t.text.toLowerCase().replace(/’/g, "'");

// Letter case by comparing case mappings, not by \p{Lu} regexes: those build Unicode tables the
// first time they run, which a one-shot save would pay for on every call.
const isUpper = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();
const isLower = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();
const startsUpper = (s: string) => s.length > 0 && isUpper(String.fromCodePoint(s.codePointAt(0)!));
const startsLower = (s: string) => s.length > 0 && isLower(String.fromCodePoint(s.codePointAt(0)!));
function hasUpperAfterFirst(s: string): boolean {
  const chars = [...s];
  for (let i = 1; i < chars.length; i++) if (isUpper(chars[i]!)) return true;
  return false;
}

export function makeGist(content: string, level: GistLevel = "moderate", entities: readonly string[] = []): string | null {
  if (tooShortForGist(content)) return null;
  const best = reduceText(content, level, entities);
  if (best === null || best.length > content.length * GIST_MAX_RATIO) return null;
  return best;
}

/**
 * The reduced text without makeGist's length rules (for measuring); null only when nothing is
 * left or no level could keep every protected token.
 */
export function reduceText(content: string, level: GistLevel = "moderate", entities: readonly string[] = []): string | null {
  const rank = RANK[level] ?? RANK.moderate;
  const checkEntities = entities.filter((e) => containsEntity(content, e));
  // each level continues from the one below, so a higher level is never longer; a level whose
  // result lost a protected token (a bug this check contains) gives way to the one below
  for (let top = rank; top >= 0; top--) {
    const doc = parse(content, entities);
    const required = inventory(doc);
    for (let r = 0 as GistLevelRank; r <= top; r = (r + 1) as GistLevelRank) reduce(doc, r, content.length);
    const text = render(doc);
    if (text.trim() !== "" && keepsAll(doc, text, required, checkEntities)) return text;
  }
  return null;
}

// --- parsing and protection ------------------------------------------------------------------

function parse(content: string, entities: readonly string[]): Sentence[] {
  const sents = sentences(tokenize(content.normalize("NFC")));
  const entitySeqs = entities
    .map((e) => tokenize(e).map(lower))
    .filter((seq) => seq.length > 0 && seq.length <= 8);
  // words written capitalized inside a sentence are names, also where they open one
  const names = new Set<string>();
  for (const s of sents) {
    const first = firstWordIndex(s.toks);
    s.toks.forEach((t, i) => {
      if (t.kind === "word" && i !== first && startsUpper(t.text) && lower(t) !== "i") names.add(lower(t));
    });
  }
  for (const s of sents) {
    const first = firstWordIndex(s.toks);
    const texts = s.toks.map(lower);
    for (const seq of entitySeqs) {
      for (let i = 0; i + seq.length <= texts.length; i++) {
        if (seq.every((w, k) => texts[i + k] === w)) for (let k = 0; k < seq.length; k++) s.toks[i + k]!.guard = true;
      }
    }
    s.toks.forEach((t, i) => {
      if (t.kind !== "word" || t.guard) return;
      const w = lower(t);
      if (isNegation(w) || isNumberWord(w)) t.guard = true;
      else if (w !== "i" && hasUpperAfterFirst(t.text)) t.guard = true; // PostgreSQL, API, iOS
      else if (startsUpper(t.text) && w !== "i" && (i !== first || names.has(w))) t.guard = true;
    });
  }
  return sents;
}

function firstWordIndex(toks: readonly Tok[]): number {
  return toks.findIndex((t) => !t.gone && t.kind !== "punct");
}

/** A letter, digit or underscore (by case mapping beyond ASCII: no Unicode tables to build). */
function isWordChar(c: string | undefined): boolean {
  if (c === undefined || c === "") return false;
  if (/[A-Za-z0-9_]/.test(c)) return true;
  return c.charCodeAt(0) > 127 && (c.toLowerCase() !== c.toUpperCase() || /\d/.test(c));
}

/** The entity occurs in the text as a whole word (case-insensitive). */
function containsEntity(text: string, entity: string): boolean {
  const e = entity.trim().toLowerCase();
  if (e === "") return false;
  const t = text.toLowerCase();
  const edgeStart = isWordChar(e[0]);
  const edgeEnd = isWordChar(e[e.length - 1]);
  for (let at = t.indexOf(e); at !== -1; at = t.indexOf(e, at + 1)) {
    if (edgeStart && isWordChar(t[at - 1])) continue;
    if (edgeEnd && isWordChar(t[at + e.length])) continue;
    return true;
  }
  return false;
}

/** What a gist must keep: every protected token of the content (words compared in lower case). */
function inventory(sents: readonly Sentence[]): Set<string> {
  const need = new Set<string>();
  for (const s of sents) for (const t of s.toks) if (t.guard) need.add(t.kind === "word" ? lower(t) : t.text);
  return need;
}

/** Every protected token is still among the tokens left, and every entity in the text. */
function keepsAll(sents: readonly Sentence[], gist: string, required: ReadonlySet<string>, entities: readonly string[]): boolean {
  const have = new Set<string>();
  for (const s of sents) if (!s.gone) for (const t of s.toks) if (!t.gone) have.add(t.kind === "word" ? lower(t) : t.text);
  for (const r of required) if (!have.has(r)) return false;
  return entities.every((e) => containsEntity(gist, e));
}

// --- reduction ---------------------------------------------------------------------------------

type PhraseRule = { words: string[]; repl: string; rank: GistLevelRank };

/**
 * The wordy phrases by first word, longest first; built at the first reduction, not at module
 * load: content under GIST_MIN_WORDS words is never reduced, and building it cost a cold save
 * ~0.25-0.45 ms of CPU (a compiled probe, issue 16).
 */
let phraseTable: Map<string, PhraseRule[]> | undefined;
function phrasesStartingWith(word: string): PhraseRule[] | undefined {
  if (!phraseTable) {
    const table = new Map<string, PhraseRule[]>();
    for (const [phrase, repl, rank] of PHRASES) {
      const words = phrase.split(" ");
      const list = table.get(words[0]!) ?? [];
      list.push({ words, repl, rank });
      table.set(words[0]!, list);
    }
    // longest first; a stable sort, so phrases of one length keep the rules' order
    for (const list of table.values()) list.sort((a, b) => b.words.length - a.words.length);
    phraseTable = table;
  }
  return phraseTable.get(word);
}

function reduce(sents: Sentence[], rank: GistLevelRank, originalLength: number): void {
  for (const s of sents) {
    if (s.gone) continue;
    const wasCapitalized = startsCapitalized(s.toks);
    rewritePhrases(s.toks, rank);
    dropWords(s.toks, rank);
    tidy(s);
    if (wasCapitalized) capitalizeStart(s.toks);
  }
  if (rank >= 1) dropRepeats(sents);
  if (rank === 1) pruneUnits(sents, originalLength * PRUNE_TARGET.moderate, false);
  if (rank >= 2) pruneUnits(sents, originalLength * PRUNE_TARGET.aggressive, true);
}

function live(toks: readonly Tok[]): Tok[] {
  return toks.filter((t) => !t.gone);
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function rewritePhrases(toks: Tok[], rank: GistLevelRank): void {
  const seq = live(toks);
  for (let i = 0; i < seq.length; i++) {
    const t = seq[i]!;
    if (t.kind !== "word" || t.guard || t.fixed || t.gone) continue;
    if (i > 0 && isNegation(lower(seq[i - 1]!))) continue; // "don't need to" is not "don't must"
    const candidates = phrasesStartingWith(lower(t));
    if (!candidates) continue;
    for (const p of candidates) {
      if (p.rank > rank || i + p.words.length > seq.length) continue;
      const span = seq.slice(i, i + p.words.length);
      if (!span.every((x, k) => x.kind === "word" && !x.guard && !x.fixed && !x.gone && lower(x) === p.words[k])) continue;
      const cap = startsUpper(t.text);
      for (const x of span) x.gone = true;
      if (p.repl !== "") {
        t.gone = false;
        t.text = cap ? capital(p.repl) : p.repl;
        t.fixed = true;
      }
      i += p.words.length - 1;
      break;
    }
  }
}

function dropWords(toks: Tok[], rank: GistLevelRank): void {
  const seq = live(toks);
  for (let i = 0; i < seq.length; i++) {
    const t = seq[i]!;
    if (t.kind !== "word" || t.guard || t.fixed) continue;
    const w = lower(t);
    const prev = prevLive(seq, i);
    const next = nextLive(seq, i);
    if (prev && isNegation(lower(prev))) continue; // "not very fast" is not "not fast"
    if (next && isNegation(lower(next)) && (w === "do" || w === "does" || w === "did")) continue; // "do not", not "not"
    const dropRank = DROP_WORDS.get(w);
    let drop = dropRank !== undefined && dropRank <= rank;
    if (drop && (w === "a" || w === "an")) drop = next !== undefined && next.kind === "word" && !KEEP_ARTICLE_BEFORE.has(lower(next)) && !isNumberWord(lower(next));
    if (!drop && rank >= 1 && w === "that" && prev && THAT_AFTER.has(lower(prev)) && next && next.kind !== "punct") drop = true;
    // the same plain word twice in a row
    if (!drop && prev && prev.kind === "word" && lower(prev) === w && !prev.guard) drop = true;
    if (!drop || !next) continue;
    // glue that ends its clause is doing work there ("because of it."); fillers go anyway
    if (next.kind === "punct" && (dropRank ?? 1) >= 1) continue;
    if (PRONOUNS.has(w) && OBJECT_FOLLOWERS.has(lower(next))) continue;
    t.gone = true;
    // "a very old" -> "an old"
    if (prev && (lower(prev) === "a" || lower(prev) === "an") && next && next.kind === "word") {
      const an = /^[aeiou]/i.test(next.text);
      prev.text = (/^A/.test(prev.text) ? "A" : "a") + (an ? "n" : "");
    }
  }
}

function prevLive(seq: readonly Tok[], i: number): Tok | undefined {
  for (let k = i - 1; k >= 0; k--) if (!seq[k]!.gone) return seq[k];
  return undefined;
}

function nextLive(seq: readonly Tok[], i: number): Tok | undefined {
  for (let k = i + 1; k < seq.length; k++) if (!seq[k]!.gone) return seq[k];
  return undefined;
}

function startsCapitalized(toks: readonly Tok[]): boolean {
  const i = firstWordIndex(toks);
  return i >= 0 && toks[i]!.kind === "word" && startsUpper(toks[i]!.text);
}

function capitalizeStart(toks: Tok[]): void {
  const i = firstWordIndex(toks);
  if (i < 0) return;
  const t = toks[i]!;
  if (t.kind === "word" && !t.guard && startsLower(t.text)) t.text = capital(t.text);
}

/** Punctuation left stranded by removals: a leading comma, ", ,", a comma before a full stop. */
function tidy(s: Sentence): void {
  const seq = live(s.toks);
  const soft = (t: Tok | undefined) => t !== undefined && t.kind === "punct" && /^[,;:]$/.test(t.text);
  let seenContent = false;
  for (let i = 0; i < seq.length; i++) {
    const t = seq[i]!;
    if (t.kind !== "punct") {
      seenContent = true;
      continue;
    }
    if (!soft(t)) continue;
    let next: Tok | undefined;
    for (let k = i + 1; k < seq.length && !next; k++) if (!seq[k]!.gone) next = seq[k];
    if (!seenContent || soft(next) || (next && next.kind === "punct" && /^[.!?…]+$/.test(next.text)) || next === undefined) t.gone = true;
  }
  // "( )" left empty
  const rest = live(s.toks);
  for (let i = 0; i + 1 < rest.length; i++) {
    if (rest[i]!.text === "(" && rest[i + 1]!.text === ")") rest[i]!.gone = rest[i + 1]!.gone = true;
  }
  if (!live(s.toks).some((t) => t.kind !== "punct")) s.gone = true;
}

// --- sentences ---------------------------------------------------------------------------------

function contentWords(s: Sentence): Set<string> {
  const out = new Set<string>();
  for (const t of s.toks) {
    if (t.gone || t.kind === "punct") continue;
    const w = lower(t);
    if (t.kind !== "word" || !STOP_WORDS.has(w)) out.add(w);
  }
  return out;
}

function guarded(s: Sentence): Set<string> {
  const out = new Set<string>();
  for (const t of s.toks) if (!t.gone && t.guard) out.add(lower(t));
  return out;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

const subset = (a: ReadonlySet<string>, b: ReadonlySet<string>) => [...a].every((x) => b.has(x));

/**
 * A sentence that says again what an earlier one said goes, when it has nothing of its own to
 * protect: the same negations, and no protected token the earlier one lacks.
 */
function dropRepeats(sents: Sentence[]): void {
  const kept: { words: Set<string>; guard: Set<string>; key: string }[] = [];
  for (const s of sents) {
    if (s.gone) continue;
    const words = contentWords(s);
    const guard = guarded(s);
    const key = [...words].sort().join(" ");
    if (words.size >= 3) {
      const negs = [...guard].filter(isNegation);
      const window = kept.length > REPEAT_WINDOW ? kept.filter((k) => k.key === key) : kept;
      const same = window.find((k) => {
        if (jaccard(words, k.words) < REPEAT_SIMILARITY || !subset(guard, k.guard)) return false;
        const kNegs = [...k.guard].filter(isNegation);
        return kNegs.length === negs.length && negs.every((n) => kNegs.includes(n));
      });
      if (same) {
        s.gone = true;
        continue;
      }
    }
    kept.push({ words, guard, key });
  }
}

/** A whole sentence, or a clause after a comma or semicolon, that aggressive pruning may remove. */
interface Unit {
  sent: Sentence;
  toks: Tok[];
  words: Set<string>;
  names: string[];
  order: number;
}

/**
 * Whole sentences (moderate), and clauses after a comma or semicolon (aggressive), go when they
 * hold no negation, number, code, path or other protected token and every name in them is also
 * said elsewhere; the least novel first, until the gist is down to the target length. The first
 * sentence, which usually states the point, always stays, and so does a clause that completes a
 * condition ("When X, do Y").
 */
function pruneUnits(sents: Sentence[], target: number, clauses: boolean): void {
  let length = render(sents).length;
  if (length <= target) return;
  const units: Unit[] = [];
  const unit = (sent: Sentence, toks: Tok[]) => units.push({ sent, toks, words: new Set(), names: [], order: units.length });
  for (const sent of sents.filter((x) => !x.gone)) {
    // the sentence's closing stop stays with whatever is left of it
    const seq = live(sent.toks).filter((t) => !(t.kind === "punct" && /^[.!?…]+$/.test(t.text)));
    unit(sent, seq);
    if (!clauses) continue;
    const opener = seq.find((t) => t.kind !== "punct");
    if (opener && SUBORDINATORS.has(lower(opener))) continue;
    // clauses after the first: the first carries the subject
    let cur: Tok[] | null = null;
    for (const t of seq) {
      if (cur) cur.push(t);
      if (t.kind === "punct" && /^[,;]$/.test(t.text)) {
        if (cur && cur.length > 1) unit(sent, cur.slice(0, -1));
        cur = [t];
      }
    }
    if (cur && cur.length > 1) unit(sent, cur);
  }
  const nameCount = new Map<string, number>();
  for (const u of units) {
    for (const t of u.toks) {
      if (t.kind === "punct") continue;
      const w = lower(t);
      if (t.kind !== "word" || !STOP_WORDS.has(w)) u.words.add(w);
      if (t.guard && t.kind === "word" && !isNegation(w) && !isNumberWord(w)) {
        u.names.push(w);
        nameCount.set(w, (nameCount.get(w) ?? 0) + 1);
      }
    }
  }
  const freq = new Map<string, number>();
  for (const u of units) for (const w of u.words) freq.set(w, (freq.get(w) ?? 0) + 1);
  const prunable = (u: Unit) =>
    u.sent !== units[0]?.sent &&
    (clauses || !u.toks.some((t) => REASONING.has(lower(t)))) &&
    u.words.size > 0 &&
    u.toks.every((t) => !t.guard || (t.kind === "word" && !isNegation(lower(t)) && !isNumberWord(lower(t))));
  const candidates = units
    .filter(prunable)
    .map((u) => ({ u, novel: [...u.words].filter((w) => freq.get(w) === 1).length / Math.max(1, u.words.size) }))
    .sort((a, b) => a.novel - b.novel || b.u.order - a.u.order);
  for (const { u } of candidates) {
    if (length <= target) break;
    if (u.toks.some((t) => t.gone)) continue; // part of a unit already removed
    const uses = new Map<string, number>();
    for (const n of u.names) uses.set(n, (uses.get(n) ?? 0) + 1);
    if ([...uses].some(([n, k]) => (nameCount.get(n) ?? 0) - k < 1)) continue;
    for (const [n, k] of uses) nameCount.set(n, nameCount.get(n)! - k);
    const before = renderSentence(u.sent.toks).length;
    const wasCapitalized = startsCapitalized(u.sent.toks);
    for (const t of u.toks) t.gone = true;
    tidy(u.sent);
    if (wasCapitalized) capitalizeStart(u.sent.toks);
    length -= before - (u.sent.gone ? -1 : renderSentence(u.sent.toks).length);
  }
}
