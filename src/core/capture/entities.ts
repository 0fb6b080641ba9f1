import type { EntityRelation } from "../model/memory.ts";
import type { EntityRelationType } from "../model/vocab.ts";
import { aliasHit, aliasKey, longestAliasFrom, MAX_ALIAS_UNITS } from "./alias-index.ts";
import { type EntityKind, vocabulary, type VocabAlias, type VocabEntry } from "./vocabulary.ts";

// Entities in a sentence: names from the curated vocabulary (aliases mapped to one canonical name,
// matched on whole words), and technical terms spelled like names (CamelCase, ACRONYMS, letters
// with digits). Typed relations are found only between two entities, never to free text.

export interface Unit {
  /** As written. */
  text: string;
  lower: string;
  start: number;
  end: number;
}

export interface Mention {
  name: string;
  kind: EntityKind | "term";
  category: string | null;
  start: number;
  end: number;
}

// A word: letters and digits with the inner punctuation technical names use (node.js, c++, c#,
// don't, ci/cd); ".NET" is the one name that starts with a dot.
const WORD = /\.net\b|[\p{L}\p{N}@](?:[\p{L}\p{N}+#'’._\-/@]*[\p{L}\p{N}+#])?/giu;

/**
 * The units names are matched on: words, split further at hyphens and slashes ("redis-backed"
 * holds redis; "ci/cd" is ci + cd), with a trailing possessive dropped.
 */
export function units(text: string): Unit[] {
  const out: Unit[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    let word = m[0];
    if (/['’]s$/i.test(word)) word = word.slice(0, -2);
    let at = m.index;
    for (const part of word.split(/([-/])/)) {
      if (part && part !== "-" && part !== "/") out.push({ text: part, lower: part.toLowerCase(), start: at, end: at + part.length });
      at += part.length;
    }
  }
  return out;
}

/** Every alias as units() splits it (for a test that aliasKey agrees). */
export function aliasKeysAgree(): string[] {
  const bad: string[] = [];
  for (const e of vocabulary()) {
    for (const a of e.aliases) {
      const viaUnits = units(a.text).map((u) => u.lower).join(" ");
      if (viaUnits !== aliasKey(a.text).join(" ")) bad.push(a.text);
    }
  }
  return bad;
}

export function vocabularyEntry(name: string): VocabEntry | undefined {
  return vocabularyEntryOfWords(units(name).map((u) => u.lower));
}

/**
 * The entry whose alias is exactly these words (lowercase, as units() splits them). An alias that
 * names the thing only beside a version ("next") names nothing out of its sentence.
 */
export function vocabularyEntryOfWords(words: readonly string[]): VocabEntry | undefined {
  const hit = aliasHit(words.join(" "));
  return hit && !hit.alias.versionOnly ? hit.entry : undefined;
}

/** What follows a verb: "go with", "make sure", "express it". */
const PARTICLES = new Set([
  "to", "with", "ahead", "back", "through", "away", "up", "out", "off", "sure", "it", "this", "that", "them", "us", "me", "you",
  "yourself", "the", "a", "an", "your", "our", "my", "some", "everything", "something", "sense",
]);
/** What precedes a verb: "to go", "we'll go", "let's go". */
const VERB_BEFORE = new Set(["to", "will", "can", "should", "must", "let's", "lets", "would", "could", "we'll", "i'll", "don't", "not", "didn't", "gonna"]);

function aliasFits(alias: VocabAlias, us: readonly Unit[], i: number, n: number): boolean {
  const first = us[i]!;
  const prev = us[i - 1];
  const next = us[i + n];
  const after = us[i + n + 1];
  if (alias.versionOnly) return versionBeside(us, i, n) || (/^\p{Lu}/u.test(first.text) && OWN_PARTS.test(partsAfter(us, i + n)));
  if (alias.upper && first.text !== first.text.toUpperCase()) return false;
  // a name that is also a word still names the thing beside its version ("bump go to 1.22")
  if (alias.needsCapital && !/^\p{Lu}/u.test(first.text)) return versionBeside(us, i, n) || packageNamed(us, i, n);
  // "react to changes" is a verb; "bump React to 18.3" names a version of it
  if (alias.notBeforeTo && next?.lower === "to" && !/^v?\d/i.test(after?.text ?? "")) return false;
  if (alias.verbLike && ((next && PARTICLES.has(next.lower)) || (prev && VERB_BEFORE.has(prev.lower)))) return versionBeside(us, i, n);
  return true;
}

/**
 * Parts only a framework of that name has, right after its capitalised name: "Next middleware",
 * "Next app router", "Next server actions" ("the next middleware in the chain" is lowercase).
 */
const OWN_PARTS = /^(?:app router|pages router|middleware|server (?:components?|actions?)|route handlers?|image component|app directory|api routes?)\b/;

/** The next two units' words, lowercase, space-separated; none after a break ("Next: api routes"). */
function partsAfter(us: readonly Unit[], at: number): string {
  const u = us[at];
  if (!u || u.start - us[at - 1]!.end !== 1) return "";
  return `${u.lower} ${us[at + 1]?.lower ?? ""}`.trim();
}

/** What a dependency is called: "the sharp package", "the go module" name the thing, lowercase or not. */
const PACKAGE_WORDS = new Set(["package", "packages", "library", "lib", "module", "crate", "gem", "binary", "binaries", "dependency", "plugin", "sdk"]);

const SUBJECTS = new Set(["we", "i", "you", "they", "he", "she", "it"]);

/**
 * Whether us[at] is a package word right after the name, a space apart ("sharp package", not
 * "go — packages"), the name no verb ("we go package by package").
 */
function packageNamed(us: readonly Unit[], i: number, n: number): boolean {
  const u = us[i + n];
  const before = us[i - 1]?.lower ?? "";
  return !!u && u.start - us[i + n - 1]!.end === 1 && PACKAGE_WORDS.has(u.lower) && !SUBJECTS.has(before) && !VERB_BEFORE.has(before);
}

/** A version: 15, 14.2, 1.22.x, v5; not a year (a "spring 2025" is a season). */
const VERSION = /^v?\d{1,3}(?:\.(?:\d+|x))*$/i;
/** Verbs that set a dependency's version: "pin Next to 14.2", "bump go from 1.21 to 1.22". */
const VERSION_VERBS = new Set(
  "pin pinned pinning bump bumped bumping upgrade upgraded upgrading update updated updating downgrade downgraded downgrading move moved moving migrate migrated migrating lock locked keep kept hold held set revert reverted roll rolled".split(" "),
);
/** What a number before it counts: "the next 14 days", "Next 3 items" name no version. */
const COUNTED = new Set(
  ("second seconds sec secs minute minutes min mins hour hours day days week weeks month months year years quarter quarters sprint sprints " +
    "release releases version versions item items step steps ticket tickets issue issues pr prs commit commits time times page pages row rows " +
    "record records user users request requests test tests task tasks story stories point points percent more").split(" "),
);

/**
 * Whether the alias at us[i..i+n) names a version of the thing: "Next 15", "Go 1.22" (a dotted
 * version, or a capitalised name: "next 14 days" counts days), or a version verb before and
 * to / from / at a version after ("pin Next to 14.2", "bump next to 15"). The version must not
 * count something ("Next 3 items").
 */
function versionBeside(us: readonly Unit[], i: number, n: number): boolean {
  const first = us[i]!;
  const next = us[i + n];
  if (!next) return false;
  let v = next;
  let at = i + n;
  if (!VERSION.test(next.text)) {
    const verb = us[i - 1];
    if (!(next.lower === "to" || next.lower === "from" || next.lower === "at") || !verb || !VERSION_VERBS.has(verb.lower)) return false;
    v = us[i + n + 1] as Unit;
    at = i + n + 1;
    if (!v || !VERSION.test(v.text)) return false;
  } else if (!/^\p{Lu}/u.test(first.text) && !/[.v]/i.test(next.text)) return false;
  // "next 2 or 3 days", "next 2-3 weeks": a range counts too
  let counted = us[at + 1];
  if (counted && (/^\d/.test(counted.text) || ["or", "and", "to"].includes(counted.lower)) && /^\d/.test(us[at + 2]?.text ?? "")) counted = us[at + 3];
  else if (counted && /^\d/.test(counted.text)) return false;
  return !counted || !COUNTED.has(counted.lower);
}

/** Capitalized words that are not technical names. */
const NOT_TERMS = new Set(
  (
    "i i'm i'd i'll i've ok okay pr prs ui ux db dbs id ids url urls api apis sdk cli todo fixme fyi asap imo imho afaik tbd wip lgtm eod eta qa pm am us " +
    "eu uk ceo cto mvp poc note important readme bug fix na tl dr tldr cpu gpu ram os io ip mb gb kb tb ms and or not the but if no yes all new old " +
    "dont never always must should please env dev prod staging sla slo kpi roi ai ml it we they you he she this that these those there here " +
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december " +
    "let's lets use using go also then so now because since when while what why how which who where our my your their its a an to for of in on at by " +
    "with from over instead rather than vs is are was were be been do does did has have had will would can could just only very really " +
    // words written in capitals that name no technology: commands, keywords, states, units
    "listen notify incr decr ttl user users failed failure fail failing passed pass error errors warn warning info debug skip skipped " +
    "locked lts get post put patch delete head select insert update where join limit offset null true false done utc gmt pst est cet " +
    "max min avg sum count todo asap eta faq diy etc " +
    // days in the plural ("releases move to Tuesdays"), roles and the shorthand of chat and planning
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays dst " +
    "dba dbas sre sres po cfo coo cio vp vps hr fe be em ic sme pto ooo wfh eow tbh btw fwiw iirc nb ps cc dm dms pov okr okrs kpis poc pocs mvps " +
    // file formats, generic protocols and acronyms of the trade: what a thing is made of, not which thing
    "pdf pdfs csv csvs tsv png jpg jpeg gif svg exif utf ascii iso rfc tls ssl vm vms oom ntp spf dkim dmarc etl hmac sha saas paas iaas gc tz crud ttfb dom pii phi http https cdn camelcase pascalcase"
  ).split(" "),
);

/** Words shaped like names that carry nothing: quarters, chips, architectures, severities, versions. */
const LOW_VALUE = /^(?:q[1-4]|h[12]|fy\d{2,4}|m[1-4]|amd64|arm64|aarch64|x86|x86_64|x64|i[3579]|p[0-4]|p(?:50|75|90|95|99|999)|crlf|lf|sev[0-4]|s[1-4]|v\d[\w.]*|\d+[a-z]{1,3}|sha\d{1,3}|md5|utf\d{1,2}|xm[xs]\d+[kmg]?)$/i;

/**
 * Names that mean a technology only in its context: "ES" is Elasticsearch next to search words,
 * not in "ES2022" or "ES modules" (those are other units or other aliases); "Elastic" (the
 * company) names it beside search too. `written`: how it must be spelled; `alone`: out of its
 * context it is no entity at all ("ES" the locale code), else other rules may still read it.
 */
const SEARCH_CONTEXT = /\b(?:search|searches|index|indexes|indices|indexing|quer(?:y|ies)|analy[sz]ers?|kibana|shards?|mappings?|full[- ]text|logstash|relevance|aggregations?)\b/i;
const CONTEXT_ALIASES: Record<string, { name: string; written: RegExp; context: RegExp; alone: boolean }> = {
  es: { name: "elasticsearch", written: /^ES$/, context: SEARCH_CONTEXT, alone: true },
  elastic: { name: "elasticsearch", written: /^Elastic$/, context: SEARCH_CONTEXT, alone: false },
  // the animal is a word; the broker is what queue talk means
  rabbit: { name: "rabbitmq", written: /^Rabbit$/, context: /\b(?:queues?|brokers?|amqp|messag(?:e|es|ing)|consumers?|exchanges?|celery|kafka|sqs|nats)\b/i, alone: false },
};

/** A function or variable name: a verb or a quantity word, then a capitalised word (getUser, afterAll, maxWorkers). */
const CODE_IDENTIFIER =
  /^(?:get|set|use|is|has|on|handle|init|max|min|after|before|fetch|create|update|delete|load|make|to|from|remove|add|read|write|parse|render|build|run|start|stop|local|session|request|response|with|should|can|do|find|check|validate|format|compute|process)\p{Lu}\p{Ll}/u;

/**
 * A word that is part of code, not a name: a ticket key (PAY-42, ENG-1234), part of an identifier
 * or a placeholder (APP_, ERR_<AREA>_<NUMBER>), a flag or a setting's key (-XX:..., MAX_POOL=40).
 */
function partOfCode(text: string, u: Unit): boolean {
  const before = text[u.start - 1] ?? " ";
  const after = text[u.end] ?? " ";
  if (before === "_" || before === "<" || after === "_" || after === ">" || after === "=" || after === ":") return true;
  if (after === "-" && /^\p{Lu}+$/u.test(u.text) && /^-\d/.test(text.slice(u.end, u.end + 2))) return true;
  return before === "-" && /\s/.test(text[u.start - 2] ?? " ");
}

function looksTechnical(u: Unit): boolean {
  const t = u.text;
  // a word of a-z alone has no capital, digit or dot, so no test below can say yes: the common
  // case answers without compiling the Unicode patterns
  if (asciiLowerWord(t)) return false;
  if (t.length < 2 || NOT_TERMS.has(u.lower) || LOW_VALUE.test(t)) return false;
  if (/^v?\d/.test(u.lower) || /^\d/.test(t)) return false; // versions and numbers
  // a code identifier (afterAll, maxWorkers, initContainer, useCart.ts) is no name; iOS, macOS, pgBouncer are
  if (CODE_IDENTIFIER.test(t)) return false;
  if (/\p{Ll}\p{Lu}/u.test(t)) return true; // CamelCase: GraphQL, PgBouncer, macOS
  if (/^\p{L}+\d[\p{L}\d]*$/u.test(t)) return true; // letters then digits: EC2, Log4j
  if (/^\p{Lu}{2,6}$/u.test(t)) return true; // an acronym: ACL, ORM
  if (/^\p{L}[\p{L}\d-]*\.(?:js|ts|io|net|py|rs|sh)$/iu.test(t)) return true; // moment.js, socket.io
  return false;
}

/** A span of the sentence whose leading capitalized word is the name of something (what was chosen). */
export interface Span {
  start: number;
  end: number;
}

const LEADING_FILLER = new Set(["the", "a", "an", "our", "my", "their", "its", "this", "that", "using", "to", "use", "with"]);

/**
 * The entities of a text, in order of appearance, each once (every mention with `all`). `heads`
 * are spans (the chosen thing, the alternatives) whose first word names an entity when
 * capitalized (Hazelcast).
 */
export function findMentions(text: string, heads: readonly Span[] = [], all = false): Mention[] {
  // a URL or a path is not prose: its words are no entities
  // (only a text holding "://" has one: the pattern is not compiled for the others)
  const masked = text.includes("://") ? text.replace(/\b[a-z][a-z0-9+.-]{0,30}:\/\/\S+/gi, (m) => " ".repeat(m.length)) : text;
  const us = units(masked);
  const found: Mention[] = [];
  const covered = new Set<number>();
  const shouting = (masked.match(/\p{Lu}/gu)?.length ?? 0) > (masked.match(/\p{Ll}/gu)?.length ?? 0);
  for (let i = 0; i < us.length; i++) {
    let hit: ReturnType<typeof aliasHit>;
    // no key is longer than the longest starting with this unit (none: no lookup at all)
    for (let n = Math.min(MAX_ALIAS_UNITS, us.length - i, longestAliasFrom(us[i]!.lower)); n >= 1 && !hit; n--) {
      // units of one alias must be adjacent in the text (a space or a hyphen apart, no comma)
      if (n > 1 && !adjacent(masked, us, i, n)) continue;
      let key = us[i]!.lower;
      for (let k = 1; k < n; k++) key += ` ${us[i + k]!.lower}`;
      const h = aliasHit(key);
      if (h && aliasFits(h.alias, us, i, n)) hit = h;
    }
    if (hit) {
      const last = us[i + hit.length - 1]!;
      found.push({ name: hit.entry.name, kind: hit.entry.kind, category: hit.entry.category, start: us[i]!.start, end: last.end });
      for (let k = 0; k < hit.length; k++) covered.add(i + k);
      i += hit.length - 1;
    }
  }
  for (let i = 0; i < us.length; i++) {
    const u = us[i]!;
    // own keys only: "constructor" is a word of prose too (an inherited key crashed capture)
    const ctx = covered.has(i) || !Object.hasOwn(CONTEXT_ALIASES, u.lower) ? undefined : CONTEXT_ALIASES[u.lower];
    if (!ctx) continue;
    const fits = ctx.written.test(u.text) && ctx.context.test(masked);
    // out of its context the short name is no entity at all ("ES" the locale code)
    if (fits || ctx.alone) covered.add(i);
    if (!fits) continue;
    const entry = vocabularyEntry(ctx.name);
    if (!entry) continue;
    found.push({ name: entry.name, kind: entry.kind, category: entry.category, start: u.start, end: u.end });
  }
  const headUnits = new Set(heads.map((h) => headOf(us, h)).filter((i) => i !== -1));
  for (let i = 0; i < us.length; i++) {
    if (covered.has(i)) continue;
    const u = us[i]!;
    if (!shouting && looksTechnical(u) && !partOfCode(masked, u)) found.push({ name: u.lower, kind: "term", category: null, start: u.start, end: u.end });
    else if (headUnits.has(i) || namedByTool(masked, us, i)) {
      // what was chosen or what serves ("We use Next for the site"): a word-like alias names its thing here
      const named = aliasHit(u.lower);
      const entry = named?.alias.versionOnly ? named.entry : undefined;
      found.push(entry ? { name: entry.name, kind: entry.kind, category: entry.category, start: u.start, end: u.end } : { name: u.lower, kind: "term", category: null, start: u.start, end: u.end });
    }
  }
  found.sort((a, b) => a.start - b.start);
  if (all) return found;
  const seen = new Set<string>();
  return found.filter((m) => !seen.has(m.name) && seen.add(m.name));
}

/**
 * A verb of how a tool serves, then a preposition: "served by Flagsmith", "built with Starlight",
 * "moves to Instatus", "runs on Gotenberg", "uses Chalk". What follows names the tool even when no
 * table knows it; people are met with other verbs ("agreed with Tom", "talked to Priya").
 */
const TOOL_VERBS = new Set(
  "served built shipped hosted run runs running resized scanned evaluated generated deployed managed handled powered backed processed rendered tracked routed signed tested moves moving moved migrating migrated switching switched replaced goes go going put putting hosting uses use using".split(" "),
);
const TOOL_PREPS = new Set(["by", "with", "on", "onto", "to", "through", "via", "in", "from"]);
/** "ruled out Hasura", "settled on Biome": a choice's verb of two words, then the name. */
const CHOICE_PAIRS = new Set(["ruled out", "standardised on", "standardized on", "settled on", "landed on"]);

/** Whether unit i is a capitalised word (not the text's first, not a known non-name) after a verb of TOOL_VERBS. */
function namedByTool(text: string, us: readonly Unit[], i: number): boolean {
  const u = us[i]!;
  if (i === 0 || startsAsciiNonCapital(u.text) || !/^\p{Lu}\p{Ll}[\p{L}\d.]*$/u.test(u.text) || NOT_TERMS.has(u.lower) || LOW_VALUE.test(u.text)) return false;
  // "Bunny CDN", "Temporal Cloud": a name of two capitalised words is not one word of it
  const next = us[i + 1];
  if (next && /^\p{Lu}/u.test(next.text) && /^\s$/.test(text.slice(u.end, next.start))) return false;
  const p1 = us[i - 1]!.lower;
  const p2 = us[i - 2]?.lower;
  if (TOOL_VERBS.has(p1)) return true;
  return p2 !== undefined && ((TOOL_PREPS.has(p1) && TOOL_VERBS.has(p2)) || CHOICE_PAIRS.has(`${p2} ${p1}`));
}

/** Whether a word is made of a-z only. */
function asciiLowerWord(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return t.length > 0;
}

/** Whether a word starts with an ASCII character other than A-Z: it cannot start with \p{Lu}. */
function startsAsciiNonCapital(t: string): boolean {
  const c = t.charCodeAt(0);
  return c <= 0x7f && !(c >= 0x41 && c <= 0x5a);
}

function adjacent(text: string, us: Unit[], i: number, n: number): boolean {
  for (let k = 0; k < n - 1; k++) {
    const gap = text.slice(us[i + k]!.end, us[i + k + 1]!.start);
    if (!/^[\s/-]{0,3}$/.test(gap) || (gap.length > 1 && gap.trim() !== "")) return false;
  }
  return true;
}

/**
 * The unit that names the thing in a span: its first word after fillers, when capitalized like a
 * name, not the first word of the text, and not followed by another capitalized word. -1: none.
 */
function headOf(us: Unit[], span: Span): number {
  let i = lowerBound(us, span.start);
  while (i < us.length && us[i]!.end <= span.end && LEADING_FILLER.has(us[i]!.lower)) i++;
  const u = us[i];
  if (!u || u.end > span.end || u.start === 0) return -1;
  if (!/^\p{Lu}[\p{Ll}\d.+#]+$/u.test(u.text) || NOT_TERMS.has(u.lower)) return -1;
  const next = us[i + 1];
  if (next && next.start < span.end && /^\p{Lu}/u.test(next.text)) return -1;
  return i;
}

/** The first unit starting at or after pos (units are in order). */
function lowerBound(us: Unit[], pos: number): number {
  let lo = 0;
  let hi = us.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (us[mid]!.start < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const ADVERBS = /\b(?:now|also|still|already|really|actually|heavily|mostly|only|just|currently|then)\b/g;

const VERB_RELATIONS: [EntityRelationType, RegExp][] = [
  ["USES", /^(?:uses|use|using|is using|are using|runs on|run on|running on|is built on|built on|on top of|backed by|powered by|with|via|through|talks to|stores (?:its )?data in|stores in|writes to|reads from|(?:which|that) (?:uses|runs on))$/],
  ["REQUIRES", /^(?:requires|require|required|needs|need|depends on|depend on|relies on|rely on|is dependent on|(?:which|that) (?:requires|needs|depends on))$/],
  ["ENABLES", /^(?:enables|enable|allows|allow|lets us use|unlocks|makes possible|gives us|provides|supports|(?:which|that) (?:enables|allows|gives us|supports))$/],
  ["PREFERS", /^(?:prefers|prefer|favors|favours|recommends)$/],
];

/**
 * Typed relations stated between two neighbouring entities ("FastAPI uses Pydantic", "Celery
 * requires a broker like Redis" is not: the words between must be the verb alone).
 */
export function verbRelations(text: string, mentions: readonly Mention[]): EntityRelation[] {
  const out: EntityRelation[] = [];
  for (let i = 0; i + 1 < mentions.length; i++) {
    const a = mentions[i]!;
    const b = mentions[i + 1]!;
    const raw = text.slice(a.end, b.start);
    // a clause break between them: they are in different statements
    if (/[,;:.!?()]/.test(raw)) continue;
    const between = raw.toLowerCase().replace(ADVERBS, " ").replace(/\s+/g, " ").trim();
    if (!between || between.length > 30) continue;
    for (const [type, re] of VERB_RELATIONS) {
      if (re.test(between)) {
        out.push({ from: a.name, type, to: b.name });
        break;
      }
    }
  }
  return out;
}

/** Relations once each, never an entity to itself. */
export function uniqueRelations(rels: readonly EntityRelation[]): EntityRelation[] {
  const seen = new Set<string>();
  const out: EntityRelation[] = [];
  for (const r of rels) {
    const k = `${r.from}\u0000${r.type}\u0000${r.to}`;
    if (r.from === r.to || seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}

export { type EntityKind };
