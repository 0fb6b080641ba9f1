import type { EntityRelation } from "../model/memory.ts";
import { findMentions, type Mention, type Span, uniqueRelations, units, verbRelations, vocabularyEntryOfWords } from "./entities.ts";
import {
  BOOSTERS,
  CONSTRAINT,
  DECISION_TRIGGERS,
  HEDGES,
  HYPOTHETICAL,
  INTERJECTIONS,
  LEADING_WHY,
  type Marker,
  MARKERS,
  mayMatch,
  negatedBefore,
  POLITE_RULE,
  POSITIVE_AFTER_AGAINST,
  PREFERENCE_TRIGGERS,
  PROBLEM_TRIGGERS,
  QUESTION_START,
  RATIONALE_SENTENCE,
  REQUEST,
  type SignalType,
  SO_BEFORE,
  SOLUTION_TRIGGERS,
  TRADEOFF_SENTENCE,
  type Trigger,
  undecided,
  reported,
  CREDENTIAL,
  DEICTIC_TASK,
  REMEMBER_LEAD,
  SETTLED_TAIL,
  STATED,
  RULE_START,
  WH_SUBJECT,
  CLEFT,
} from "./signals.ts";
import { prepareText, splitSentences } from "./text.ts";
import { machineShape } from "./machine-made.ts";
import { workOrder } from "./work-order.ts";
import { spellShape, troubleReport } from "./trouble-report.ts";
import { OUR_CHOICE } from "./outsider-act.ts";
import { standingFailure } from "./standing-failure.ts";
import { scopedInstruction } from "./scoped-instruction.ts";
import { ACCEPTED, type CueReading, isHousePractice, isTrouble, mayHoldCue, PASSING, readCues, standingInstruction, troubleKeptAway } from "./cues.ts";
import { mySetup, passingTrouble, smallTalk, statusNow, suggestionOnly } from "./passing-talk.ts";
import { saidToKeep, sessionTalk, sessionTalkForModel } from "./session-talk.ts";
import { devTalk } from "../dev-words.ts";
import { hollow, notOurs, othersOwn, someoneDescribed } from "./not-ours.ts";
import { type Opinion, opinionFeatures, type RulesVerdict, retypeOf, SHIPPED_OPINION, secondOpinion, type SentenceSeen } from "./second-opinion.ts";
import { holds, searched } from "./pattern-gate.ts";

// Implicit capture, pure: from the text of a prompt to the memories it states. Each sentence is
// read on its own: guards first (questions, requests to the assistant, hypotheticals, negations),
// then the signal (decision, preference, problem, solution), then the parts of what it says —
// the thing chosen, the alternatives turned down, the reason, the constraints and the costs —
// each a field of its own, never the whole sentence as "what". Entities come from the curated
// vocabulary; relations are typed and connect two entities, never an entity and free text.

export type CaptureType = SignalType | "fact";

export interface DecisionFields {
  what: string;
  why: string | null;
  alternatives: string[];
  constraints: string[];
  tradeoffs: string[];
}

/** One memory to store: the record fields capture decides. */
export interface Capture {
  type: CaptureType;
  content: string;
  decision: DecisionFields | null;
  entities: string[];
  entity_relations: EntityRelation[];
  confidence: number;
  category: string | null;
  scope: "team" | "global";
  importance: "medium" | "high";
  fingerprint: string;
  /** The words that gave it away ("let's use", "i chose"), for the report. */
  signal: string;
}

export interface Skipped {
  text: string;
  reason: string;
}

export interface Extraction {
  captures: Capture[];
  /** Sentences read and not stored, each with why. */
  skipped: Skipped[];
  /** Parts of the text set aside before reading (code blocks, log lines...). */
  ignored: string[];
  /** When nothing is stored: the reason, in a few words. */
  reason: string | null;
  /** Kinds of secrets replaced by markers before anything was read. */
  redacted: string[];
  privateRemoved: boolean;
}

// --- small text helpers --------------------------------------------------------------------

const PRONOUN_OBJECT = /^(?:it|this|that|them|these|those|one|the same|something|anything|whatever|either|both|him|her|you|me|us|either one|this one|that one|the other one)$/i;

/** An object that points back at the conversation ("this approach", "option 2"): nothing to keep. */
const VAGUE_OBJECT =
  /^(?:(?:this|that|the|your|my|our|their|these|those|a|an)\s+)?(?:(?:same|first|second|third|last|other|previous|above|new|former|latter|better|simpler|suggested|proposed)\s+)*(?:approach|one|ones|way|option|solution|idea|version|method|plan|thing|pattern|suggestion|proposal|choice|design|variant|alternative|fix)(?:\s+(?:\d+|[a-c]))?(?:\s+(?:as before|from before|above|below|here|you (?:suggested|proposed|mentioned)))?$/i;

const TRAILING_FILLER =
  /(?:\s+|^)(?:instead|here|now|from now on|going forward|for now|for everything|too|as well|again|anymore|any more|then|please|though|by default|in general|from here on|last (?:year|month|week|quarter|sprint)|this (?:year|month|week|quarter|sprint)|yesterday|today|recently|a while ago|in (?:19|20)\d\d)\s*$/i;

const EDGE_LEFT = new Set([..." ,;:.!—–-\"'“”‘’("]);
const EDGE_RIGHT = new Set([..." ,;:.!?—–-\"'“”‘’)"]);

/** Strip edge punctuation with a loop: a regex like /[,.]+$/ is quadratic on a long run of dots. */
function trimEdges(t: string): string {
  let a = 0;
  let b = t.length;
  // a bracket the phrase itself opened or closes stays ("Redis (30 min TTL)", not "Redis (30 min TTL")
  const count = (c: string, from: number, to: number) => t.slice(from, to).split(c).length - 1;
  while (a < b && EDGE_LEFT.has(t[a]!) && !(t[a] === "(" && count(")", a, b) > count("(", a + 1, b))) a++;
  while (b > a && EDGE_RIGHT.has(t[b - 1]!) && !(t[b - 1] === ")" && count("(", a, b) > count(")", a, b - 1))) b--;
  return t.slice(a, b);
}

