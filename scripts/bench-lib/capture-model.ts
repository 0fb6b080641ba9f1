// Training and cross-validation of capture's learned second opinion (src/core/capture/second-opinion.ts)
// on the labelled corpus. Deterministic: no randomness, a fixed order and a fixed number of passes,
// so the same corpus always gives the same table. Used by scripts/train-capture-model.ts (writes
// the table) and scripts/bench-lib/capture-loso.ts (the leave-one-set-out report).

import { Buffer } from "node:buffer";
import { type Capture, extractWithOpinion } from "../../src/core/capture/extract.ts";
import { BUCKETS, type OpinionModel, type OpinionTable, retypeFrom, type SentenceSeen, storeProbability, TYPES, typeProbabilities } from "../../src/core/capture/second-opinion.ts";
import { type CorpusRow, LEAD_HELD_OUT, RETIRED_HELD_OUT, scoreRows } from "./capture-quality.ts";

/** Sets never read by this work: the lead's held-out sets. */
export const NEVER_READ: ReadonlySet<string> = LEAD_HELD_OUT;

/** Sets the table is never trained on: the held-out sets, and those retired from held-out (kept out, so the table stays the one measured). */
const NEVER_TRAINED_ON: ReadonlySet<string> = new Set([...NEVER_READ, ...RETIRED_HELD_OUT]);

/**
 * Tunable sets the rules' guards were written from but the table is not trained on. Twice, adding
 * a fresh guard set to the training data (capture20's tune20, capture21's tune21/tune21b) gave the
 * held-out sets more false stores (pooled over new12-new16: 27 -> 32, the same right stores): the
 * rows a fresh set's guards now reject teach the model little, and its bolder weights elsewhere
 * cost precision on writing it never saw. The table stays trained on the sets through tune19.
 * Branch capturemodel23 measured it leave-one-set-out (scripts/bench-lib/capture-loso-fresh.ts):
 * each of these six sets scored by a model trained on every other tunable set, these included,
 * pooled 0.944 / 0.892 (323/19/39) against the shipped table's 0.945 / 0.906 (329/19/33); at fixed
 * thresholds (keep at 0.8, no veto) 328/19/34 against 329/19/33. Training on them adds nothing on
 * an unseen writer, and its thresholds' choice turns more cautious (tune21 -7 right): still left out.
 * Branch capture26's tune26 / tune26b (work requests beside standing rules) are left out the same way.
 */
export const NOT_TRAINED_ON = new Set(["tune21", "tune21b", "tune22", "tune22b", "tune23", "tune23b", "tune26", "tune26b", "tune26c", "tune26d", "tune26e", "tune27", "tune27b", "tune27c", "tune28", "tune28b", "tune28c", "tune28d", "tune29", "tune29b", "tune29c", "tune29d", "tune30", "tune30b", "tune30c", "tune31", "tune31b", "tune32", "tune32b", "tune34", "tune34b"]);

export const setOf = (r: CorpusRow) => r.set ?? (r.split === "holdout" ? "holdout" : "tune1");

export interface PreparedRow {
  row: CorpusRow;
  set: string;
  seen: SentenceSeen[];
  /** The rules' captures alone. */
  captures: number;
  /** Those captures. */
  got: Capture[];
  /** Per sentence: 1 holds what is to keep, 0 noise, -1 unknown (another sentence of a prompt to keep). */
  labels: number[];
}

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}.+#/-]+/gu, " ").trim();

export function prepareRows(rows: readonly CorpusRow[], leftOut: ReadonlySet<string> = NOT_TRAINED_ON): PreparedRow[] {
  return rows
    .filter((r) => !NEVER_TRAINED_ON.has(r.set ?? "") && !leftOut.has(r.set ?? ""))
    .map((row) => {
      const { extraction, sentences, seen } = extractWithOpinion(row.text, null, true);
      const what = norm(row.what ?? "");
      let labels = sentences.map((s) => (row.store ? (what && norm(s).includes(what) ? 1 : -1) : 0));
      if (row.store && !labels.includes(1) && labels.length === 1) labels = [1];
      return { row, set: setOf(row), seen, captures: extraction.captures.length, got: extraction.captures, labels };
    });
}

export interface Weights {
  storeBias: number;
  store: Float64Array;
  typeBias: Float64Array;
  type: Float64Array;
}

/** Few passes and some shrinkage (more passes or less shrinkage: no better left out). */
const EPOCHS = 3;
const RATE = 0.1;
const L2 = 1e-3;

