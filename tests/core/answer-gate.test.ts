import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { tableWords } from "../../src/core/capture/pattern-gate.ts";
import { answerPatterns, ASKS, asksFor, CHOICE } from "../../src/core/recall-answer.ts";
import { CORPUS_QUERIES } from "../fixtures/recall-corpus/queries.ts";
import { REPO } from "../helpers/env.ts";

// asksFor searches each of its patterns only in a query holding one of the words the pattern
// cannot match without (capture/pattern-gate.ts, the words read at build time): the same answer
// for every query, fewer patterns compiled in a cold hook.

/** asksFor with every pattern searched, as before the gate. */
function everyPattern(query: string, names: boolean) {
  const q = query.toLowerCase();
  for (const [re, kind] of ASKS) if (re.test(q)) return kind;
  return names && CHOICE.test(q) ? "choice" : null;
}

describe("asksFor through the pattern gate", () => {
  test("every pattern has its words in the committed table", () => {
    for (const re of answerPatterns()) assert.ok(tableWords(re)?.length, re.source.slice(0, 60));
  });

  test("the same answer as every pattern searched, on the recall corpus's queries and the capture corpus's texts", () => {
    const capture = fs.readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);
    const queries = [...CORPUS_QUERIES.map((q) => q.q), ...capture, "How long?", "WHEN DO WE DEPLOY", "version", "max upload size", "so when"];
    const kinds = new Map<string, number>();
    for (const q of queries) {
      for (const names of [false, true]) {
        const kind = asksFor(q, names);
        assert.equal(kind, everyPattern(q, names), q.slice(0, 80));
        kinds.set(String(kind), (kinds.get(String(kind)) ?? 0) + 1);
      }
    }
    // every kind is among the answers
    for (const k of ["frequency", "duration", "time", "amount", "count", "version", "choice", "null"]) assert.ok((kinds.get(k) ?? 0) > 0, k);
  });

  test("a query holding none of a pattern's words is not searched with it", () => {
    const { test: t } = RegExp.prototype;
    const searched: RegExp[] = [];
    RegExp.prototype.test = function (s: string) {
      searched.push(this);
      return t.call(this, s);
    };
    try {
      asksFor("yes, go on", true);
      asksFor("Why does the billing worker run out of connections during the nightly batch, and how did we fix the timeout?", true);
    } finally {
      RegExp.prototype.test = t;
    }
    const mine = new Set(answerPatterns());
    // the second query holds " of" (the duration pattern's "timeout of") and nothing else's words
    assert.deepEqual(searched.filter((re) => mine.has(re)).map((re) => ASKS.find(([r]) => r === re)?.[1] ?? "choice"), ["duration"]);
  });
});
