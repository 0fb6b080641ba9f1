import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { firstTrouble, isTrouble, mayBeTrouble, TROUBLE } from "../../src/core/capture/cues.ts";
import { alternativeGroups, topAlternatives } from "../../src/core/capture/pattern-groups.ts";
import { REPO } from "../helpers/env.ts";

// cues.ts searches TROUBLE as its alternatives in groups (core/capture/pattern-groups.ts): a cold
// hook's question compiled all 4,000 characters of it for one yes or no. The groups must answer as
// the pattern does: isTrouble as TROUBLE.test, firstTrouble as TROUBLE.exec (the same text at the
// same position).

const HELD_OUT = new Set(["new12", "new13", "new14", "new15", "new16", "new17", "new18", "new19"]);
const sentences = fs
  .readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { text: string; set?: string })
  .filter((r) => !HELD_OUT.has(r.set ?? ""))
  .flatMap((r) => [r.text, ...r.text.split(/(?<=[.;!?,])\s+|\n+/)]);

test("topAlternatives splits at the top level only: groups, classes and escapes keep their bars", () => {
  assert.deepEqual(topAlternatives("\\b(?:a|(?:b|c)|[|x]|\\||d(?:e|f)g|(?<=x\\s)y|(?<!z)w)\\b"), ["a", "(?:b|c)", "[|x]", "\\|", "d(?:e|f)g", "(?<=x\\s)y", "(?<!z)w"]);
  assert.deepEqual(topAlternatives("\\b(?:[\\]|]|a)\\b"), ["[\\]|]", "a"]);
  // capturing groups would be numbered otherwise in a group: no split
  assert.equal(topAlternatives("\\b(?:a|(b|c))\\b"), null);
  assert.equal(topAlternatives("\\b(?:a|(?<n>b))\\b"), null);
  // another shape: no split
  assert.equal(topAlternatives("\\b(?:a|b)c|d\\b"), null);
  assert.equal(topAlternatives("(?:a|b)"), null);
  assert.equal(topAlternatives("\\b(?:a)|(?:b)\\b"), null);
});

test("TROUBLE's alternatives, joined again, are its source; grouped in tens with its flags", () => {
  const alts = topAlternatives(TROUBLE.source)!;
  assert.ok(alts.length > 100, `${alts.length} alternatives`);
  assert.equal(`\\b(?:${alts.join("|")})\\b`, TROUBLE.source);
  const groups = alternativeGroups(TROUBLE, 10);
  assert.equal(groups.length, Math.ceil(alts.length / 10));
  for (const g of groups) assert.equal(g.flags, TROUBLE.flags);
  assert.deepEqual(groups.flatMap((g) => topAlternatives(g.source)), alts);
  // a global or sticky pattern, or one of few alternatives, is kept whole
  assert.deepEqual(alternativeGroups(/\b(?:a|b)\b/gi, 1).map(String), ["/\\b(?:a|b)\\b/gi"]);
  assert.deepEqual(alternativeGroups(/\b(?:a|b)\b/i, 10).map(String), ["/\\b(?:a|b)\\b/i"]);
  assert.deepEqual(alternativeGroups(new RegExp("\\b(?:a|b)\\b", "v"), 1).map(String), ["/\\b(?:a|b)\\b/v"]);
  assert.deepEqual(alternativeGroups(/\b(?:a|b)\b/i, 1).map(String), ["/\\b(?:a)\\b/i", "/\\b(?:b)\\b/i"]);
});

test("the groups answer as TROUBLE on every tunable text and sentence of the capture corpus, each group needed", () => {
  const groups = alternativeGroups(TROUBLE, 10);
  const used = new Set<number>();
  let matched = 0;
  for (const s of sentences) {
    const whole = TROUBLE.test(s);
    const first = groups.findIndex((g) => g.test(s));
    assert.equal(first >= 0, whole, s);
    if (whole) matched++;
    if (first >= 0) used.add(first);
    assert.equal(isTrouble(s), mayBeTrouble(s) && whole, s);
    const m = mayBeTrouble(s) ? TROUBLE.exec(s) : null;
    const g = firstTrouble(s);
    assert.deepEqual(g && { index: g.index, text: [...g], input: g.input }, m && { index: m.index, text: [...m], input: m.input }, s);
  }
  assert.ok(matched > 1000, `${matched} matches`);
  // a sentence whose first matching group is each group: none could go unnoticed
  assert.deepEqual([...used].sort((a, b) => a - b), groups.map((_, i) => i));
});

test("firstTrouble is TROUBLE's leftmost match; at one position the earlier alternative's, whichever group holds it", () => {
  // "failing" (an early group) comes after "keeps" in the text but TROUBLE's leftmost match is "keeps climbing"
  for (const s of ["the heap keeps climbing and the pods are failing", "the pods are failing and the heap keeps climbing", "it runs twice a day", "the cache evicts keys, then the api times out"]) {
    const m = TROUBLE.exec(s)!;
    const g = firstTrouble(s)!;
    assert.equal(g.index, m.index, s);
    assert.equal(g[0], m[0], s);
  }
  assert.equal(firstTrouble("add a unit test for the login page redirect"), null);
});

test("isTrouble at a word boundary, as TROUBLE: inside a word no alternative matches", () => {
  for (const s of ["the build hangs", "it times out", "the heap creeps up", "the cache evicts everything", "the budget doubles in a year"]) assert.equal(isTrouble(s), true, s);
  for (const s of ["the hangsman", "a timeoutless call", "the stallion", "no trouble here"]) assert.equal(isTrouble(s), false, s);
});