/** Logistic regression (store) and softmax regression (type, on sentences to keep), plain SGD. */
export function train(rows: readonly PreparedRow[]): Weights {
  const w: Weights = { storeBias: 0, store: new Float64Array(BUCKETS), typeBias: new Float64Array(TYPES.length), type: new Float64Array(BUCKETS * TYPES.length) };
  const ex: { f: number[]; y: number; t: number; order: number }[] = [];
  for (const r of rows) {
    const t = TYPES.indexOf((r.row.type ?? "").split("|")[0] as (typeof TYPES)[number]);
    r.seen.forEach((s, i) => {
      const y = r.labels[i]!;
      if (y >= 0) ex.push({ f: s.features, y, t: y === 1 ? t : -1, order: Math.imul(r.row.id * 64 + i, 0x9e3779b1) >>> 0 });
    });
  }
  // a fixed shuffle (by row id), never the file's order: a few passes of SGD end on whatever came
  // last, and in file order that is the newest set, a run of its prompts that shifted the whole
  // model (new10's 10 misses scored 0.61-1.00 left out, 0.08-0.97 with new10 last in training)
  ex.sort((a, b) => a.order - b.order || a.f.length - b.f.length);
  const z = new Float64Array(TYPES.length);
  for (let e = 0; e < EPOCHS; e++) {
    const rate = RATE / (1 + e * 0.2);
    for (const { f, y, t } of ex) {
      let s = w.storeBias;
      for (const k of f) s += w.store[k]!;
      const g = 1 / (1 + Math.exp(-s)) - y;
      w.storeBias -= rate * g;
      for (const k of f) w.store[k]! -= rate * (g + L2 * w.store[k]!);
      if (t < 0) continue;
      let max = -Infinity;
      for (let c = 0; c < TYPES.length; c++) {
        let v = w.typeBias[c]!;
        for (const k of f) v += w.type[c * BUCKETS + k]!;
        z[c] = v;
        if (v > max) max = v;
      }
      let sum = 0;
      for (let c = 0; c < TYPES.length; c++) sum += z[c] = Math.exp(z[c]! - max);
      for (let c = 0; c < TYPES.length; c++) {
        const gc = z[c]! / sum - (c === t ? 1 : 0);
        w.typeBias[c]! -= rate * gc;
        for (const k of f) w.type[c * BUCKETS + k]! -= rate * (gc + L2 * w.type[c * BUCKETS + k]!);
      }
    }
  }
  return w;
}

/** Weights as the int8 table the runtime decodes (and the model that table decodes to). */
export function toTable(w: Weights, addAt: number, dropBelow: number, retypeAt: number): OpinionTable {
  const maxAbs = (a: Float64Array) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 1e-9);
  const storeScale = maxAbs(w.store) / 127;
  const typeScale = maxAbs(w.type) / 127;
  const q = new Int8Array(w.store.length + w.type.length);
  w.store.forEach((v, i) => (q[i] = Math.round(v / storeScale)));
  w.type.forEach((v, i) => (q[w.store.length + i] = Math.round(v / typeScale)));
  const r6 = (n: number) => Number(n.toPrecision(6));
  return { buckets: BUCKETS, storeScale: r6(storeScale), storeBias: r6(w.storeBias), typeScale: r6(typeScale), typeBias: [...w.typeBias].map(r6), addAt, dropBelow, retypeAt, weights: Buffer.from(q.buffer).toString("base64") };
}

export function modelOf(w: Weights, addAt: number, dropBelow: number, retypeAt = 2): OpinionModel {
  return { storeBias: w.storeBias, store: w.store, storeScale: 1, typeBias: [...w.typeBias], type: w.type, typeScale: 1, addAt, dropBelow, retypeAt };
}

/** A row with each sentence's store probability under a model that never saw the row's set. */
export interface Scored {
  r: PreparedRow;
  p: number[];
  /** Type probabilities of each sentence that made a rules' capture (null for the others). */
  types: (number[] | null)[];
}

export function scoreWith(w: Weights, r: PreparedRow): Scored {
  const m = modelOf(w, 2, -1);
  return { r, p: r.seen.map((s) => storeProbability(m, s.features)), types: r.seen.map((s) => (s.capture >= 0 ? typeProbabilities(m, s.features) : null)) };
}

/** The rules' captures of a row, retyped as extraction would at `retypeAt` (pairs: null for any swap). */
export function retypedWith({ r, types }: Scored, retypeAt: number, pairs?: ReadonlySet<string> | null): Capture[] {
  const got = r.got.map((c) => ({ ...c }));
  r.seen.forEach((s, i) => {
    if (s.capture < 0 || s.joined) return;
    const t = retypeFrom(types[i]!, s.rulesType, retypeAt, pairs);
    if (t) got[s.capture]!.type = t;
  });
  return got;
}

