import assert from "node:assert/strict";
import { extractWithOpinion } from "../../src/core/capture/extract.ts";

// The capture guards' tests pair each prompt a guard keeps out with a look-alike worth keeping:
// a guard that also swallowed its twin would pass a test of the first alone.

/** What the rules alone keep of a prompt (the learned second opinion off). */
export const keptByRules = (t: string) => extractWithOpinion(t, null).extraction.captures;

/** Each `[not kept, kept]` pair: the first stores nothing, its look-alike stores something. */
export function assertLookAlikes(pairs: readonly (readonly [string, string])[]): void {
  for (const [no, yes] of pairs) {
    assert.equal(keptByRules(no).length, 0, no);
    assert.ok(keptByRules(yes).length > 0, yes);
  }
}
