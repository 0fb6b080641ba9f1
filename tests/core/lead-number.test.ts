import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CORPUS_MEMORIES } from "../fixtures/recall-corpus/memories.ts";
import { firstNumber, isNumber } from "../../src/core/recall-answer.ts";
import { leadAndNumber, WEAK_WORDS } from "../../src/core/recall-rank.ts";
import { STOP_WORDS } from "../../src/core/stop-words.ts";

// leadAndNumber finds the first number with one native search (firstNumber) instead of asking
// isNumber of every word: it must give what splitting every word and asking isNumber gives.

/** The first word isNumber takes, as every word split and asked gives it. */
function byEachWord(lower: string): string | null {
  return (lower.match(/[\p{L}\p{N}]+/gu) ?? []).find(isNumber) ?? null;
}

const ODD = [
  "", "no number here", "12ab then 7", "sixty-one users and 3 nodes", "the oneself tenth 2nd v2 x86 then fifteen", "twenty", "ONE Two", "a b 007 c",
  "²³ and ٣ then 4", "half of it", "hundreds of thousand", "dozens, then a dozen", "naïve café 1", "emoji 🎉 then 5", "tab\tseparated\t9", "under_score_1 then 2",
  "İstanbul has 2 offices", "it's 3 o'clock", "seven", "sixtyfour 64", "one-two", "thirty9 then forty",
];

describe("leadAndNumber with the first number found natively", () => {
  test("the first number word is the one every word asked of isNumber gives, on the corpus and on odd texts", () => {
    const texts = [...ODD, ...CORPUS_MEMORIES.map((m) => m.content)];
    let found = 0;
    for (const t of texts) {
      const lower = t.toLowerCase();
      const f = firstNumber(lower);
      assert.equal(f?.word ?? null, byEachWord(lower), t);
      if (f) {
        found++;
        // the words before it are the words the split gives before it
        const all = lower.match(/[\p{L}\p{N}]+/gu) ?? [];
        const i = all.findIndex(isNumber);
        assert.deepEqual(lower.slice(0, f.at).match(/[\p{L}\p{N}]+/gu) ?? [], all.slice(0, i), t);
      }
    }
    assert.ok(found > 30, `${found} texts with a number`);
  });

  test("leadAndNumber is what the split of every word gives", () => {
    // leadAndNumber as it was: every word split, isNumber asked of each
    const slow = (content: string): [string, string] | null => {
      const words = content.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const i = words.findIndex(isNumber);
      if (i < 0) return null;
      const lead = words.slice(0, i);
      // two meaningful words, one of them strong (branch recallfloor11: "the services run on node 18")
      const said = lead.filter((w) => !STOP_WORDS.has(w));
      if (said.length < 2 || !said.some((w) => !WEAK_WORDS.has(w))) return null;
      return [lead.join(" "), words[i]!];
    };
    let leads = 0;
    for (const t of [...ODD, ...CORPUS_MEMORIES.map((m) => m.content)]) {
      assert.deepEqual(leadAndNumber(t), slow(t), t);
      if (slow(t)) leads++;
    }
    assert.ok(leads > 20, `${leads} texts with a lead`);
    assert.deepEqual(leadAndNumber("The free trial is 30 days"), ["the free trial is", "30"]);
    assert.deepEqual(leadAndNumber("Feature builds keep twenty-one artifacts"), ["feature builds keep", "twenty"]);
  });
});