/** Rightly stored prompts whose main capture has the labelled type, rules alone vs retyped at `retypeAt`. */
export function typeRight(x: Scored, retypeAt: number, pairs?: ReadonlySet<string> | null): { rules: number; retyped: number; stored: number } {
  if (!x.r.row.store || x.r.got.length === 0) return { rules: 0, retyped: 0, stored: 0 };
  const one = (got: Capture[]) => Math.round(scoreRows([x.r.row], () => got).typeAccuracy);
  return { rules: one(x.r.got), retyped: one(retypedWith(x, retypeAt, pairs)), stored: 1 };
}

export const RETYPE_GRID = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 1.01];
/** A type the model changes must be right this many times for each it makes wrong. */
const COST_OF_A_WRONG_RETYPE = 2;

/** The retype threshold that does best on rows scored by models that never saw their set (ties: the more cautious). */
export function chooseRetype(scored: readonly Scored[]): number {
  let best = 1.01;
  let bestScore = -Infinity;
  for (const at of [...RETYPE_GRID].reverse()) {
    let score = 0;
    for (const x of scored) {
      const t = typeRight(x, at);
      score += t.retyped > t.rules ? 1 : t.retyped < t.rules ? -COST_OF_A_WRONG_RETYPE : 0;
    }
    if (score > bestScore) {
      bestScore = score;
      best = at;
    }
  }
  return best;
}

/** Stored or not with rules + model, as secondOpinion decides it (from the probabilities). */
export function storedWith({ r, p }: Scored, addAt: number, dropBelow: number): boolean {
  let left = r.captures;
  let best = -1;
  r.seen.forEach((s, i) => {
    if (s.capture >= 0 && p[i]! < dropBelow) left--;
    if (s.capture < 0 && !s.guarded && p[i]! >= addAt) best = i;
  });
  return left > 0 || (r.captures === 0 && best >= 0);
}

export const ADD_GRID = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.96, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995, 1.01];
export const DROP_GRID = [-1, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1];
/**
 * Issue 15's target is recall >= 0.90 at precision >= 0.95; the thresholds keep a margin above the
 * precision (the rules were tuned on every set they are chosen on, so their own precision there is
 * higher than on fresh text: the lead's held-out sets pooled 0.967 against ~0.99 here).
 */
export const PRECISION_FLOOR = 0.965;

/** Prompts stored rightly and wrongly, and missed, with rules + model at the thresholds (pooled over `scored`). */
export function pooledAt(scored: readonly Scored[], addAt: number, dropBelow: number): { tp: number; fp: number; fn: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const x of scored) {
    const now = storedWith(x, addAt, dropBelow);
    if (now && x.r.row.store) tp++;
    else if (now) fp++;
    else if (x.r.row.store) fn++;
  }
  return { tp, fp, fn };
}

/**
 * The thresholds that do best on rows each scored by a model that never saw their set: the most
 * prompts rightly stored, pooled over every set, with pooled precision at or above PRECISION_FLOOR
 * and no more false stores than the rules alone make plus one per ADDED_PER_FALSE right stores
 * the model adds. Without that second bound the rules' in-sample precision pays for dozens of the
 * model's false stores: chosen inside each fold's other sets, the floor alone kept at p >= 0.6-0.8
 * and the left-out sets pooled fell under the floor (0.962), tune15 to 0.769. Ties keep the more
 * cautious pair (the grid is walked from cautious to bold); if nothing meets both, the rules alone.
 */
export function chooseThresholds(scored: readonly Scored[], floor = PRECISION_FLOOR, perFalse = ADDED_PER_FALSE): { addAt: number; dropBelow: number } {
  let best = { addAt: 1.01, dropBelow: -1 };
  const rules = pooledAt(scored, 1.01, -1);
  let bestTp = -1;
  for (const addAt of [...ADD_GRID].reverse()) {
    if (addAt < ADD_AT_LEAST) continue;
    const kept = pooledAt(scored, addAt, -1);
    for (const dropBelow of DROP_GRID) {
      const { tp, fp } = pooledAt(scored, addAt, dropBelow);
      if (tp + fp > 0 && tp / (tp + fp) < floor) continue;
      // a drop floor must remove more false stores than right ones on its own: one that only buys a
      // bolder keep threshold dropped right captures of fixtures it never saw ("Avoid default exports
      // because they make refactoring harder", "The problem is that the DB connection pool is exhausted")
      if (dropBelow >= 0 && kept.fp - fp <= kept.tp - tp) continue;
      if (fp - rules.fp > Math.max(0, tp - rules.tp) / perFalse) continue;
      if (tp > bestTp) {
        bestTp = tp;
        best = { addAt, dropBelow };
      }
    }
  }
  return best;
}

