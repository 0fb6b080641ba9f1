import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { FIXED, FIXED_HINTS, mayBeFixed } from "../../src/core/capture/cues.ts";
import { REPO } from "../helpers/env.ts";
import { shownSentence } from "../helpers/pattern-hints.ts";

// mayHoldCue searches FIXED only in a sentence holding one of FIXED_HINTS (a cold hook compiled the
// pattern for every sentence). Sound only if every match of FIXED holds a hint: checked on every
// text and sentence of the capture corpus, and on one sentence per hint that holds no other hint,
// so that leaving any hint out fails this test.

const ONLY: [string, string][] = [
  ["so", "it broke so we added a retry"],
  ["and", "it broke and we added a retry"],
  ["then", "it broke, then we added a retry"],
  ["from", "latency went from 3s to 200ms"],
  ["until", "the builds failed until we pinned the image"],
  ["now", "p99 was 900ms, now it's 120ms"],
  ["let", "we let it finish"],
  ["stopped", "the pod stopped crashing"],
  ["made", "we made it pass"],
  ["got", "we got it under 5 seconds"],
  ["brought", "we brought it under 5 seconds"],
  ["took", "we took it below 5 seconds"],
  ["ended", "we ended it"],
  ["killed", "we killed it"],
  ["eliminated", "we eliminated the timeouts"],
  ["prevented", "we prevented the crashes"],
  ["removed", "we removed the warnings"],
  ["cut", "we cut it in half"],
  ["fix", "the bug is fixed"],
  ["remedy", "the remedy was to restart it"],
  ["cured", "the pool size cured it"],
  ["trick", "the pool size did the trick"],
  ["away", "the errors went away"],
  ["around", "we worked around the bug"], // and "workaround: ..."
  ["gone", "the errors are gone"],
  ["disappeared", "the errors disappeared"],
  ["longer", "it no longer crashes"],
];

const hintsIn = (s: string) => FIXED_HINTS.filter((h) => s.toLowerCase().includes(h));

test("every match of FIXED holds one of its hints (the capture corpus, its sentences, one sentence per hint)", () => {
  const texts = fs
    .readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const sentences = texts.flatMap((t) => [t, ...t.split(/(?<=[.;!?])\s+|\n+/)]);
  let matched = 0;
  for (const s of [...sentences, ...ONLY.map(([, s]) => s), ...ONLY.map(([, s]) => s.toUpperCase())]) {
    if (!FIXED.test(s)) continue;
    matched++;
    assert.ok(mayBeFixed(s), `FIXED matches ${shownSentence(s)}, which holds no hint`);
  }
  assert.ok(matched > 100, `the corpus exercises FIXED (${matched} matches)`);
});

test("each hint is needed: a sentence FIXED matches holding that hint alone", () => {
  assert.deepEqual(ONLY.map(([h]) => h).sort(), [...FIXED_HINTS].sort(), "one sentence per hint");
  for (const [hint, s] of ONLY) {
    assert.ok(FIXED.test(s), `FIXED matches ${JSON.stringify(s)}`);
    assert.deepEqual(hintsIn(s), [hint], `${JSON.stringify(s)} holds ${hint} alone`);
  }
  assert.equal(mayBeFixed("yes, go on"), false, "a reply holding none is not searched");
});
