import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REPO } from "./env.ts";

// A capture pattern searched only in a sentence holding one of its hint words (a cold hook compiled
// every large pattern for every sentence) is sound only if every match holds a hint: checked on every
// text and sentence of the capture corpus and on the given sentences. Each hint must be needed: a
// sentence the pattern matches that holds that hint alone (in the corpus or given), so that leaving
// any hint out fails these tests.

export interface Hinted {
  name: string;
  re: RegExp;
  hints: readonly string[];
  mayHold: (s: string) => boolean;
  /** [hint, a sentence the pattern matches holding that hint alone], for hints the corpus lacks */
  only: readonly [string, string][];
  /** a sentence holding no hint, as a cold hook's request */
  none: string;
  /** at least this many matches in the corpus */
  corpusMatches: number;
  /** the pattern and its hints are case-sensitive (else both are read lower-cased) */
  caseSensitive?: boolean;
}

const rows = fs
  .readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { text: string; split: string; set?: string });
const corpus = rows.map((r) => r.text).flatMap((t) => [t, ...t.split(/(?<=[.;!?])\s+|\n+/)]);
/** The lead's held-out sets are checked too (soundness needs every text) but never printed: a failure must not show a held-out sentence to tune to. */
const heldOut = new Set(rows.filter((r) => r.split === "holdout" && /^new\d+$/.test(r.set ?? "") && Number(r.set!.slice(3)) >= 12).flatMap((r) => [r.text, ...r.text.split(/(?<=[.;!?])\s+|\n+/)]));
export const shownSentence = (s: string): string => (heldOut.has(s) ? "(a held-out sentence, not shown)" : JSON.stringify(s));

export function testHints(p: Hinted): void {
  const hintsIn = (s: string) => p.hints.filter((h) => (p.caseSensitive ? s : s.toLowerCase()).includes(h));
  const sentences = [...corpus, ...p.only.map(([, s]) => s), ...(p.caseSensitive ? [] : p.only.map(([, s]) => s.toUpperCase()))];

  test(`every match of ${p.name} holds one of its hints (the capture corpus, its sentences, the sentences given)`, () => {
    let matched = 0;
    for (const s of sentences) {
      if (!p.re.test(s)) continue;
      matched++;
      assert.ok(p.mayHold(s), `${p.name} matches ${shownSentence(s)}, which holds no hint`);
    }
    assert.ok(matched >= p.corpusMatches, `the corpus exercises ${p.name} (${matched} matches)`);
  });

  test(`each hint of ${p.name} is needed: a sentence it matches holding that hint alone`, () => {
    for (const [hint, s] of p.only) {
      assert.ok(p.re.test(s), `${p.name} matches ${JSON.stringify(s)}`);
      assert.deepEqual(hintsIn(s), [hint], `${JSON.stringify(s)} holds ${hint} alone`);
    }
    // each sentence matched once, not once per hint (the pattern is large: that was a minute under load)
    const aloneHints = new Set<string>();
    for (const s of sentences) {
      const held = hintsIn(s);
      if (held.length === 1 && !aloneHints.has(held[0]!) && p.re.test(s)) aloneHints.add(held[0]!);
    }
    for (const hint of p.hints) {
      assert.ok(aloneHints.has(hint), `no sentence ${p.name} matches holds ${JSON.stringify(hint)} alone: the hint is not needed, or a sentence is missing`);
    }
    assert.equal(p.mayHold(p.none), false, `${JSON.stringify(p.none)} is not searched`);
  });
}