/**
 * Right stores the model must add for each false one it adds (a marginal precision of 0.8). Chosen
 * by nested leave-one-set-out, pooled (rules alone 0.988 / 0.921): 2 → 0.970 / 0.969, 3 → 0.977 /
 * 0.962, 4 → 0.978 / 0.957, 6 → 0.983 / 0.953, 9 → 0.984 / 0.948; on the three sets written for the
 * model and never tuned on by the rules (tune14-16, rules alone 0.947 / 0.690) 4 keeps precision
 * (0.946 / 0.830) where 3 and 2 lose it (0.940, 0.916). Raised to 5 by branch capture17: with
 * tune17 in and its guards, nested pooled LOSO over 23 sets 4 → 0.981 / 0.969 (1679/32/54), 5 →
 * 0.986 / 0.964 (1671/23/62), 6 → 0.988 / 0.958, 9 → 0.989 / 0.956: 4's last 8 right adds cost 9
 * false ones, and the lead's fresh sets say false stores are what fresh writing pays for (5 is the
 * boldest that keeps recall above integ19's 0.961 on the same corpus while dropping those).
 * Raised to 19 by branch capture18 (tune18 in, its guards): nested pooled LOSO over 24 sets, 5 →
 * 0.989 / 0.973 (1778/20/50), 9 → 0.995 / 0.972 (1776/9/52), 12 → 0.996 / 0.970 (1774/7/54), 19 →
 * 0.997 / 0.963 (1761/6/67), 29 → 0.997 / 0.958 (1752/5/76): the most precise whose recall stays
 * at or above integ20's on the same corpus (0.982 / 0.960). On tune18, fresh to integ20's model,
 * its adds were +15 right / +5 wrong at 0.8 and +15 / +8 at 0.7: bold adds cost on fresh writing.
 * (Branch capture19, on its own corpus without tune18, chose 9 the same way: 5 → 0.986 / 0.967, 9 →
 * 0.990 / 0.962 (1764/18/70), 11 → 0.990 / 0.960, beside integ20's 0.981 / 0.961.)
 */
export const ADDED_PER_FALSE = 19;

/**
 * The boldest keep threshold the choice may take, whatever leave-one-set-out says: on writing fresh
 * to the model the adds under 0.8 were wrong (tune18, fresh to integ20's model: 0.8 -> 89/13/6,
 * 0.75 -> 89/14/6, 0.7 -> 89/16/6; tune19 fresh: 5 of its 13 false stores were the model's adds),
 * while leave-one-set-out, with the rules tuned on every set, chose 0.75 after capture19's guards.
 */
export const ADD_AT_LEAST = 0.8;

/** The veto floors tried on the sets the table is not trained on (wider than DROP_GRID: on fresh writing the rules' false stores score up to ~0.2). */
export const VETO_GRID = [-1, 0.01, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3];

/**
 * The veto's floor chosen on the sets in `on` only (rows scored by models that never saw their set):
 * the floor that removes the most false stores net of the right ones it removes, at the keep
 * threshold `addAt` (ties and no gain: the more cautious). On sets the rules were tuned on, their
 * captures are right ~99.8 % of the time and any veto only costs; on writing fresh to the rules it
 * is the model's one way to take back their false stores.
 */
export function chooseDropOn(scored: readonly Scored[], addAt: number, on: ReadonlySet<string>, grid: readonly number[] = VETO_GRID): number {
  const xs = scored.filter((x) => on.has(x.r.set));
  const base = pooledAt(xs, addAt, -1);
  let best = -1;
  let bestNet = 0;
  for (const d of grid) {
    if (d < 0) continue;
    const { tp, fp } = pooledAt(xs, addAt, d);
    const net = base.fp - fp - (base.tp - tp);
    if (net > bestNet) {
      bestNet = net;
      best = d;
    }
  }
  return best;
}

/** Out-of-set scoring: each set's rows scored by a model trained on every other set. */
export function outOfSet(rows: readonly PreparedRow[], sets: readonly string[]): Scored[] {
  const out: Scored[] = [];
  for (const s of sets) {
    const w = train(rows.filter((r) => r.set !== s));
    for (const r of rows) if (r.set === s) out.push(scoreWith(w, r));
  }
  return out;
}

export const setsIn = (rows: readonly PreparedRow[]) => [...new Set(rows.map((r) => r.set))];

