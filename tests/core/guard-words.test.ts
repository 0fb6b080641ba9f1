import { REPORTED, REPORTED_WORDS, UNDECIDED, UNDECIDED_WORDS } from "../../src/core/capture/signals.ts";
import { DISTANT, DISTANT_WORDS } from "../../src/core/capture/not-ours.ts";
import { testHints } from "../helpers/pattern-hints.ts";

// extract.ts searches the REPORTED and UNDECIDED guards, and not-ours.ts DISTANT, only in a sentence holding one of their words (see pattern-hints.ts).
const CASES: [string, RegExp, readonly string[], number, [string, string][]][] = [
  ["REPORTED", REPORTED, REPORTED_WORDS, 100, [
    ["read", "the readme reads otherwise"],
    ["mention", "the doc mentions redis"],
    ["telling", "he keeps telling me"],
  ]],
  ["UNDECIDED", UNDECIDED, UNDECIDED_WORDS, 100, [
    ["tbd", "the queue is tbd"],
    ["fence", "i'm on the fence"],
    ["choose", "we need to choose a queue"],
    ["pick", "we need to pick a queue"],
    ["assess", "we will assess redis"],
    ["explore", "we will explore redis"],
    ["look into", "we will look into redis"],
    ["consider", "we will consider redis"],
    ["discuss", "we will discuss redis"],
    ["open for", "the api is open for comments"],
    ["up for", "it is up for debate"],
    ["some day", "some day we will fix it"],
    ["these days", "one of these days we will fix it"],
    ["should", "we should talk"],
    ["agree", "though we haven't agreed on anything"],
    ["settled", "the queue is not settled"],
    ["nothing", "nothing is final yet"],
    ["no decision", "no decision yet on redis"],
    ["no choice", "no choices made yet"],
    ["no conclusion", "no conclusions here"],
    ["commit", "we haven't committed to redis"],
    ["draft", "a draft rfc for redis"],
    ["open rfc", "there is an open rfc on redis"],
    ["open proposal", "an open proposal for redis"],
    ["open adr", "an open adr on redis"],
    ["idea for", "an idea for later: redis"],
  ]],
  ["DISTANT", DISTANT, DISTANT_WORDS, 20, [
    ["reportedly", "reportedly they use redis"],
    ["relevant", "that is not relevant to us"],
    ["applicable", "that is not applicable to us"],
    ["apply", "that doesn't apply to us"],
    ["affect", "that doesn't affect us"],
    ["sceptical", "i'm sceptical"],
    ["unconvinced", "i'm unconvinced"],
    ["old", "my old team used redis"],
    ["previous", "my previous job used redis"],
    ["former", "my former job used redis"],
    ["last", "my last job used redis"],
    ["teams", "in many teams redis is used"],
    ["companies", "in many companies redis is used"],
    ["projects", "in many projects redis is used"],
    ["codebases", "in many codebases redis is used"],
    ["shops", "in many shops redis is used"],
  ]],
];

for (const [name, re, words, corpusMatches, only] of CASES) {
  testHints({ name, re, hints: words, mayHold: (s) => words.some((w) => s.toLowerCase().includes(w)), none: "add a unit test for the login page redirect", corpusMatches, only });
}
