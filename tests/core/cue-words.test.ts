import { CHANGE, CUE_WORDS, FORBID, NOT_CHOOSING, NOT_DOING, PLAN, RULE } from "../../src/core/capture/cues.ts";
import { testHints } from "../helpers/pattern-hints.ts";

// mayHoldCue and readCues search a cue only in a sentence holding one of its CUE_WORDS (see pattern-hints.ts).
const CASES: [string, RegExp, number, [string, string][]][] = [
  ["RULE", RULE, 400, [
    ["guideline", "that is the guideline"],
    ["in our", "in our repo, all handlers are async"],
  ]],
  ["FORBID", FORBID, 100, [
    ["forbidden", "that is forbidden"],
    ["prohibited", "that is prohibited"],
    ["banned", "that is banned"],
    ["must", "you mustn't do that"],
  ]],
  ["CHANGE", CHANGE, 250, [
    ["scrapped", "we scrapped the old queue"],
    ["tore", "they tore down the cluster"],
    ["shut down", "we shut down the cluster"],
    ["deleted", "we deleted the cluster"],
    ["deprecat", "we are deprecating it"],
    ["sunset", "we are sunsetting it"],
    ["abandon", "we abandoned it"],
    ["dump", "we dumped it"],
  ]],
  ["NOT_CHOOSING", NOT_CHOOSING, 25, [
    ["drop", "we dropped using redis"],
    ["rejected", "we rejected the redis plan"],
    ["turned down", "we turned down redis"],
    ["said no", "we said no to redis"],
    ["vetoed", "we vetoed redis"],
  ]],
  ["NOT_DOING", NOT_DOING, 40, [["clear", "we are steering clear of redis"]]],
  ["PLAN", PLAN, 40, []],
];

for (const [name, re, corpusMatches, only] of CASES) {
  const words = CUE_WORDS.get(re)!;
  testHints({ name, re, hints: words, mayHold: (s) => words.some((w) => s.toLowerCase().includes(w)), none: "add a unit test for the login page redirect", corpusMatches, only });
}
