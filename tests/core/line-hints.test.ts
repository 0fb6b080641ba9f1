import { LOG_LINE, LOG_LINE_HINTS, TOOL_LINE, TOOL_LINE_HINTS } from "../../src/core/capture/text.ts";
import { testHints } from "../helpers/pattern-hints.ts";

// prepareText searches LOG_LINE and TOOL_LINE only in a line holding one of their hints (see pattern-hints.ts).
testHints({
  name: "LOG_LINE",
  re: LOG_LINE,
  hints: LOG_LINE_HINTS,
  mayHold: (s) => LOG_LINE_HINTS.some((h) => s.includes(h)),
  none: "add a unit test for the login page redirect",
  corpusMatches: 200,
  caseSensitive: true,
  only: [
    ["#", "#12 [build 3/7] RUN npm ci"],
    ["failed", "Module build failed"],
    ["DEBUG", "DEBUG cache warm"],
    ["TRACE", "TRACE span open"],
    ["FATAL", "FATAL disk gone"],
    ["CRITICAL", "CRITICAL disk gone"],
    ["NOTICE", "NOTICE disk low"],
    ["SEVERE", "SEVERE disk low"],
    ["PANIC", "PANIC disk gone"],
    ["(", "at handler (server"],
    ["Traceback", "Traceback here"],
    ["goroutine", "goroutine 42 running"],
    ["...", "... 12 more"],
  ],
});

testHints({
  name: "TOOL_LINE",
  re: TOOL_LINE,
  hints: TOOL_LINE_HINTS,
  mayHold: (s) => TOOL_LINE_HINTS.some((h) => s.includes(h)),
  none: "add a unit test for the login page redirect",
  corpusMatches: 200,
  caseSensitive: true,
  only: [
    ["warn", "yarn warn deprecated"],
    ["notice", "npm notice new version"],
    ["\u26a0", "\u26a0 slow build"],
    ["\u2716", "\u2716 3 problems"],
    ["\u2718", "\u2718 lint"],
    [">>>", ">>> import x"],
    ["-->", "--> src/main.rs"],
    ["==>", "==> Building"],
    ["@@", "@@ -1,4 +1,5 @@"],
    ["+++", "+++ b/src/app.ts"],
    ["---", "--- a/src/app.ts"],
    ["ok", "ok 12 parses input"],
    ["pending", "3 pending"],
    ["compiled", "compiled successfully"],
    ["SUCCESS", "BUILD SUCCESSFUL in 3s"],
    ["Process completed", "Process completed with exit code 1"],
    ["[Request", "[Request interrupted by user]"],
  ],
});
