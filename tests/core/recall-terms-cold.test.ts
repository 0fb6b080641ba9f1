import assert from "node:assert/strict";
import { test } from "node:test";
import { recallTerms } from "../../src/core/recall-rank.ts";

// What recallTerms leaves unsearched in a prompt that cannot need it (a cold hook compiles each
// pattern at its first search): the one-letter names joined by a sign ("C#", "n+1") are looked for
// only in a prompt holding a "+" or a "#".

function matchAllSources(fn: () => unknown): string[] {
  const proto = RegExp.prototype as unknown as Record<symbol, (this: RegExp, s: string) => unknown>;
  const matchAll = proto[Symbol.matchAll]!;
  const seen: string[] = [];
  proto[Symbol.matchAll] = function (s: string) {
    seen.push(this.source);
    return matchAll.call(this, s);
  };
  try {
    fn();
  } finally {
    proto[Symbol.matchAll] = matchAll;
  }
  return seen;
}

test("a prompt without + or # is not searched for joined names; one with them finds them", () => {
  const joinedSearch = (s: string) => s.includes("(\\+\\+|[+#])");
  assert.deepEqual(matchAllSources(() => recallTerms("why does the billing worker run out of connections?")).filter(joinedSearch), []);
  let terms: ReturnType<typeof recallTerms> | undefined;
  assert.equal(matchAllSources(() => (terms = recallTerms("do we fix the N+1 queries in the C# service?"))).filter(joinedSearch).length, 1);
  assert.deepEqual([...(terms!.joined ?? new Map())], [["n+1", ["n", "1"]], ["c#", ["c"]]]);
});
