import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { gatedPatterns, patternWordsModule } from "../../scripts/gen-pattern-words.ts";
import { mayHoldCue, standingInstruction, wordGatedPatterns } from "../../src/core/capture/cues.ts";
import { readSentence } from "../../src/core/capture/extract.ts";
import { mayMatch, tableWords } from "../../src/core/capture/pattern-gate.ts";
import { necessaryWords } from "../../src/core/capture/pattern-words.ts";
import { REPO } from "../helpers/env.ts";
import { shownSentence } from "../helpers/pattern-hints.ts";

// A capture pattern is searched only in a sentence holding one of the words it cannot match
// without (pattern-words.ts), read from its source at build time (pattern-words.gen.ts). Sound by
// construction: the reader's rules, each pinned below by a pattern that would break it, and every
// gated pattern checked on every text and sentence of the capture corpus.

const words = (re: RegExp) => {
  const w = necessaryWords(re);
  return w === null ? null : [...w].sort();
};

describe("the words a pattern cannot match without", () => {
  test("a literal run, the best of a sequence's parts, every alternative's words", () => {
    assert.deepEqual(words(/\bwe chose\b/i), ["we chose"]);
    assert.deepEqual(words(/\b(?:we|i)\s+(?:chose|picked)\b/i), ["chose", "picked"]);
    assert.deepEqual(words(/foo|bar|baz/), ["bar", "baz", "foo"]);
    // upper case read lower-cased (the sentence is): sound with or without the i flag
    assert.deepEqual(words(/We Chose/), ["we chose"]);
  });

  test("an optional part has no words, and ends the run around it", () => {
    assert.deepEqual(words(/colou?r/), ["colo"]);
    assert.deepEqual(words(/(?:very )?fast/), ["fast"]);
    assert.deepEqual(words(/ab*cd/), ["cd"]);
    assert.deepEqual(words(/a{0,3}bc/), ["bc"]);
    assert.equal(words(/(?:abc)?/), null);
    // an alternative with no words: no words at all
    assert.equal(words(/abc|d?/), null);
    assert.equal(words(/abc|/), null);
  });

  test("a part repeated at least once keeps its words, the run ending with its first repeat", () => {
    assert.deepEqual(words(/ab+c/), ["ab"]);
    assert.deepEqual(words(/(?:xyz)+q/), ["xyz"]);
    assert.deepEqual(words(/a{2,}bc/), ["bc"]);
  });

  test("a class, an escape of a letter, an assertion or a lookaround ends a run and gives no word", () => {
    assert.deepEqual(words(/ab[cd]ef/), ["ab"]);
    assert.deepEqual(words(/ab\sdef/), ["def"]);
    assert.deepEqual(words(/\x41bc/), ["bc"]);
    assert.deepEqual(words(/\u0041bcd/), ["bcd"]);
    assert.deepEqual(words(/ab(?=cdefg)h/), ["ab"]);
    assert.deepEqual(words(/(?<!xyzw)ab/), ["ab"]);
    assert.deepEqual(words(/(a)bc\1/), ["bc"]);
    assert.deepEqual(words(/ab.cde/), ["cde"]);
    // an escaped syntax character stands for itself
    assert.deepEqual(words(/n\.b\./), ["n.b."]);
    assert.deepEqual(words(/\(wip\)/), ["(wip)"]);
    assert.equal(words(/[abc]+/), null);
  });

  test("no words where the flags or the source say a sentence's letters may not be the match's", () => {
    assert.equal(necessaryWords(/abc/gi), null, "global: a test moves lastIndex");
    assert.equal(necessaryWords(/abc/y), null, "sticky");
    assert.equal(necessaryWords(/s/iu), null, "Unicode case folding: ſ is s");
    assert.deepEqual(words(/caf\u00e9s/), ["caf"], "a letter outside ASCII ends the run");
    assert.deepEqual(words(/\p{L}+abc/u), ["abc"]);
  });

  test("a pattern this reader cannot read has no words", () => {
    assert.equal(necessaryWords(new RegExp("a{x")), null);
    assert.equal(necessaryWords(new RegExp("ab]")), null);
    assert.equal(necessaryWords(/\e/), null);
  });

  test("every gated pattern's words hold for every match in the capture corpus (its texts, sentences, and both cases)", () => {
    const rows = fs.readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8").split("\n").filter(Boolean);
    const texts = rows.map((l) => (JSON.parse(l) as { text: string }).text).flatMap((t) => [t, ...t.split(/(?<=[.;!?])\s+|\n+/)]);
    const patterns = gatedPatterns();
    let checked = 0;
    for (const re of patterns) {
      const w = necessaryWords(re);
      if (w === null) continue; // always searched
      for (const t of texts) {
        for (const s of [t, t.toUpperCase()]) {
          if (!re.test(s)) continue;
          checked++;
          const lower = s.toLowerCase();
          assert.ok(w.some((x) => lower.includes(x)), `${re.source.slice(0, 60)} matches ${shownSentence(s)}, which holds none of its words`);
        }
      }
    }
    assert.ok(checked > 5000, `the corpus exercises the patterns (${checked} matches)`);
  });

  test("the committed table is the one read from the patterns as they are (npx bun scripts/gen-pattern-words.ts)", () => {
    assert.equal(fs.readFileSync(path.join(REPO, "src/core/capture/pattern-words.gen.ts"), "utf8"), patternWordsModule());
    for (const re of gatedPatterns()) if (necessaryWords(re) !== null) assert.deepEqual(tableWords(re), necessaryWords(re), re.source.slice(0, 60));
  });

  test("a pattern the table does not hold is always searched", () => {
    assert.equal(mayMatch(/zzqx/, "nothing here"), true);
    assert.equal(mayMatch(wordGatedPatterns()[0]!, "nothing here"), false);
  });
});

describe("capture's gates search a pattern only in a sentence holding one of its words", () => {
  /** Each pattern searched while fn runs, with the texts it was searched in. */
  const searchedBy = (fn: () => unknown): Map<RegExp, string[]> => {
    const searched = new Map<RegExp, string[]>();
    const note = (re: RegExp, s: string) => searched.set(re, [...(searched.get(re) ?? []), String(s)]);
    const { test: t, exec: e } = RegExp.prototype;
    RegExp.prototype.test = function (s: string) {
      note(this, s);
      return t.call(this, s);
    };
    RegExp.prototype.exec = function (s: string) {
      note(this, s);
      return e.call(this, s);
    };
    try {
      fn();
    } finally {
      RegExp.prototype.test = t;
      RegExp.prototype.exec = e;
    }
    return searched;
  };

  for (const s of ["add a unit test for the login page redirect", "yes, go on", "refactor the billing worker so it uses the new queue client", "looks good, commit it and push"]) {
    test(`readSentence, mayHoldCue and standingInstruction on ${JSON.stringify(s)}`, () => {
      const gated = gatedPatterns().filter((re) => necessaryWords(re) !== null);
      const searched = searchedBy(() => (readSentence(s), mayHoldCue(s), standingInstruction(s)));
      const needless = gated.flatMap((re) => (searched.get(re) ?? []).filter((text) => !necessaryWords(re)!.some((w) => text.toLowerCase().includes(w))).map((text) => `${re.source.slice(0, 50)} in ${JSON.stringify(text)}`));
      assert.deepEqual(needless, []);
      assert.ok(gated.filter((re) => !searched.has(re)).length >= 40, "most of them are not searched");
    });
  }
});