/** Trim a phrase to what it names: no edge punctuation, no "to"/"using" in front, no filler after. */
export function cleanPhrase(text: string, max = 160): string {
  let t = text.replace(/\s+/g, " ").trim();
  if (t.length > max * 4) t = t.slice(0, max * 4);
  for (let i = 0; i < 4; i++) {
    const before = t;
    t = trimEdges(t)
      .replace(/^(?:to\s+(?=\S+\s)|using\s+|the use of\s+)/i, "")
      .replace(TRAILING_FILLER, "");
    if (t === before) break;
  }
  if (t.length > max) {
    const cut = t.slice(0, max);
    const clause = cut.search(/[,;(—–]/);
    t = clause > 20 ? cut.slice(0, clause) : cut.slice(0, Math.max(cut.lastIndexOf(" "), 20));
  }
  return trimEdges(t.trim());
}

export const FINGERPRINT_FILLER = new Set(["a", "an", "the", "our", "my", "your", "their", "its", "this", "that", "these", "those", "we", "i", "just", "really", "very", "also", "to", "use", "using"]);

/** Short forms people alternate with the long ones ("the analytics DB" = "the analytics database"). */
export const SHORT_FORMS: Record<string, string> = {
  db: "database", dbs: "database", databases: "database", repo: "repository", repos: "repository", config: "configuration",
  prod: "production", dev: "development", env: "environment", app: "application", apps: "application", svc: "service",
  services: "service", msg: "message", msgs: "message", messages: "message", perf: "performance", auth: "authentication",
  endpoints: "endpoint", tests: "test", docs: "documentation", deps: "dependencies", dependency: "dependencies",
};

/**
 * The normalized form of a statement, for finding the same one again: lowercase, aliases made
 * canonical (postgres -> postgresql, k8s -> kubernetes), fillers and punctuation dropped.
 */
export function normalizeStatement(text: string): string {
  const us = units(text.toLowerCase());
  // What vocabularyEntry() would read from each unit (units() of joined words is the units of
  // each word in turn), worked out once per distinct word instead of once per window: a 40 KB
  // memory took a second of CPU here.
  const seen = new Map<string, string[]>();
  const words = us.map((u) => {
    let w = seen.get(u.lower);
    if (!w) seen.set(u.lower, (w = units(u.lower).map((x) => x.lower)));
    return w;
  });
  const out: string[] = [];
  const window: string[] = [];
  for (let i = 0; i < us.length; i++) {
    let matched = false;
    for (let n = Math.min(4, us.length - i); n >= 1 && !matched; n--) {
      window.length = 0;
      for (let k = i; k < i + n; k++) window.push(...words[k]!);
      const entry = vocabularyEntryOfWords(window);
      if (entry) {
        out.push(entry.name);
        i += n - 1;
        matched = true;
      }
    }
    if (!matched && !FINGERPRINT_FILLER.has(us[i]!.lower)) {
      const w = us[i]!.lower.replace(/['’]/g, "");
      out.push(SHORT_FORMS[w] ?? w);
    }
  }
  return out.join(" ").trim();
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable tag for a long statement. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** type:normalized statement; a long statement keeps its first words and a hash of all of it. */
export function fingerprintOf(type: string, statement: string): string {
  const norm = normalizeStatement(statement) || statement.toLowerCase().replace(/\s+/g, " ").trim();
  return `${type}:${norm.length > 200 ? `${norm.slice(0, 200)}#${fnv1a(norm)}` : norm}`;
}

// --- categories -----------------------------------------------------------------------------

const CATEGORY_WORDS: [RegExp, string][] = [
  [/\b(?:auth|authentication|authorization|login|logins|sign-?in|oauth|sessions?|passwords?|permissions?)\b/i, "auth"],
  [/\b(?:databases?|db|dbs|sql|quer(?:y|ies)|schemas?|migrations?|tables?|indexes|rows)\b/i, "database"],
  [/\b(?:cach(?:e|es|ing))\b/i, "cache"],
  [/\b(?:tests?|testing|specs?|coverage|fixtures?)\b/i, "testing"],
  [/\b(?:deploy(?:s|ment|ments)?|releases?|pipelines?|ci|builds?)\b/i, "devops"],
  [/\b(?:endpoints?|api|apis|pagination|routes?|requests?|responses?)\b/i, "api"],
  [/\b(?:css|styles?|styling|ui|components?|layouts?|frontend|pages?)\b/i, "frontend"],
  [/\b(?:logs?|logging|metrics|monitoring|tracing|alerts?|observability)\b/i, "observability"],
  [/\b(?:performance|latency|throughput|slow|fast|memory)\b/i, "performance"],
  [/\b(?:security|secrets?|encryption|vulnerabilit(?:y|ies)|injection)\b/i, "security"],
  [/\b(?:errors?|exceptions?|retries|retry)\b/i, "error-handling"],
  [/\b(?:docs|documentation|readme|comments?)\b/i, "docs"],
  [/\b(?:dependenc(?:y|ies)|packages?|versions?|upgrades?)\b/i, "dependencies"],
  [/\b(?:git|branch(?:es)?|commits?|merges?|rebase|pull requests?)\b/i, "vcs"],
  [/\b(?:naming|formatting|indentation|style guide|lint(?:ing)?|code style)\b/i, "code-style"],
];

export function categoryOf(chosen: readonly Mention[], all: readonly Mention[], text: string): string | null {
  for (const m of [...chosen, ...all]) if (m.category) return m.category;
  for (const [re, cat] of CATEGORY_WORDS) if (re.test(text)) return cat;
  return null;
}

const PROJECT_SPECIFIC =
  /\b(?:our|here|in this|this (?:repo|project|codebase|app|service|module|file|package|team|component|one)|the\s+[\w-]+\s+(?:db|database|service|module|app|api|repo|project|endpoint|cluster|server|table|component|page|team|pipeline|job|queue|bucket|script))\b/i;

// --- one sentence ---------------------------------------------------------------------------

interface Found {
  trigger: Trigger;
  start: number;
  end: number;
  text: string;
  groups: (string | undefined)[];
}

function firstMatch(trigger: Trigger, s: string, from: number): Found | null {
  const sub = s.slice(from);
  const m = trigger.re.exec(sub);
  if (!m) return null;
  return { trigger, start: from + m.index, end: from + m.index + m[0].length, text: m[0], groups: [...m] };
}

/** Every trigger that matches, in the order they are tried: solutions, then decisions and preferences by position, then problems. */
function candidates(s: string, from: number, strongOnly: boolean): Found[] {
  const lower = s.slice(from).toLowerCase();
  const pick = (list: Trigger[]) =>
    list
      .filter((t) => (!strongOnly || t.strong) && mayMatch(t, lower))
      .map((t) => firstMatch(t, s, from))
      .filter((f): f is Found => f !== null)
      .sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  if (strongOnly) return pick([...DECISION_TRIGGERS, ...PREFERENCE_TRIGGERS]);
  return [...pick(SOLUTION_TRIGGERS), ...pick([...DECISION_TRIGGERS, ...PREFERENCE_TRIGGERS]), ...pick(PROBLEM_TRIGGERS)];
}

interface Seg {
  kind: Marker["kind"];
  start: number;
  end: number;
  textStart: number;
}

/** The markers after the object (alternatives, reasons, costs), in order, not overlapping. */
/**
 * "Use pnpm over npm": after a verb that is not one of choosing, "over" turns down an alternative
 * only between two things of one kind (two package managers); "gRPC over HTTP/2" is transport.
 */
function sameKindAcross(s: string, from: number, at: number, after: number): boolean {
  // bounded windows: one look per "over", however long the sentence
  const cats = new Set(findMentions(s.slice(Math.max(from, at - 120), at)).map((m) => m.category).filter(Boolean));
  const next = findMentions(s.slice(after, after + 80))[0];
  return Boolean(next?.category && cats.has(next.category));
}

function markersFrom(s: string, from: number, chooser: boolean, prefer: boolean): Seg[] {
  const all: (Seg & { rank: number })[] = [];
  MARKERS.forEach((mk, rank) => {
    if (mk.only === "prefer" && !prefer) return;
    mk.re.lastIndex = from;
    for (let m = mk.re.exec(s); m; m = mk.re.exec(s)) {
      if (m[0].length === 0) {
        mk.re.lastIndex++;
        continue;
      }
      if (mk.only === "chooser" && !chooser && !sameKindAcross(s, from, m.index, m.index + m[0].length)) continue;
      all.push({ kind: mk.kind, start: m.index, end: m.index + m[0].length, textStart: m.index + m[0].length, rank });
    }
  });
  all.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const out: Seg[] = [];
  let sawWhy = false;
  for (const m of all) {
    const last = out[out.length - 1];
    if (last && m.start < last.end) continue;
    // inside a reason, "not"/"over" belong to the reason; only a cost ends it
    if (sawWhy && m.kind !== "tradeoff") continue;
    if (m.start <= from) continue;
    if (m.kind === "why") sawWhy = true;
    out.push(m);
  }
  return out;
}

function splitAlternatives(text: string): { items: string[]; rest: string } {
  const stop = /\s(?:for|in|on|at|as|when|with|within|across|because|since|so|which|where|if|during|inside)\s/i.exec(` ${text} `);
  const head = stop ? ` ${text} `.slice(0, stop.index).trim() : text;
  const rest = stop ? ` ${text} `.slice(stop.index).trim() : "";
  const items = head
    .split(/\s*(?:,|;|\bor\b|\band\b|\bnor\b|\s\/\s)\s*/i)
    .map((x) => cleanPhrase(x, 80).replace(/^(?:the|a|an|using)\s+/i, ""))
    .filter((x) => x.length > 0 && !PRONOUN_OBJECT.test(x));
  return { items, rest };
}

const CONSTRAINT_END = /[,;.!?]|\s(?:but|so|because|and then|which)\s/gi;

function constraintsIn(s: string): string[] {
  const out: string[] = [];
  let until = -1;
  CONSTRAINT.lastIndex = 0;
  for (let m = CONSTRAINT.exec(s); m; m = CONSTRAINT.exec(s)) {
    if (m.index < until) continue;
    const from = /^constraints?:/i.test(m[0]) ? m.index + m[0].length : m.index;
    CONSTRAINT_END.lastIndex = from;
    const end = CONSTRAINT_END.exec(s)?.index ?? s.length;
    until = end;
    const text = cleanPhrase(s.slice(from, end), 150);
    if (text.split(" ").length >= 2 && !out.includes(text) && out.length < 10) out.push(text);
  }
  return out;
}

interface Draft {
  type: SignalType;
  content: string;
  what: string;
  whys: string[];
  alternatives: string[];
  constraints: string[];
  tradeoffs: string[];
  /** For a solution: the problem it fixes. */
  problem: string | null;
  trigger: Trigger;
  signal: string;
  mentions: Mention[];
  chosen: Mention[];
  rejected: Mention[];
  relations: EntityRelation[];
  hedged: boolean;
  boosted: boolean;
  projectSpecific: boolean;
}

type Reading =
  | { kind: "capture"; draft: Draft }
  | { kind: "skip"; reason: string }
  | { kind: "none" }
  | { kind: "rationale"; why: string }
  | { kind: "tradeoff"; text: string };

/** Below this, a statement is too tentative to keep ("I think we should use Redis for now"). */
export const MIN_CONFIDENCE = 0.5;

const NO_SIGNAL = "no decision, preference, problem or solution in it";

function clauseAround(s: string, start: number, end: number): { start: number; end: number } {
  let a = start;
  while (a > 0 && !/[,;:]/.test(s[a - 1]!)) a--;
  let b = end;
  while (b < s.length && !/[,;]/.test(s[b]!)) b++;
  return { start: a, end: b };
}

function within(m: Mention, spans: readonly Span[]): boolean {
  return spans.some((sp) => m.start >= sp.start && m.end <= sp.end);
}

/** Read one candidate trigger: the draft of a memory, or why it does not hold. */
function readTrigger(s: string, found: Found, from: number): Draft | string {
  const t = found.trigger;
  // "we run migrations in their own job so a failed one doesn't take the app down": the cue reading's practice
  if (t.type === "problem" && troubleKeptAway(s, found.start)) return "trouble a practice keeps away";
  // what comes before the trigger: a reason, a problem, or words that undo it
  let prefix = s.slice(from, found.start);
  const leadingWhys: string[] = [];
  const lead = LEADING_WHY.exec(prefix);
  if (lead) {
    leadingWhys.push(cleanPhrase(lead[1]!));
    prefix = prefix.slice(lead[0].length);
  }
  const so = SO_BEFORE.exec(prefix);
  let problemBefore: string | null = null;
  if (so) {
    problemBefore = cleanPhrase(prefix.slice(0, so.index));
    // "X keeps timing out, so let's ...": for a choice, the trouble before is its reason
    if (t.type !== "solution" && problemBefore) leadingWhys.push(problemBefore);
    prefix = "";
  }
  if (t.type !== "solution" && t.subjectGroup === undefined) {
    if (HYPOTHETICAL.test(prefix.replace(IF_NOUN, ""))) return "hypothetical, not decided";
    if (negatedBefore(prefix)) return "negated";
    // "yes, do it the way you suggested: ...": the user's own word on the assistant's plan
    if (reported(prefix) && !ACCEPTED.test(prefix)) return "someone else's view, reported";
  }
  if (t.type === "decision" || t.type === "preference") {
    if (undecided(s)) return "not decided yet";
  }
  if (t.type === "problem" && PASSING.test(s)) return "a passing state, not a problem to keep";

  const text = found.text.toLowerCase();
  const chooser = /choos|chose|pick|select|prefer|opt|went with|going with|go with|settle|rather|sticking with/.test(text);
  const prefer = /prefer|rather/.test(text);
  let objStart = found.end;
  let against = Boolean(t.against);
  const alternatives: string[] = [];
  const altSpans: Span[] = [];
  const chosenSpans: Span[] = [];
  let what = "";
  let type: SignalType = t.type;

  if (t.subjectGroup !== undefined) {
    const subject = found.groups[t.subjectGroup] ?? "";
    const at = Math.max(found.start, s.indexOf(subject, found.start));
    what = cleanPhrase(subject);
    chosenSpans.push({ start: at, end: at + subject.length });
    // "X was slow because Y; doing Z fixed it": the trouble before the fix is its problem
    if (at > from) problemBefore ??= problemIn(s.slice(from, at));
    objStart = found.end;
  }
  if (t.altGroup !== undefined && found.groups[t.altGroup]) {
    const alt = found.groups[t.altGroup]!;
    const at = s.indexOf(alt, found.start);
    alternatives.push(...splitAlternatives(alt).items);
    if (at !== -1) altSpans.push({ start: at, end: at + alt.length });
  }

  // "don't use var, use const": against one thing, for another
  if (against && !t.keepTrigger) {
    const pos = POSITIVE_AFTER_AGAINST.exec(s.slice(objStart));
    if (pos) {
      const p = objStart + pos.index;
      let rejected = s.slice(objStart, p);
      // "stop using Moment.js because it is huge; use date-fns": the reason is the choice's
      const because = markersFrom(rejected, 0, false, false).find((m) => m.kind === "why");
      if (because) {
        const w = cleanPhrase(rejected.slice(because.textStart), 300);
        if (w) leadingWhys.push(w);
        rejected = rejected.slice(0, because.start);
      }
      alternatives.push(...splitAlternatives(rejected).items);
      altSpans.push({ start: objStart, end: p });
      objStart = p + pos[0].length;
      against = false;
      // "don't use var, use const" is a preference; "we dropped nginx and put Caddy in" stays a decision
      type = t.type === "decision" ? "decision" : "preference";
    }
  }

  const segs = t.subjectGroup !== undefined ? markersFrom(s, objStart, false, false).filter((m) => m.kind !== "alt") : markersFrom(s, objStart, chooser, prefer);
  const firstAt = segs.length ? segs[0]!.start : s.length;
  if (!what) {
    if (t.policy) {
      // "From now on, every commit follows X": the sentence without the words that mark it
      const body = `${s.slice(from, found.start)} ${s.slice(found.end)}`;
      // "From now on, always run the linter": the rule after the words is read as a rule
      if (RULE_START.test(cleanPhrase(body).replace(/^(?:please|pls)\s+/i, ""))) return "a rule follows";
      const cut = body.search(/;/);
      what = cleanPhrase(cut === -1 ? body : body.slice(0, cut)).replace(/^(?:please|pls)\s+/i, "");
      chosenSpans.push({ start: from, end: s.length });
    } else if (t.wholeClause) {
      const c = clauseAround(s, found.start, found.end);
      what = cleanPhrase(s.slice(c.start, Math.max(c.end, found.end)));
      chosenSpans.push(c);
    } else {
      what = cleanPhrase(s.slice(objStart, firstAt));
      chosenSpans.push({ start: objStart, end: firstAt });
    }
  }
  const whys: string[] = [...leadingWhys];
  const tradeoffs: string[] = [];
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const end = i + 1 < segs.length ? segs[i + 1]!.start : s.length;
    const body = s.slice(seg.textStart, end);
    if (seg.kind === "why") {
      const w = cleanPhrase(body, 300);
      if (w) whys.push(w);
    } else if (seg.kind === "tradeoff") {
      const c = cleanPhrase(body, 200);
      if (c) tradeoffs.push(c);
    } else if (!t.wholeClause) {
      const { items, rest } = splitAlternatives(body);
      alternatives.push(...items);
      altSpans.push({ start: seg.textStart, end: seg.textStart + body.length - rest.length });
      // "Redis over Memcached for caching": the purpose belongs to the choice
      if (rest && what && !/\s(?:for|in|on|as)\s/i.test(` ${what} `)) what = `${what} ${cleanPhrase(rest)}`.trim();
    }
  }

  if (!what) return t.type === "solution" ? "names no fix" : "names nothing that was chosen";
  // "the fix is in review, should land tomorrow": where the fix is, not what it is
  if (t.type === "solution" && /^(?:in (?:review|progress|ci|qa|staging)|merged|deployed|ready|pending|coming|landing|on (?:its|the) way|up for review|waiting)\b/i.test(what)) return "progress on a fix, not the fix";
  if (t.type !== "problem" && handsOverCredential(what)) return "hands over a credential for a task";
  if (t.rule && DEICTIC_TASK.test(s)) return "a task on the code at hand";
  if (PRONOUN_OBJECT.test(what) || VAGUE_OBJECT.test(what) || /^(?:it|this|that|them|things)\s+(?:up|back|over)\b/i.test(what)) return "refers to something said before (\"it\", \"this approach\"), not a thing";
  if (against) {
    if (t.keepTrigger) {
      const word = /\bnever\b/i.exec(found.text);
      what = `${word ? found.text.slice(word.index).trim().toLowerCase() : "never"} ${what}`;
    } else {
      altSpans.push(...chosenSpans.splice(0));
      what = `avoid ${what}`;
    }
  }

  const heads = [...chosenSpans, ...altSpans];
  const all = findMentions(s, heads, true);
  const seenNames = new Set<string>();
  const mentions = all.filter((m) => !seenNames.has(m.name) && seenNames.add(m.name));
  const chosen = mentions.filter((m) => within(m, chosenSpans));
  // the thing chosen, not its purpose: in "Redis for caching, not Memcached" caching was not chosen over anything
  const thingSpans = chosenSpans.map((sp) => {
    const purpose = /\s(?:for|in|on|as|at|across|within|to|when)\s/i.exec(s.slice(sp.start, sp.end));
    return purpose ? { start: sp.start, end: sp.start + purpose.index } : sp;
  });
  const chosenThings = chosen.filter((m) => within(m, thingSpans));
  const rejected = mentions.filter((m) => within(m, altSpans));
  // "we got rid of nginx": what is argued against is the thing named
  const named = t.against ? [...chosen, ...rejected] : chosen;
  if (t.needsEntity && !named.some((m) => m.kind !== "term" || /\p{Lu}/u.test(s.slice(m.start, m.end)))) {
    return "names nothing known (no technology, pattern or tool)";
  }
  if (t.needsKnown && !named.some((m) => m.kind !== "term")) return "names nothing known (no technology, pattern or tool)";
  // "I prefer coffee over tea": a taste about nothing of software is not kept
  // (how the work is written is the work's: "British spelling and the Oxford comma in documents")
  if (type === "preference" && !t.rule && !mentions.some((m) => m.kind !== "term") && !devTalk(s) && !/[`_/.]\w|\b[A-Z]{2,}\b|\b[a-z]+[A-Z]/.test(s) && !WRITTEN_WORK.test(s)) return "not about software";
  // "the suite fails about one run in five on CI": a statement of the stack that states a problem is the problem
  if (t.needsKnown && PROBLEM_TRIGGERS.some((p) => mayMatch(p, s.toLowerCase()) && p.re.test(s))) return "states a problem";

  // "Please use yarn for anything you add for me, not npm": a rule for the assistant's own work
  if (type === "decision" && t.rule && /\b(?:for me|you (?:add|install|write|use|create|generate|hand me|give me))\b/i.test(s)) type = "preference";
  const relations: EntityRelation[] = [];
  if (type === "decision" || type === "preference") {
    for (const c of chosenThings.slice(0, 10)) for (const r of rejected.slice(0, 10)) relations.push({ from: c.name, type: "CHOSE_OVER", to: r.name });
  }
  relations.push(...verbRelations(s, all));

  return {
    type,
    content: s,
    what,
    whys,
    alternatives: [...new Set(alternatives)],
    constraints: constraintsIn(s),
    tradeoffs,
    problem: type === "solution" ? problemBefore ?? (t.subjectGroup === undefined ? problemIn(s.slice(from, found.start)) : null) : null,
    trigger: t,
    signal: cleanPhrase(found.text, 40).toLowerCase(),
    mentions,
    chosen,
    rejected,
    relations,
    hedged: HEDGES.test(s),
    boosted: BOOSTERS.test(s),
    projectSpecific: PROJECT_SPECIFIC.test(s),
  };
}

/** The problem stated before a fix in the same sentence ("tests are flaky; we fixed it by ..."). */
function problemIn(prefix: string): string | null {
  const cut = prefix.search(/[,;:—–]\s*(?:so\s+|and\s+)?(?:we|i|they|you)?\s*$/i);
  const text = cleanPhrase(cut === -1 ? prefix : prefix.slice(0, cut));
  return text.split(" ").length >= 3 ? text : null;
}

const MAX_CLAUSES_AFTER_REQUEST = 8;
/**
 * A sentence that hands on what a text says, not what was decided: "Quoting the ADR: ...", "From
 * the Terraform docs: ...", "The style guide says: ...", "per the RFC: ...", a letter or a ticket
 * quoted the same way ("From the vendor's email: ...", "The journal's guidelines say '...'").
 */
const QUOTE_LEAD =
  /^(?:quoting\b|(?:quote|quoted|excerpt|an excerpt)\s+from\b|(?:from|per|according to|in)\s+(?:the\s+|our\s+|their\s+|its\s+|a\s+)?(?:[\w.'-]+\s+){0,4}?(?:docs?|documentation|readme|adr|rfc|spec|specification|guide|guidelines|manual|wiki|handbook|changelog|release notes|article|blog post|post|faq|man page|book|e-?mail|letter|memo|ticket)\s*:|(?:the\s+|our\s+|their\s+)?(?:[\w.'-]+\s+){0,4}?(?:docs?|documentation|readme|adr|rfc|spec|guide|guidelines|manual|wiki|handbook|changelog|release notes|article|post|faq|e-?mail|letter|memo|ticket)\s+(?:says?|said|states?|reads?)\s*(?::|,?\s*["'\u201c\u2018]))/i;

/** An answer that is none yet: "What we still need to settle: the cache". */
const OPEN_ANSWER = /\b(?:no idea|not sure|unknown|unclear|tbd|to be (?:decided|discussed|defined)|figure out|find out|open question|undecided|(?:need|needs|want|wants|have) to|should|could|might|would|next)\b|\?/i;

/** Clause breaks after which a strong statement may follow a request. */
const CLAUSE_BREAK = /[,;:—–]\s+|\s+(?:and|but|because|since|also)\s+/g;

/**
 * Whether what was "chosen" is itself a credential ("this token for the test", "password hunter2
 * for the admin user"): only the chosen thing counts, not its purpose or reason, so "Vault for API
 * keys" or "Redis, since the config has [REDACTED]" are still decisions.
 */
function handsOverCredential(what: string): boolean {
  // a secret's marker names its kind after a colon ("[REDACTED:aws-access-key]"): before the split
  if (/^[^;:,]*\[REDACTED:/.test(what.split(/\s(?:for|to|in|on|at|when|since|because|so)\s/i)[0]!)) return true;
  return CREDENTIAL.test(what.split(/[;:,]|\s(?:for|to|in|on|at|when|since|because|so)\s/i)[0]!) && !credentialsAsAKind(what);
}

/**
 * Credentials spoken of as a kind, the subject of a habit, with no value handed over: "Database
 * credentials are rotated every 90 days by a scheduled job", "Credentials go into Vault", "Library
 * credentials live in the shared vault". A rule about secrets, not one given for a task.
 */
const CREDENTIALS_KIND =
  /^(?:from now on,?\s+|going forward,?\s+)?(?:all\s+|our\s+|the\s+)?(?:[\w.-]+\s+){0,2}?(?:credentials|tokens|api keys|keys|passwords|secrets|passphrases)\s+(?:(?:for|of|in|on)\s+(?:(?:the|our|a|any|each|every)\s+)?[\w.'-]+(?:\s+[\w.'-]+){0,2}?\s+)?(?:are|get|go|live|stay|must|never|always|should|belong)\b/i;
/** A value given with it: a secret's marker, a login pair, a long token of letters and digits. */
const CREDENTIAL_VALUE = /\[REDACTED:|\S\s*\/\s*\S*\d|\b(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{10,}\b/i;
const credentialsAsAKind = (s: string) => CREDENTIALS_KIND.test(s) && !CREDENTIAL_VALUE.test(s);

/** A refusal that opens a clause, with its verb: "let's not add", "we ruled out", "we stopped using". */
const LEADING_REFUSAL =
  /^(?:let(?:'s| us) not|(?:we|i|the team)\s+(?:(?:'ve|have)\s+)?(?:don't|do not|won't|will not|stopped|dropped|ruled out|rejected|turned down|said no to|vetoed))\s+(?:(use|using|adopt|go with|do|add|adding|introduce|introducing|bring in|bringing in|run|running|allow|allowing|ship|shipping|supporting)\s+)?(?=\S)/i;
/** The verbs a refusal keeps after "avoid" (their object alone would read wrong: "avoid Redux to the storefront"). */
const KEPT_VERB: Record<string, string> = { add: "adding", introduce: "introducing", "bring in": "bringing in", run: "running", allow: "allowing", ship: "shipping" };

/** "Let's not add Redux to X" -> "adding Redux to X": what "avoid" goes before. */
function withoutRefusal(what: string): string {
  const m = LEADING_REFUSAL.exec(what);
  if (!m) return what;
  const verb = m[1]?.toLowerCase().replace(/\s+/g, " ");
  const kept = verb ? (KEPT_VERB[verb] ?? (/ing$/.test(verb) && !/^(?:using|supporting)$/.test(verb) ? verb : null)) : null;
  return `${kept ? `${kept} ` : ""}${what.slice(m[0].length)}`;
}

/**
 * The second reading (cues.ts), for a sentence no trigger phrase holds: its cue words and what
 * makes it specific. The guards of the first reading hold for the whole sentence here: a maybe,
 * someone undecided, another's view, a credential handed over are not kept.
 */
function cueDraft(s: string, boosted: boolean, read: (s: string, ctx: Parameters<typeof readCues>[1]) => CueReading | null = readCues): Draft | null {
  // ", ideally under 300 lines,": a qualifier of what is stated, not a maybe
  // ("… runs the same job twice if a worker restarts": a standing failure's "if" is its condition, no maybe)
  if (!mayHoldCue(s) || (HYPOTHETICAL.test(s.replace(/,\s*ideally\b[^,;.]*/gi, "").replace(IF_NOUN, "")) && !ACCEPTED.test(s) && !standingFailure(s)) || undecided(s) || (reported(s) && !ACCEPTED.test(s)) || (CREDENTIAL.test(s) && (/\[REDACTED:/.test(s) || !/\b(?:never|must|always|no)\b/i.test(s)) && !credentialsAsAKind(s)) || DEICTIC_TASK.test(s)) return null;
  const all = findMentions(s, [], true);
  const known = all.filter((m) => m.kind !== "term" || /\p{Lu}/u.test(s.slice(m.start, m.end)));
  const cue = read(s, { known: known.some((m) => m.kind !== "term"), at: known.map((m) => m.start) });
  if (!cue) return null;
  let what = cleanPhrase(cue.what);
  if (!what || PRONOUN_OBJECT.test(what) || VAGUE_OBJECT.test(what)) return null;
  if (cue.type !== "problem" && handsOverCredential(what)) return null;
  // the clause still says how it refused ("Let's not add Redux"): "avoid" replaces that, not precedes it
  if (cue.against && !/^(?:no|not|never|avoid|don't|do not)\b/i.test(what)) what = `avoid ${withoutRefusal(what)}`;
  const seen = new Set<string>();
  const mentions = all.filter((m) => !seen.has(m.name) && seen.add(m.name));
  const whys: string[] = [];
  const because = /\b(?:because(?:\s+of)?|since|due to|bc)\s+([^,;]{3,200})/i.exec(s);
  if (because && cue.type !== "solution") whys.push(cleanPhrase(because[1]!, 300));
  return {
    type: cue.type,
    content: s,
    what,
    whys,
    alternatives: [],
    constraints: constraintsIn(s),
    tradeoffs: [],
    problem: null,
    trigger: { type: cue.type, re: /^/, base: cue.base, against: cue.against },
    signal: cue.signal,
    mentions,
    chosen: mentions,
    rejected: [],
    relations: verbRelations(s, all),
    hedged: HEDGES.test(s),
    boosted,
    projectSpecific: PROJECT_SPECIFIC.test(s),
  };
}

/** A statement kept whole (remembered, or closed as settled): what it says is the decision. */
function statementDraft(text: string, boosted: boolean): Draft | null {
  const what = cleanPhrase(text);
  if (!what || PRONOUN_OBJECT.test(what) || VAGUE_OBJECT.test(what)) return null;
  if (handsOverCredential(what)) return null;
  const all = findMentions(text, [], true);
  const seen = new Set<string>();
  const mentions = all.filter((m) => !seen.has(m.name) && seen.add(m.name));
  return {
    type: "decision",
    content: text,
    what,
    whys: [],
    alternatives: [],
    constraints: constraintsIn(text),
    tradeoffs: [],
    problem: null,
    trigger: STATED,
    signal: "stated",
    mentions,
    chosen: mentions,
    rejected: [],
    relations: verbRelations(text, all),
    hedged: HEDGES.test(text),
    boosted,
    projectSpecific: PROJECT_SPECIFIC.test(text),
  };
}

/** "Design and engineering agreed: ...", "Legal decided ...": who agreed, then what; not a request though its first word can be a verb. */
const AGREED_BY = /^(?:the\s+)?[\w-]+(?:\s+(?:and|&)\s+(?:the\s+)?[\w-]+)?\s+(?:teams?\s+)?(?:agreed|decided|settled on)\b/i;

/**
 * The patterns readSentence searches through pattern-gate.ts (holds, searched): every sentence
 * met them all, compiled on first search; scripts/gen-pattern-words.ts reads their words at build.
 */
export function sentenceGatedPatterns(): RegExp[] {
  return [BOOSTERS, QUOTE_LEAD, REMEMBER_LEAD, SETTLED_TAIL, QUESTION_START, REQUEST, ASKS_WHY, IN_THE_END, LIKED_TAIL, AGREED_TAIL, CLEFT, WHERE_LEAD, LINK_LEAD, INTERJECTIONS, POLITE_RULE, RATIONALE_SENTENCE, TRADEOFF_SENTENCE];
}

/**
 * A verb-looking first word that is a noun's modifier, the plural noun after it the subject of a
 * verb of the present ("Test tenants in the rota app are deleted every Friday", "Push keys for the
 * callout app are kept in Vault"): a statement, not a request ("test the tenants", "push the keys").
 */
const PLURAL_SUBJECT =
  /^[\w-]+\s+[\w-]*[a-z]s\s+(?:(?:in|on|for|of|at|from)\s+(?:(?:the|our|each|every|a|an)\s+)?[\w.'-]+(?:\s+[\w.'-]+){0,2}?\s+)?(?:are|get|go|live|stay|sit|follow|run|need|must|never|always)\b/i;

export function readSentence(sentence: string): Reading {
  const boosted = holds(BOOSTERS, sentence);
  let s = sentence.replace(/[’‘]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, " ").trim();
  if (/\?["')\]]*\s*$/.test(s)) return { kind: "skip", reason: "a question" };
  if (holds(QUOTE_LEAD, s)) return { kind: "skip", reason: "quoted text" };
  // "remember that X", "X, that's settled": the statement is kept whole, as said
  const lead = searched(REMEMBER_LEAD, s);
  const tail = searched(SETTLED_TAIL, s);
  if (lead || tail) {
    const rest = s.slice(lead ? lead[0].length : 0, tail ? tail.index : s.length);
    if (!RULE_START.test(rest) && !holds(QUESTION_START, rest) && !holds(REQUEST, rest) && rest.split(" ").length >= 3) {
      const d = statementDraft(rest, boosted || Boolean(lead));
      if (d) return { kind: "capture", draft: d };
    }
    if (lead) s = s.slice(lead[0].length);
  }
  // "I want to understand why we're using Kafka": a question said as a wish
  if (holds(ASKS_WHY, s)) return { kind: "skip", reason: "a question" };
  // "lots of back and forth, but in the end we're going with X": what was settled after the debate
  const turn = searched(IN_THE_END, s);
  if (turn && DEBATE.test(s.slice(0, turn.index))) {
    const r = readSentence(s.slice(turn.index + turn[0].length));
    if (r.kind === "capture") return r;
  }
  // "Keep names descriptive, that's how I like it": a preference closed as the user's own
  const likedTail = searched(LIKED_TAIL, s);
  if (likedTail) {
    const d = statementDraft(s.slice(0, likedTail.index), boosted);
    if (d && devTalk(s)) return { kind: "capture", draft: { ...d, type: "preference", signal: "how i like it" } };
  }
  // "bump Django to 5.1 across all services, agreed in the platform sync": a task the team agreed on
  const agreedTail = searched(AGREED_TAIL, s);
  if (agreedTail) {
    const d = statementDraft(s.slice(0, agreedTail.index), true);
    if (d && d.mentions.some((m) => m.kind !== "term")) return { kind: "capture", draft: { ...d, signal: "agreed" } };
  }
  // "What we ended up with is a nightly snapshot plus WAL archiving": the team's choice as a wh-subject
  const cleft = searched(CLEFT, s);
  // "Which database we use is ClickHouse": the answer is a thing named, not a verdict ("... is slow")
  const named = (t: string) => findMentions(t).some((m) => m.kind !== "term");
  if (cleft && !undecided(s) && !HYPOTHETICAL.test(s) && (/^which\b/i.test(cleft[0]) ? named(s.slice(cleft[0].length)) : devTalk(s) || named(s))) {
    // "What I want is every endpoint to return problem+json errors": a wish, not trouble
    const wish = /^what\s+i\s+(?:\w+\s+)?(?:want|prefer|like|expect|care about)\b/i.test(cleft[0]);
    const inner = readSentence(s.slice(cleft[0].length));
    if (inner.kind === "capture") return wish && inner.draft.type === "problem" ? { kind: "capture", draft: { ...inner.draft, type: "preference" } } : inner;
    const d = statementDraft(s, boosted);
    if (d) return { kind: "capture", draft: wish ? { ...d, type: "preference" } : d };
  }
  // "Where config lives: everything in env vars", "Where we landed: Postgres for the ledger": a heading
  // of where a thing is kept or what was settled, the answer after its colon
  const where = searched(WHERE_LEAD, s);
  if (where && !undecided(s) && !HYPOTHETICAL.test(s) && (devTalk(s) || findMentions(s).some((m) => m.kind !== "term"))) {
    const d = statementDraft(s, boosted);
    if (d) return { kind: "capture", draft: d };
  }
  // "Which means all new tables get a tenant_id column": what follows the link is the statement
  const link = searched(LINK_LEAD, s);
  if (link) {
    const rest = s.slice(link[0].length);
    const r = readSentence(rest);
    if (r.kind === "capture") return r;
    // "Which is why we pin every GitHub Action to a commit SHA": what we do, for the reason said before
    if (/\bwhy\b/i.test(link[0]) && /^(?:we|the team)\s+(?:always\s+|now\s+)?(?!(?:were|was|had|got|did|went|ran|can|could|should|might|may|need|needed|have|want|wanted)\b)[a-z]+(?<!ed)\s+\S/i.test(rest) && !undecided(rest) && !HYPOTHETICAL.test(rest) && (devTalk(rest) || findMentions(rest).some((m) => m.kind !== "term"))) {
      const d = statementDraft(rest, boosted);
      if (d) return { kind: "capture", draft: { ...d, type: "decision" } };
    }
  }
  // the sentence as said (past "remember that"), for the cue reading: "Why we don't use X: ..." is whole
  const whole = s;
  const ij = searched(INTERJECTIONS, s);
  if (ij) s = s.slice(ij[0].length);
  const polite = searched(POLITE_RULE, s);
  if (polite) s = s.slice(polite[0].length);
  // "Whenever you write a migration, add the down step": an instruction for every task of a kind
  // is a preference; "When you're done with the migration, show me the diff" is a task for now
  // (the one-task reading is notOurs', so that the learned model's adds are turned down the same)
  const scoped = scopedInstruction(s);
  if (scoped === "standing" && !holds(QUESTION_START, s) && !undecided(s)) {
    const d = statementDraft(whole, boosted);
    if (d) return { kind: "capture", draft: { ...d, type: "preference", trigger: { ...d.trigger, type: "preference" }, signal: "scoped instruction" } };
  }
  // "Search was timing out": a verb of the request list used as the subject's noun is no request
  const request = !polite && holds(REQUEST, s) && !/^[\w-]+\s+(?:[\w-]+\s+)?(?:here\s+)?(?:is|was|are|were|has|had|keeps|kept|gets|got|seems|looks|takes|took|arrive|arrives|arrived|hang|hangs|hung|stall|stalls|stalled|lag|lags|lagged|leak|leaks|leaked|freeze|freezes|froze|choke|chokes|choked|end up|ends up|ended up|show up|shows up|showed up|stopped|started|keep|kept|fail|fails|failed|throw|throws|threw|crash|crashes|crashed|broke|breaks|time out|times out|timed out|never|no longer|randomly|sometimes|still|moved|moving|switched|migrated|went|goes|runs|ran|lives|live|sit|sits|belong|belongs|stay|stays|follow|follows|happen|happens|uses)\b/i.test(s) && !PLURAL_SUBJECT.test(s) && !AGREED_BY.test(s);
  if (!request && holds(QUESTION_START, s)) {
    // "How we handle retries is settled: ...", "What we decided is that ...": a statement
    const wh = WH_SUBJECT.exec(s);
    if (!wh) return { kind: "skip", reason: "a question" };
    if (s.slice(wh[0].length).trim()) {
      const r = readSentence(s.slice(wh[0].length));
      if (r.kind === "capture") return r;
      const d = /\b(?:settled|decided|final|agreed)\b/i.test(wh[0]) ? statementDraft(s.slice(wh[0].length), boosted) : cueDraft(whole, boosted);
      if (d) return { kind: "capture", draft: d };
      // "Why we don't use GraphQL: ...": the clause after the wh-word is itself a statement
      // ("How releases work now: tag on main, ...": a heading of how a thing works, the same)
      const clause = /^(?:what|why|how|which)\s+(?=(?:we|i|the team)\b)|^what\s+(?=(?:changed|has changed|is new|is different)\b)|^how\s+(?=(?:[\w-]+\s+){1,3}?(?:work|works|happen|happens|get done|gets done)\b)|^why\s+(?=[\w.-]+(?:\s+[\w.-]+)?\s+(?:and not|not|over|instead of|rather than)\s+[\w.-]+(?:\s+[\w.-]+)?\s*:)|^why\s+(?=[\w.+#-]+(?:\s+[\w.+#-]+)?\s+(?:for|in|on|as)\s+[^:?]{1,40}:)/i.exec(s);
      if (clause) {
        const inner = readSentence(s.slice(clause[0].length));
        if (inner.kind === "capture") return inner;
        // "How we version the SDK: semver, breaking changes only in majors": a heading of how
        // the team does a thing, and the answer after its colon, is the practice itself
        const answer = s.slice(wh[0].length);
        if (wh[0].trimEnd().endsWith(":") && answer.split(/\s+/).length >= 2 && !undecided(s) && !HYPOTHETICAL.test(s) && !OPEN_ANSWER.test(s)) {
          const d = statementDraft(whole, boosted);
          if (d) return { kind: "capture", draft: d };
        }
      }
      return r;
    }
  }

  // "bump React to 18.3 across the monorepo, we're dropping 17": a version the whole project moves to
  if (request && VERSION_MOVE.test(s) && PROJECT_WIDE.test(s) && !CHAINED_TASK.test(s) && !DEICTIC_TASK.test(s) && !HYPOTHETICAL.test(s)) {
    const d = statementDraft(s, boosted);
    if (d && d.mentions.some((m) => m.kind !== "term")) return { kind: "capture", draft: { ...d, signal: "version move" } };
  }
  let from = 0;
  let strongOnly = false;
  if (request) {
    // "fix the login, we decided to use JWT": a statement after the request still counts
    strongOnly = true;
    from = -1;
    CLAUSE_BREAK.lastIndex = 0;
    let breaks = 0;
    // the first few clauses only: each look is a pass over the sentence
    for (let m = CLAUSE_BREAK.exec(s); m && breaks < MAX_CLAUSES_AFTER_REQUEST; m = CLAUSE_BREAK.exec(s), breaks++) {
      const at = m.index + m[0].length;
      if (candidates(s, at, true).length) {
        from = at;
        break;
      }
    }
    if (from === -1) {
      // "keep explanations short, skip the basics": a standing instruction, not a task
      const standing = cueDraft(whole, boosted, standingInstruction);
      return standing ? { kind: "capture", draft: standing } : { kind: "skip", reason: "a request to the assistant" };
    }
  }

  const found = candidates(s, from, strongOnly);
  if (found.length === 0) {
    const rat = searched(RATIONALE_SENTENCE, s);
    if (rat) return { kind: "rationale", why: cleanPhrase(s.slice(rat[0].length), 300) };
    const trade = searched(TRADEOFF_SENTENCE, s);
    if (trade) return { kind: "tradeoff", text: cleanPhrase(s.slice(trade[0].length), 200) };
    const cue = request ? null : cueDraft(whole, boosted);
    return cue ? { kind: "capture", draft: cue } : { kind: "none" };
  }
  let firstReason: string | null = null;
  for (const f of found) {
    const r = readTrigger(s, f, from);
    if (typeof r !== "string") {
      r.boosted ||= boosted;
      // "X was timing out; we cut Y and it works now": the trouble read first, the fix said after it
      if (r.type === "problem" && !request) {
        const fix = cueDraft(whole, boosted);
        if (fix?.type === "solution") return { kind: "capture", draft: { ...fix, problem: r.what } };
        // "In this repo we return errors as values": a convention whose words sound like trouble
        if (fix?.type === "decision" && (/^in (?:this|our) /.test(fix.signal) || fix.signal === "house practice")) return { kind: "capture", draft: fix };
      }
      // "Gradle sync failed after the upgrade until we bumped the Kotlin plugin to 1.9.23": a change
      // made to end trouble said first is its fix
      if (r.type === "decision" && !request && UNTIL_FIX.test(s)) {
        const fix = cueDraft(whole, boosted);
        if (fix?.type === "solution") return { kind: "capture", draft: fix };
      }
      // "Public endpoints are versioned in the path, never in a header": a rule said of a kind of thing is the team's
      if (r.type === "preference" && r.trigger.against && isHousePractice(s)) return { kind: "capture", draft: { ...r, type: "decision", what: cleanPhrase(s) } };
      return { kind: "capture", draft: r };
    }
    firstReason ??= r;
  }
  // a trigger that named nothing known ("we switched to select_related"): the cue reading may
  // "I want error messages to say what to do, not just what failed": only a word of trouble was
  // found, undone by a negation before it; the cue reading may hold the preference around it
  const troubleOnly = firstReason === "negated" && found.every((f) => f.trigger.type === "problem");
  // "Nobody should call the billing DB from the web tier": the negation is the rule itself, which
  // the cue reading (FORBID, NEVER_RULE) reads; its own guards undo "we didn't decide to use X"
  if (!request && (troubleOnly || firstReason === "negated" || firstReason?.startsWith("names nothing known"))) {
    const cue = cueDraft(whole, boosted);
    if (cue) return { kind: "capture", draft: cue };
  }
  return { kind: "skip", reason: firstReason ?? NO_SIGNAL };
}

// --- from drafts to captures ----------------------------------------------------------------

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function finish(d: Draft): Capture {
  const why = d.type === "solution" ? d.problem ?? (d.whys.join("; ") || null) : d.whys.join("; ") || null;
  const known = d.chosen.some((m) => m.kind !== "term") || (d.chosen.length === 0 && d.mentions.some((m) => m.kind !== "term"));
  let confidence = d.trigger.base;
  if (why) confidence += 0.1;
  if (d.alternatives.length) confidence += 0.05;
  if (known) confidence += 0.05;
  if (d.boosted) confidence += 0.05;
  if (d.hedged) confidence -= 0.15;
  confidence = round2(Math.min(0.95, Math.max(0.3, confidence)));
  const general = Boolean(d.trigger.rule) && !d.projectSpecific;
  const scope = general && confidence >= 0.8 && why !== null && d.mentions.some((m) => m.kind !== "term") ? "global" : "team";
  const ordered = [...d.chosen, ...d.rejected, ...d.mentions];
  const entities = [...new Set(ordered.map((m) => m.name))].slice(0, 30);
  const names = new Set(entities);
  const relations = uniqueRelations(d.relations).filter((r) => names.has(r.from) && names.has(r.to));
  const decision: DecisionFields | null =
    d.type === "problem" ? null : { what: d.what, why, alternatives: d.alternatives, constraints: d.constraints, tradeoffs: d.tradeoffs };
  return {
    type: d.type,
    content: d.content,
    decision,
    entities,
    entity_relations: relations,
    confidence,
    category: categoryOf(d.chosen, d.mentions, d.content),
    scope,
    importance: d.boosted && confidence >= 0.8 ? "high" : "medium",
    fingerprint: fingerprintOf(d.type, d.what),
    signal: d.signal,
  };
}

function mergeInto(a: Draft, b: Draft): void {
  a.content = `${a.content} ${b.content}`;
  a.whys = [...new Set([...a.whys, ...b.whys])];
  a.alternatives = [...new Set([...a.alternatives, ...b.alternatives])];
  a.constraints = [...new Set([...a.constraints, ...b.constraints])];
  a.tradeoffs = [...new Set([...a.tradeoffs, ...b.tradeoffs])];
  a.mentions = [...a.mentions, ...b.mentions];
  a.chosen = [...a.chosen, ...b.chosen];
  a.rejected = [...a.rejected, ...b.rejected];
  a.relations = [...a.relations, ...b.relations];
  a.boosted ||= b.boosted;
  a.projectSpecific ||= b.projectSpecific;
}

/** A sentence that says what the team now does, right after a problem: the problem's fix. */
const FIX_AFTER_PROBLEM = /^(?:so\s+|and\s+|then\s+)?(?:we|i)\s+(?:now|then)\s+(?!(?:have|know|see|think|need|want|wait|understand|get|believe)\b)[a-z]{3,}\s+\S/i;

/** A question said as a wish: "I want to understand why ...", "I'd like to know what ...". */
const ASKS_WHY = /^(?:i|we)(?:'d| would)?\s+(?:really\s+)?(?:want|wanted|like|need|'d like)\s+to\s+(?:know|understand|find out|figure out|learn|see|check|hear|ask)\s+(?:why|what|how|which|whether|if|where|when|who)\b/i;
/** The turn from a debate to its outcome: "..., but in the end we're going with X". */
const IN_THE_END = /(?:[,;]\s*|\s)(?:but\s+|and\s+|so\s+)?(?:in the end|eventually|ultimately|at the end of the day|after all that)\s*,?\s+(?=\S)/i;
const DEBATE = /\b(?:back and forth|debate[ds]?|discussion|discussed|argu\w+|inconclusive|went (?:round|around)|options|alternatives|undecided|torn|disagree\w*)\b/i;
/** A preference closed as the user's own: "..., that's how I like it". */
const LIKED_TAIL = /\s*[,;:—–-]\s*(?:that's|that is|this is|it's)\s+(?:how|the way)\s+i\s+(?:like|want|prefer)\s+(?:it|them|things|my code)\s*[.!]*$/i;
/** A task closed as agreed by the team: "..., agreed in standup", "..., as agreed with infra". */
const AGREED_TAIL = /\s*[,;:—–-]\s*(?:as\s+)?(?:agreed|decided|approved)\s+(?:in|at|on|during|with|by)\s+[^,;.!?]{2,40}[.!]*$/i;

/** A short sentence of doubt about the one before: "Not sure he's right.", "I'm skeptical." */
const DOUBT_BACK =
  /^(?:but\s+|though\s+)?(?:i'm\s+|i am\s+|i'm still\s+|still\s+)?(?:not (?:sure|convinced|sold)(?:\s+(?:(?:he|she|they|it|that|this)(?:'s| is| are) right|i agree|about (?:that|this|it)|it's a good idea|that's right))?|skeptical|sceptical|unconvinced|i doubt (?:it|that)|no idea if (?:he|she|they|it)(?:'s| is| are) right|(?:he|she|they) might be wrong)\s*[.!]*$/i;

/** "if" as the name of a construct ("nested if blocks", "if/else chains"): no hypothetical. */
const IF_NOUN = /\bif(?:[/-]else)?\s+(?:blocks?|statements?|chains?|branches|clauses?|conditions?|checks?|ladders?|trees?)\b|\bif[/-]else\b/gi;
/** A version to move to: "bump React to 18.3", "upgrade Django to 5.1". */
const VERSION_MOVE = /^(?:please\s+)?(?:bump|upgrade|move|pin|update)\s+(?:the\s+|our\s+)?[\w.+#-]+(?:\s+[\w.+#-]+)?\s+to\s+v?\d[\w.]*/i;
/** ... for the whole project, or with the team's reason: not a one-off task. */
const PROJECT_WIDE = /\b(?:across|everywhere|in (?:all|every)|for (?:all|every)|all (?:the )?(?:services|packages|repos|apps))\b|[,;]\s*(?:since\s+|because\s+)?we(?:'re| are|'ve| have| need| want)\b/i;

/** A second task chained to the first: "upgrade X to 6.3 and make the tests green" is a work order. */
const CHAINED_TASK = /\band\s+(?:then\s+)?(?:make|fix|run|rerun|push|open|get|check|update|write|add|clean up)\s+(?:the|a|an|it|them|whatever|everything|any|all)\b/i;

/** Read a prompt (or any free text) and say what it would store. Pure. */
/** Trouble, then "until we <did>": the cue reading's fix (UNTIL_DONE) names what ended it. */
const UNTIL_FIX = /\buntil (?:we|i)\s+[a-z]+ed\b/i;
/** "Where config lives:", "Where we landed:": a heading whose answer follows the colon. */
const WHERE_LEAD = /^where\s+(?:(?:we|the team)\s+(?:landed|ended up|settled)|(?:[\w.-]+\s+){1,3}?(?:lives?|goes|go|sits?|belongs?|(?:is|are) kept))\s*:\s*(?=\S)/i;
/** "Which means ...", "That's why ...": a link to the sentence before, then a statement of its own. */
const LINK_LEAD = /^(?:which|this|that)(?:'s|\s+is)?\s+(?:means|is why|why)\s+(?:that\s+)?(?=\S)/i;

/** A few words, then a tool's message after a colon: "the build fails with: Module not found: Error: ...". */
const PASTED_AFTER = /^(?:\S+\s+){0,5}?(?:fails?|failed|failing|errors?|errored|crash(?:es|ed)?|dies|died|breaks|broke|says|said|shows?|prints?|throws?|returns?)(?:\s+with)?\s*:\s*(?:[\w.]*(?:Error|Exception)\b|[A-Z][\w' ]{0,40}:\s)/;

/** A log line pasted: a timestamp, then a level ("[2026-11-27 10:00:01] ERROR worker: ..."). */
const LOG_LINE = /\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s+\[?(?:ERROR|WARN|WARNING|INFO|DEBUG|FATAL|CRITICAL|TRACE)\b/;

/** The share of a message's text set aside as pasted above which a problem said beside it only points at the paste. */
const MOSTLY_PASTED = 0.6;
/** A problem said beside pasted output that tells more than the output: its cause, what it is, when it happens. */
const SAYS_WHY = /\b(?:because|due to|caused by|root cause|came from|comes from|traced|turned out|turns out|the (?:problem|issue|cause|bug|culprit) (?:is|was)|under (?:load|heavy)|whenever|every time)\b/i;

export function extractCaptures(text: string): Extraction {
  return extractWithOpinion(text, SHIPPED_OPINION).extraction;
}

/** Words of how the work's text is written: a preference about them is about the work. */
const WRITTEN_WORK = /\b(?:spelling|oxford comma|admonitions?|headings?|bullet points?|documents? prepared|deliverables?|style guide)\b/i;

/** A sentence as the guards read it: straight apostrophes, one space between words. */
const plainSentence = (s: string) => s.replace(/[’‘]/g, "'").replace(/\s+/g, " ").trim();

/** The confidence of a sentence kept on the model's word alone. */
const LEARNED_CONFIDENCE = 0.6;

/** The rules' guards, for a sentence the model would add: what the rules say is not the user's to keep stays unkept. */
function guarded(sentence: string, verdict: RulesVerdict, pastedShare: number, message: string): boolean {
  if (verdict.kind === "aside" || (verdict.kind === "skip" && GUARD_REASON.test(verdict.detail))) return true;
  // beside pasted output, or with a shape of it: the model never saw enough output to judge it
  if (pastedShare >= MOSTLY_PASTED || machineShape(sentence) > 0) return true;
  const s = plainSentence(sentence);
  return (
    /\?["')\]]*$/.test(s) ||
    undecided(s) ||
    someoneDescribed(s) ||
    HYPOTHETICAL.test(s) ||
    reported(s) ||
    CREDENTIAL.test(s) ||
    DEICTIC_TASK.test(s) ||
    workOrder(s) !== null ||
    othersOwn(s) ||
    passingTrouble(s) ||
    (troubleAt(s) && troubleReport(s, message) !== null) ||
    troubleTypedAsChoice(s, message) !== null ||
    statusNow(s) ||
    suggestionOnly(s) ||
    sessionTalkForModel(s, message) ||
    mySetup(s) ||
    smallTalk(s, false) ||
    SHORT_REPLY.test(s) ||
    notOurs(s, () => false) !== null
  );
}
/** "no, keep it in Postgres": a short answer about a thing named elsewhere ("it"), not a statement that stands alone. */
const SHORT_REPLY = /^(?:no|nope|yes|yeah|ok|okay|sure|fine)\b[,.!]?\s+(?=(?:\S+\s+){0,6}\S+$)(?=.*\b(?:it|this|that|them)\b)/i;
const GUARD_REASON = /^(?:a question|quoted|a request|someone|small talk|a verdict|doubted|pasted|nothing said|a one-off)/;

const troubleAt = (s: string) => isTrouble(s);

/**
 * A decision or preference told of the thing alone whose sentence is trouble in a report's shape
 * ("the sync is failing again"), or a state told of one spell near now ("the search has returned
 * nothing for every query since the weekend", "each checkout is taking 20 seconds today"): the
 * shape, else null. Said by or to a person ("I want error messages to say what failed", "when you
 * write Go for me"), as a rule or a choice made ("nobody checks in after 18:00", "team agreed
 * today: every service exposes /metrics"), or with a choice drawn from the trouble ("... again, so
 * we moved it to nights"), it is a choice and stays.
 */
function troubleTypedAsChoice(s: string, message: string): string | null {
  if (SAID_AS_CHOICE.test(s) || OUR_CHOICE.test(s)) return null;
  // the shapes first: most decisions have neither, and then isTrouble's patterns are never searched
  const spell = spellShape(s);
  const report = troubleReport(s, message);
  if (spell === null && report === null) return null;
  return troubleAt(s) ? report : spell;
}
const SAID_AS_CHOICE = /\b(?:i|i'm|i'd|i'll|we|we're|we'll|we've|you|your|me|us|my|our|let's|team|nobody|no one|never|always|must|should|shall|don't|do not|from now on|going forward|starting|agreed|decided|decision|chose|chosen|picked|settled|went with|going with|adopted|standardi[sz]ed|policy|rule|convention)\b/i;

/**
 * A rules' capture that is trouble of one occasion (or one that passed, or is being handled now),
 * or small talk said with a preference verb: the rules' own false stores, each with a general
 * marker (passing-talk.ts). A decision is read as passing trouble only when it holds trouble.
 */
function passingOrSmallTalk(sentence: string, d: Draft): string | null {
  const s = plainSentence(sentence);
  if ((d.type === "decision" || d.type === "preference") && !saidToKeep(s) && smallTalk(s, d.mentions.some((m) => m.kind !== "term"))) return "small talk";
  // "One idea: run the linter only on changed files", "Agenda for Thursday: decide ...": not chosen yet
  if ((d.type === "decision" || d.type === "preference") && suggestionOnly(s)) return "put forward or under way, not chosen yet";
  if (!passingTrouble(s)) return null;
  return d.type === "problem" || d.type === "solution" || troubleAt(s) ? "a one-off or passing trouble, not a standing one" : null;
}

/** The first words of a skip reason: what kind of guard it was, without the sentence's own words. */
const reasonKind = (reason: string) => reason.split(/[\s(:]+/).slice(0, 3).join(" ");

/**
 * Extraction with the learned second opinion (null: the rules alone). Its weights are read only
 * when a sentence reaches it: a prompt the rules keep nothing from (or any capture, if it may
 * drop). `keepSeen` also returns every sentence's features and the rules' capture it made, for
 * training and cross-validation.
 */
export function extractWithOpinion(
  text: string,
  opinion: Opinion | null,
  keepSeen = false,
): { extraction: Extraction; sentences: string[]; seen: SentenceSeen[] } {
  const prepared = prepareText(text);
  const base = { ignored: prepared.ignored, redacted: prepared.redacted, privateRemoved: prepared.privateRemoved };
  if (prepared.skip) return { extraction: { ...base, captures: [], skipped: [], reason: prepared.skip }, sentences: [], seen: [] };

  const drafts: Draft[] = [];
  /** Each draft's fingerprint, worked out once (a statement repeated in a long text merges). */
  const prints: string[] = [];
  const skipped: Skipped[] = [];
  let last: Draft | null = null;
  const sentences = splitSentences(prepared.text);
  /** What the rules made of each sentence, and the draft it started (for the second opinion). */
  const verdicts: { verdict: RulesVerdict; draft: Draft | null }[] = [];
  for (const sentence of sentences) {
    const r = readSentence(sentence);
    let started: Draft | null = null;
    const lastSkip = skipped.length;
    let passing: string | null = null;
    // checked on what would be kept only: most sentences keep nothing, and these are a dozen scans
    const aside = r.kind === "capture" ? notOurs(plainSentence(sentence), () => r.draft.mentions.some((m) => m.kind !== "term")) : null;
    if (aside) {
      skipped.push({ text: sentence.trim(), reason: aside });
      last = null;
    } else if (r.kind === "capture" && r.draft.type === "problem" && prepared.intros.includes(sentence)) {
      // "the deploy keeps failing with this:": it points at the output after it
      skipped.push({ text: sentence.trim(), reason: "pasted output" });
      last = null;
    } else if (r.kind === "capture" && r.draft.type === "problem" && (PASTED_AFTER.test(sentence) || LOG_LINE.test(sentence) || (prepared.pastedShare >= MOSTLY_PASTED && !SAYS_WHY.test(sentence)))) {
      // (in a message that is mostly pasted output, "cargo build fails" / "only on CI" says what the
      // paste shows, nothing to keep; "the problem is that the pool is exhausted under load" says more)
      // "the build fails with: Module not found: Error: ...": a tool's message pasted, nothing said of it
      skipped.push({ text: sentence.trim(), reason: "pasted output" });
      last = null;
    } else if (r.kind === "capture" && r.draft.type === "problem" && (passing = troubleReport(plainSentence(sentence), prepared.text, prepared.pastedShare))) {
      // "tests are failing on main", "pipeline #8812 failed at the push step", "help, the build fails
      // with ...": trouble as it is met, with no cause, fix, condition or rule anywhere in the message
      skipped.push({ text: sentence.trim(), reason: `a trouble report (${passing}), no lesson in it` });
      last = null;
    } else if (r.kind === "capture" && (r.draft.type === "decision" || r.draft.type === "preference") && (passing = troubleTypedAsChoice(plainSentence(sentence), prepared.text))) {
      // "Each checkout on the POS is taking 20 seconds today": trouble met, in a decision's words
      skipped.push({ text: sentence.trim(), reason: `a trouble report (${passing}) typed as a choice` });
      last = null;
    } else if (r.kind === "capture" && r.draft.type !== "problem" && hollow(r.draft.what)) {
      // "ok cool, that's settled then": a decision's words around nothing
      skipped.push({ text: sentence.trim(), reason: "nothing said but chat" });
      last = null;
    } else if (r.kind === "capture" && (r.draft.type === "decision" || r.draft.type === "preference") && r.draft.signal !== "house practice" && (othersOwn(sentence) || someoneDescribed(sentence)) && !saidToKeep(sentence.trim())) {
      // ("Stories sit next to their component": "their" is the kind of thing's own, not another team's;
      // "we're looking for a developer who loves TypeScript": someone described, not our choice)
      skipped.push({ text: sentence.trim(), reason: "someone else's choice, for their own things" });
      last = null;
    } else if (r.kind === "capture" && (passing = workOrder(plainSentence(sentence), r.draft.type === "problem" || r.draft.type === "solution"))) {
      // "we need to bump the Go toolchain to 1.23", "let's bump Kotlin to 2.0 today": a change to make once
      skipped.push({ text: sentence.trim(), reason: passing });
      last = null;
    } else if (r.kind === "capture" && (passing = passingOrSmallTalk(sentence, r.draft) ?? sessionTalk(plainSentence(sentence), prepared.text, r.draft.type))) {
      // "the deploy failed once this morning but the retry went through", "I always enjoy these demo days"
      skipped.push({ text: sentence.trim(), reason: passing });
      last = null;
    } else if (last && drafts[drafts.length - 1] === last && last.type !== "problem" && DOUBT_BACK.test(sentence.trim())) {
      // "Our CTO says never use serverless. Not sure he's right.": the doubt takes back the sentence before
      drafts.pop();
      prints.pop();
      skipped.push({ text: `${last.content} ${sentence.trim()}`, reason: "doubted right after" });
      last = null;
    } else if (r.kind === "capture") {
      const d = r.draft;
      // a fix right after the problem it fixes: one memory
      if (d.type === "solution" && !d.problem && last?.type === "problem" && drafts[drafts.length - 1] === last) {
        d.problem = cleanPhrase(last.what, 300);
        d.content = `${last.content} ${d.content}`;
        d.mentions = [...last.mentions, ...d.mentions];
        drafts.pop();
        prints.pop();
      }
      const print = fingerprintOf(d.type, d.what);
      const same = drafts.find((x, i) => x.type === d.type && prints[i] === print);
      if (same) mergeInto(same, d);
      else {
        drafts.push(d);
        prints.push(print);
        started = d;
      }
      last = same ?? d;
    } else if (last?.type === "problem" && drafts[drafts.length - 1] === last && FIX_AFTER_PROBLEM.test(sentence.trim())) {
      // "Root cause: the cron ran on both replicas. We now take a lock first.": the fix to the trouble just said
      const fix = cleanPhrase(sentence.replace(/^(?:so|and|then)\s+/i, ""));
      last.type = "solution";
      last.problem = cleanPhrase(last.what, 300);
      last.what = fix;
      last.content = `${last.content} ${sentence.trim()}`;
      prints[prints.length - 1] = fingerprintOf("solution", fix);
    } else if (r.kind === "rationale" && last && (last.type === "decision" || last.type === "preference") && last.whys.length === 0 && r.why) {
      last.whys.push(r.why);
      last.content = `${last.content} ${sentence.trim()}`;
    } else if (r.kind === "tradeoff" && last && (last.type === "decision" || last.type === "preference") && r.text) {
      last.tradeoffs.push(r.text);
      last.content = `${last.content} ${sentence.trim()}`;
    } else {
      skipped.push({ text: sentence.trim(), reason: r.kind === "skip" ? r.reason : NO_SIGNAL });
      last = null;
    }
    const dropped = skipped.length > lastSkip && r.kind === "capture";
    verdicts.push({
      verdict: {
        kind: dropped ? "aside" : r.kind,
        detail: r.kind === "capture" ? (dropped ? reasonKind(skipped[skipped.length - 1]!.reason) : r.draft.signal) : r.kind === "skip" ? reasonKind(r.reason) : "",
        type: r.kind === "capture" ? r.draft.type : "",
      },
      draft: started,
    });
  }
  /** Each sentence's features, worked out once and only when the model is to read them. */
  const feats: number[][] = [];
  const featuresAt = (index: number) => (feats[index] ??= opinionFeatures(sentences[index]!, verdicts[index]!.verdict, { pastedShare: prepared.pastedShare, sentences: sentences.length, index }));
  /** The rules' type of each draft, before the model's second opinion on it. */
  const rulesType = new Map(drafts.map((d) => [d, d.type]));
  if (opinion && opinion.retypeAt <= 1 && drafts.length) {
    const model = opinion.model();
    verdicts.forEach(({ draft: d }, index) => {
      // a fix the rules joined to the problem before it: that pairing says more than one sentence
      if (!d || d.problem || !rulesType.has(d)) return;
      const t = retypeOf(model, featuresAt(index), d.type);
      if (!t) return;
      if (t === "solution" && d.type === "problem") {
        // "X crashed when Y; we now check Z": the fix is the clause after the break, the trouble before it
        const [trouble, ...fix] = sentences[index]!.split(/;\s+|\s+[—–]\s+/);
        if (trouble!.trim() && fix.join("").trim()) {
          d.problem = cleanPhrase(trouble!, 300);
          d.what = cleanPhrase(fix.join("; "));
        }
      }
      d.type = t;
    });
  }
  const captures: Capture[] = [];
  /** The capture index of each draft kept. */
  const kept = new Map<Draft, number>();
  for (const d of drafts) {
    const c = finish(d);
    if (c.confidence >= MIN_CONFIDENCE) {
      kept.set(d, captures.length);
      captures.push(c);
    } else skipped.push({ text: c.content, reason: `too tentative to keep (confidence ${c.confidence})` });
  }
  const wantAdd = opinion !== null && captures.length === 0 && opinion.addAt <= 1;
  const wantDrop = opinion !== null && opinion.dropBelow > 0;
  let seen: SentenceSeen[] = [];
  if (keepSeen || wantAdd || wantDrop) {
    seen = sentences.map((sentence, index) => {
      const v = verdicts[index]!;
      const capture = (v.draft ? kept.get(v.draft) : undefined) ?? -1;
      const needed = keepSeen || (capture >= 0 ? wantDrop : wantAdd);
      // the guards read on first ask: the model asks only of a sentence it would add, and a
      // sentence with no signal ("yes, go on") ran every guard's patterns for nothing (~8 ms of a
      // cold hook, compiling them)
      let guard: boolean | undefined;
      return {
        features: needed ? featuresAt(index) : [],
        capture,
        rulesType: capture >= 0 ? rulesType.get(v.draft!)! : "",
        joined: capture >= 0 && Boolean(v.draft!.problem),
        get guarded() {
          return (guard ??= capture < 0 && (keepSeen || wantAdd) && guarded(sentence, v.verdict, prepared.pastedShare, prepared.text));
        },
      };
    });
  }
  if (opinion && (wantAdd || wantDrop) && seen.length) {
    const verdict = secondOpinion(opinion.model(), seen, captures.length);
    if (verdict.drop.length) {
      const dropped = new Set(verdict.drop);
      for (const i of verdict.drop) skipped.push({ text: captures[i]!.content, reason: "noise, in the learned model's reading" });
      const left = captures.filter((_, i) => !dropped.has(i));
      captures.length = 0;
      captures.push(...left);
    }
    if (verdict.add) {
      const sentence = plainSentence(sentences[verdict.add.sentence]!);
      const d = statementDraft(sentence, BOOSTERS.test(sentence));
      if (d) {
        d.type = verdict.add.type;
        d.signal = "learned model";
        const c = finish(d);
        // kept, but below MEMORY.md's 0.7 and never global: only the model vouches for it
        captures.push({ ...c, confidence: LEARNED_CONFIDENCE, scope: "team", importance: "medium" });
      }
    }
  }
  let reason: string | null = null;
  if (captures.length === 0 && prepared.quiet) reason = prepared.quiet;
  else if (captures.length === 0) {
    const specific = skipped.find((s) => s.reason !== NO_SIGNAL);
    reason = specific ? `${specific.reason}` : skipped.length ? NO_SIGNAL : "the text is empty";
  }
  return { extraction: { ...base, captures, skipped, reason }, sentences, seen };
}
