// A learned second opinion beside the capture rules. Hand rules per class fit the sets they were
// tuned on and miss fresh wordings; a small logistic model over hashed sentence features (stemmed
// words and bigrams, the rules' verdict, first-person / modal / tense markers, question shape,
// length, how much of the prompt was pasted output) says how likely a sentence is worth keeping
// and as what. It is used only where the rules are unsure: a prompt the rules keep nothing from
// keeps its likeliest sentence when the model is confident, and a rules' capture is dropped only
// when the model is very confident it is noise. Weights come from scripts/train-capture-model.ts
// (second-opinion.gen.ts); the table is decoded on first use so a hook that never asks pays nothing.

import { Buffer } from "node:buffer";
import { OPINION_TABLE } from "./second-opinion.gen.ts";

export const BUCKETS = 4096;
export const TYPES = ["decision", "preference", "problem", "solution"] as const;
export type OpinionType = (typeof TYPES)[number];

/** What the rules made of a sentence: the model reads it as features beside the words. */
export interface RulesVerdict {
  /** "capture", "skip", "none", "rationale", "tradeoff", or "aside" (kept by the reading, dropped after). */
  kind: string;
  /** The skip reason's first words, or the draft's signal. */
  detail: string;
  /** The draft's type when the rules kept it. */
  type: string;
}

/** The prompt around the sentence. */
export interface PromptContext {
  pastedShare: number;
  sentences: number;
  index: number;
}

export interface OpinionModel {
  storeBias: number;
  /** Weights times storeScale (the committed table keeps them as int8, read in place). */
  store: ArrayLike<number>;
  storeScale: number;
  typeBias: number[];
  /** TYPES.length rows of BUCKETS weights, times typeScale. */
  type: ArrayLike<number>;
  typeScale: number;
  /** Keep a sentence the rules skipped at or above this store probability. */
  addAt: number;
  /** Drop a rules' capture below this store probability. */
  dropBelow: number;
  /** Retype a rules' capture when the model's own type differs and it is at least this sure (> 1: never). */
  retypeAt: number;
}

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % BUCKETS;
}

/** A crude stemmer: enough that "switching", "switched" and "switches" share a feature. */
function stem(w: string): string {
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith("es")) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ly")) return w.slice(0, -2);
  return w;
}

const FIRST_PERSON = new Set(["we", "i", "our", "my", "us", "me", "we're", "i'm", "we've", "i've", "we'll", "i'll", "let's", "team"]);
const MODAL = new Set(["should", "could", "might", "would", "maybe", "perhaps", "probably", "may", "wonder", "considering", "if"]);
const NEGATION = new Set(["not", "no", "never", "don't", "won't", "isn't", "aren't", "doesn't", "didn't", "can't", "nobody", "nothing"]);
const WH = new Set(["what", "why", "how", "which", "where", "when", "who", "can", "could", "would", "should", "is", "are", "do", "does", "did"]);

const lengthBucket = (n: number) => (n <= 4 ? "xs" : n <= 8 ? "s" : n <= 16 ? "m" : n <= 32 ? "l" : "xl");

