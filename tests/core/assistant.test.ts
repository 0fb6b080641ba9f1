import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { acceptsPrevious, explicitDecisions } from "../../src/core/capture/assistant.ts";

// The assistant's last message (Stop, SubagentStop): only its explicit decisions are candidates,
// never its suggestions; a candidate is kept only when the user's next prompt accepts it.

describe("decisions in the assistant's last message", () => {
  test("explicit decisions are taken, suggestions, questions, plain reports and code are not", () => {
    assert.deepEqual(explicitDecisions("Done. I switched the unit tests from Jest to Vitest, and all 42 pass. I'd recommend also moving the e2e tests to Playwright."), [
      "I switched the unit tests from Jest to Vitest, and all 42 pass.",
    ]);
    assert.deepEqual(explicitDecisions("We decided to use Redis for the session cache because it is already deployed. Let me know if you want me to add TTLs."), [
      "We decided to use Redis for the session cache because it is already deployed.",
    ]);
    assert.deepEqual(explicitDecisions("Decision: the API uses cursor pagination from now on.\n\n```ts\nconst pageSize = 50;\n```"), ["Decision: the API uses cursor pagination from now on."]);
    for (const none of [
      "You could use Postgres or MongoDB here. Postgres would give you transactions.",
      "I recommend we switch to pnpm. Should I go ahead?",
      "I've updated the README and fixed the typo in the config.",
      "One approach is to move the queue to SQS; another is to keep RabbitMQ.",
      "",
    ]) {
      assert.deepEqual(explicitDecisions(none), [], none);
    }
  });

  test("a short reply accepts; one with a reservation, a question or a new task does not", () => {
    for (const yes of ["ok", "OK, sounds good", "sounds good, go ahead", "Perfect, thanks!", "lgtm", "yes please"]) assert.ok(acceptsPrevious(yes), yes);
    for (const no of ["no, keep Jest", "ok but use pnpm", "why?", "Now add a test for the refund flow", "wait", "", `ok ${"x".repeat(300)}`]) assert.ok(!acceptsPrevious(no), no);
  });

  test("an acknowledgement then a new request accepts nothing; a yes to it accepts, whatever follows", () => {
    // look-alike pairs: the same opening, then either assent or another task
    const pairs: [string, string][] = [
      ["thanks", "thanks, now fix the login bug"],
      ["Thanks! Go ahead.", "Thanks! Now fix the login bug."],
      ["ok, do it", "ok, now fix the login bug"],
      ["yes, go with that", "yes, and also rename the env var"],
      ["great, thanks", "great work. Now deploy staging"],
      ["Cool, sounds good", "Cool. Let's look at the cache next"],
      ["Thank you so much!", "thanks for that, can you add logging"],
      ["fine by me", "fine-tune the model on the new data"],
      ["yes - go with it", "sure thing, the payments page is next"],
      ["Exactly.", "correct the typo in the README"],
      ["Approved.", "approve the PR for the docs"],
      ["keep it", "keep it simple and add logging"],
    ];
    for (const [yes, no] of pairs) {
      assert.ok(acceptsPrevious(yes), yes);
      assert.ok(!acceptsPrevious(no), no);
    }
    for (const yes of ["agreed", "Agreed.", "sounds good, do it", "ok go ahead", "that works", "agreed, now add tests for the refund flow", "LGTM, ship it"]) assert.ok(acceptsPrevious(yes), yes);
  });
});
