import { mayBeSymptomOrResult, SYMPTOM_OR_RESULT, SYMPTOM_OR_RESULT_HINTS } from "../../src/core/capture/cues.ts";
import { testHints } from "../helpers/pattern-hints.ts";

// mayHoldCue searches SYMPTOM_OR_RESULT only in a sentence holding one of its hints (see pattern-hints.ts).
testHints({
  name: "SYMPTOM_OR_RESULT",
  re: SYMPTOM_OR_RESULT,
  hints: SYMPTOM_OR_RESULT_HINTS,
  mayHold: mayBeSymptomOrResult,
  none: "add a unit test for the login page redirect",
  corpusMatches: 150,
  only: [
    ["0", "the cpu is at 0%"],
    ["1", "the build takes 1 hour"],
    ["2", "the build takes 2 hours"],
    ["5", "the build takes 5 hours"],
    ["9", "the build takes 9 hours"],
    ["blocking", "it's blocking our merges"],
    ["killing", "it is killing our db"],
    ["hurting", "it is hurting our team"],
    ["eating", "it is eating our memory"],
    ["smooth", "that smoothed it out"],
    ["even", "that evened things out"],
    ["run", "it runs clean"],
    ["fine", "it is fine now"],
    ["away", "the errors went away"],
    ["disappeared", "the errors disappeared"],
    ["brought", "we brought it under a second"],
    ["took", "we took it under a second"],
    ["back", "we put us back within budget"],
  ],
});