/** The hashed features of a sentence (bucket indices, each once). Pure, deterministic. */
export function opinionFeatures(sentence: string, rules: RulesVerdict, prompt: PromptContext): number[] {
  const lower = sentence.replace(/[’‘]/g, "'").toLowerCase();
  const words = lower.match(/[a-z0-9][a-z0-9'+#.-]*[a-z0-9+#]|[a-z0-9]/g) ?? [];
  const out = new Set<number>();
  const add = (f: string) => out.add(fnv(f));
  const stems = words.map(stem);
  for (let i = 0; i < stems.length; i++) {
    add(`w:${stems[i]}`);
    if (i > 0) add(`b:${stems[i - 1]} ${stems[i]}`);
  }
  add(`w0:${stems[0] ?? ""}`);
  add(`w01:${stems[0] ?? ""} ${stems[1] ?? ""}`);
  // only the guards' verdicts: the rules were tuned on every set of the corpus, so "the rules
  // found nothing" is right there far more often than on fresh text and would teach the model to agree
  if (rules.kind === "skip" || rules.kind === "aside") add(`rd:${rules.kind}:${rules.detail}`);
  let first = 0;
  let modal = 0;
  let neg = 0;
  let past = 0;
  let scope = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (FIRST_PERSON.has(w)) first++;
    if (MODAL.has(w)) modal++;
    if (NEGATION.has(w) || w.endsWith("n't")) {
      neg++;
      scope = 3;
    } else if (scope > 0) {
      // the words a negation scopes ("nothing decided", "not committed to", "never in prod"): out of
      // set it lifted the added stores at p >= 0.97 from +21/+1 to +22/+0 and right retypes +5 -> +7
      add(`nx:${stems[i]}`);
      scope--;
    }
    if (w.length > 4 && w.endsWith("ed")) past++;
  }
  add(`fp:${Math.min(first, 2)}`);
  add(`md:${Math.min(modal, 2)}`);
  add(`ng:${Math.min(neg, 2)}`);
  add(`pt:${Math.min(past, 2)}`);
  add(`len:${lengthBucket(words.length)}`);
  const trimmed = sentence.trim();
  add(`q:${trimmed.endsWith("?") ? 1 : 0}:${WH.has(words[0] ?? "") ? 1 : 0}`);
  add(`dig:${/\d/.test(sentence) ? 1 : 0}`);
  add(`code:${/`|\w[._/]\w|\w\(/.test(sentence) ? 1 : 0}`);
  add(`caps:${Math.min((sentence.match(/(?:^|\s)[A-Z][\w.+#-]*/g) ?? []).length, 4)}`);
  add(`paste:${prompt.pastedShare >= 0.6 ? 2 : prompt.pastedShare > 0 ? 1 : 0}`);
  add(`ns:${Math.min(prompt.sentences, 4)}`);
  add(`pos:${prompt.index === 0 ? "first" : prompt.index === prompt.sentences - 1 ? "last" : "mid"}`);
  add("bias");
  return [...out];
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** How likely the sentence holds something to keep, 0..1. */
export function storeProbability(model: OpinionModel, features: readonly number[]): number {
  let z = 0;
  for (const f of features) z += model.store[f]!;
  return sigmoid(model.storeBias + z * model.storeScale);
}

/** The probability of each type (in TYPES order) of what the sentence holds. */
export function typeProbabilities(model: OpinionModel, features: readonly number[]): number[] {
  const z = TYPES.map((_, t) => {
    let v = 0;
    for (const f of features) v += model.type[t * BUCKETS + f]!;
    return model.typeBias[t]! + v * model.typeScale;
  });
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** The likeliest type of what the sentence holds. */
export function opinionType(model: OpinionModel, features: readonly number[]): OpinionType {
  const p = typeProbabilities(model, features);
  return TYPES[p.indexOf(Math.max(...p))]!;
}

/**
 * The type swaps the model may make to a rules' capture (rules' type / model's type): the confusions
 * issue 15 names ("we won't use X" read as a preference, a fix read as a problem), both ways, and a
 * decision the rules read as a problem. Not problem → decision: out of set the model read plain
 * trouble ("SSO fails for users whose email has a plus sign", "tokens are stored in plain text,
 * which is bad") as a convention more often than it found a decision there.
 */
const RETYPE_PAIRS = new Set(["decision/problem", "decision/preference", "preference/decision", "solution/problem", "problem/solution"]);

/** From the model's type probabilities: the type to give a rules' capture instead of `rulesType`, or null to keep it. */
export function retypeFrom(p: readonly number[], rulesType: string, retypeAt: number, pairs: ReadonlySet<string> | null = RETYPE_PAIRS): OpinionType | null {
  if (retypeAt > 1) return null;
  const best = p.indexOf(Math.max(...p));
  const t = TYPES[best]!;
  return t !== rulesType && p[best]! >= retypeAt && (pairs === null || pairs.has(`${rulesType}/${t}`)) ? t : null;
}

/** The type the model would give a rules' capture instead of `rulesType`, or null to keep it. */
export const retypeOf = (model: OpinionModel, features: readonly number[], rulesType: string): OpinionType | null =>
  model.retypeAt > 1 ? null : retypeFrom(typeProbabilities(model, features), rulesType, model.retypeAt);

export interface SentenceSeen {
  features: number[];
  /** Index of the rules' capture this sentence made, or -1. */
  capture: number;
  /** The rules' type of that capture ("" for none). */
  rulesType: string;
  /** That capture is a fix the rules joined to the problem before it: never retyped. */
  joined: boolean;
  /** One of the rules' guards says it is not the user's to keep (a question, a request, someone else's view, undecided...): never added. */
  guarded: boolean;
}

export interface OpinionVerdict {
  /** Rules' captures to drop (indices). */
  drop: number[];
  /** A sentence the rules skipped to keep, with its type. */
  add: { sentence: number; type: OpinionType } | null;
}

/**
 * What the model changes about the rules' result for one prompt. Shared by extraction and by the
 * training script's cross-validation, so what is measured is what runs.
 */
export function secondOpinion(model: OpinionModel, seen: readonly SentenceSeen[], captures: number): OpinionVerdict {
  const drop: number[] = [];
  for (const s of seen) if (s.capture >= 0 && storeProbability(model, s.features) < model.dropBelow) drop.push(s.capture);
  if (captures > 0) return { drop, add: null };
  let best = -1;
  let bestP = model.addAt;
  for (let i = 0; i < seen.length; i++) {
    if (seen[i]!.capture >= 0) continue;
    const p = storeProbability(model, seen[i]!.features);
    // a guarded sentence is never added: asked only of one the model would add (guards cost time)
    if (p >= bestP && !seen[i]!.guarded) {
      bestP = p;
      best = i;
    }
  }
  return { drop, add: best === -1 ? null : { sentence: best, type: opinionType(model, seen[best]!.features) } };
}

export interface OpinionTable {
  buckets: number;
  storeScale: number;
  storeBias: number;
  typeScale: number;
  typeBias: number[];
  addAt: number;
  dropBelow: number;
  retypeAt: number;
  /** Int8 weights, base64: BUCKETS for store, then TYPES.length × BUCKETS for type. */
  weights: string;
}

export function decodeModel(table: OpinionTable): OpinionModel {
  // read in place as int8 (no per-weight decoding: the hook's cold start pays for every loop)
  const bytes = Buffer.from(table.weights, "base64");
  const n = BUCKETS * (1 + TYPES.length);
  if (table.buckets !== BUCKETS || bytes.length !== n) throw new Error(`second-opinion table has ${bytes.length} weights, expected ${n}`);
  const all = new Int8Array(bytes.buffer, bytes.byteOffset, n);
  return {
    storeBias: table.storeBias,
    store: all.subarray(0, BUCKETS),
    storeScale: table.storeScale,
    typeBias: table.typeBias,
    type: all.subarray(BUCKETS),
    typeScale: table.typeScale,
    addAt: table.addAt,
    dropBelow: table.dropBelow,
    retypeAt: table.retypeAt,
  };
}

let shipped: OpinionModel | null = null;

/** The committed model, decoded the first time a sentence reaches it. */
export function shippedModel(): OpinionModel {
  shipped ??= decodeModel(OPINION_TABLE);
  return shipped;
}

/** A model to consult, its thresholds known before its weights are needed. */
export interface Opinion {
  addAt: number;
  dropBelow: number;
  retypeAt: number;
  model: () => OpinionModel;
}

/** The committed model: read only for a prompt the rules keep nothing from (or if it may drop). */
export const SHIPPED_OPINION: Opinion = { addAt: OPINION_TABLE.addAt, dropBelow: OPINION_TABLE.dropBelow, retypeAt: OPINION_TABLE.retypeAt, model: shippedModel };

export const opinionOf = (m: OpinionModel): Opinion => ({ addAt: m.addAt, dropBelow: m.dropBelow, retypeAt: m.retypeAt, model: () => m });
