import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assertLookAlikes, keptByRules } from "../helpers/look-alikes.ts";
import { saidToKeep, sessionTalk, sessionTalkForModel } from "../../src/core/capture/session-talk.ts";

// Branch capture19: the false stores tune19's voices showed (QA, meeting summaries, Markdown
// status lists, instructions to AI agents, a security team still choosing), each beside a
// look-alike still kept. Every "not kept" line here is kept by integ20's rules; the two "said so
// it is kept" lines are missed by them.
const kept = keptByRules;

describe("capture: talk of one session, run or meeting's progress", () => {
  /** Each line not kept -> its look-alike, kept. */
  const twins: Record<string, string> = {
    // a task handed over for one session
    "Task for this session only: rewrite the error messages in src/errors.ts and open a draft PR.":
      "Error messages in src/errors.ts are always written in plain English, never with stack traces.",
    // a brainstorm under a heading
    "## What if\n- we dropped Safari 14 support\n- we moved to edge functions\n(just brainstorming)":
      "## Browser support\n- We dropped Safari 14 support going forward.",
    // a status list under a "Status" heading
    "## Status\n- API: done\n- Android: blocked on the design review\n\n## Next\n- demo Monday":
      "The Android build is blocked on the signing key whenever the keystore password rotates.",
    // a progress count
    "perf pass 1 of 3 done, one timeout so far on search":
      "The load test fails on every pass because the connection pool is capped at 20.",
    // a test run's summary pasted with a line of the speaker's
    "Smoke run, FYI:\nSuites: 31 passed, 1 failed\nFailed: checkout_guest (timeout 30000ms)":
      "The checkout_guest test fails whenever the payment sandbox is slow, because its timeout is 30 s.",
    // a failed run being run again
    "The deploy job on this PR failed because the runner ran out of disk, re-running":
      "The deploy job fails because the runner runs out of disk; we now prune images first.",
    // options still weighed
    "the platform team is evaluating Vault and Doppler for secrets, no choice made":
      "The platform team settled on Vault for secrets.",
    // a greeting with a rule word after it
    "happy monday all, no new incidents over the weekend 🎉":
      "good morning all — after the review we decided never to deploy on Fridays again, starting this week",
  };
  const pairs = Object.entries(twins);

  test("not kept; each look-alike is", () => assertLookAlikes(pairs));

  test("the guard, read on its own", () => {
    assert.equal(sessionTalk("the platform team is evaluating Vault and Doppler for secrets, no choice made", "", "decision"), "not decided yet");
    assert.equal(sessionTalk("Failed: checkout_guest (timeout 30000ms)", "Failed: checkout_guest (timeout 30000ms)", "problem"), "pasted test output");
    // a choice said in so many words is never undone by the occasion
    assert.equal(sessionTalk("We decided to keep Vault", "Notes for this run. We decided to keep Vault.", "decision"), null);
    // a status heading only reads trouble as status: a decision under it stays
    assert.equal(sessionTalk("We use Renovate for every repo", "## Status\n- We use Renovate for every repo", "decision"), null);
    // a long sentence after a greeting carries news
    assert.equal(sessionTalk("morning all — the release went out, two bugs filed, and after a lot of debate we're keeping MySQL for billing", "", "decision"), null);
  });

  test("steps of a task handed to an agent, or a promise to send something soon, are never the learned model's adds", () => {
    /** [sentence, its message, never the model's add]. */
    const cases: [string, string, boolean][] = [
      ["Step 1: read src/billing and list every function over 50 lines", "", true],
      ["After that, run the unit tests and paste me the summary line", "", true],
      ["I shall circulate the minutes shortly", "", true],
      ["We are presently weighing two options for the identity provider", "", true],
      ["The planner agent runs on the large model and the coders on the small one", "", false],
      ["Then we settled on Okta for the identity provider", "long instructions today", false],
      // progress and a moment just past are status
      ["The nightly job is running late, it's still on step 3", "", true],
      ["Vector stopped shipping logs to Loki about an hour ago", "", true],
      ["No one can push to main at the moment", "", true],
      ["The engagement has proceeded broadly to plan", "", true],
      ["For this task, first show me the plan before you edit any files", "For this task, first show me the plan before you edit any files.", true],
      ["Vector ships logs to Loki from every node", "For this repo, Vector ships logs to Loki from every node.", false],
    ];
    for (const [sentence, message, guarded] of cases) assert.equal(sessionTalkForModel(sentence, message), guarded, sentence);
  });
});

describe("capture: said so it is kept", () => {
  test("'remember that' keeps a rule about another's data; 'their data' alone stays theirs", () => {
    assert.ok(kept("remember that the Initech contract says their backups stay in Dublin so never copy their tenant to another region").length > 0);
    assert.equal(saidToKeep("remember that the contract says their backups stay in Dublin"), true);
    assert.equal(saidToKeep("I remember their backups used to be in Dublin"), false);
  });

  test("'Meeting outcome:' keeps a change that mentions a day off", () => {
    assert.ok(kept("Meeting outcome: we're moving support rotations from weekly to three-day shifts next month, and whoever closes a shift gets the next day off.").length > 0);
    // the same day off as small talk stays out
    assert.equal(kept("I'm taking a day off tomorrow, see you Thursday.").length, 0);
  });
});

describe("capture: a standing overrun or exposure said with no trouble word", () => {
  test("kept as a problem; a look-alike that is no trouble, or passed, is not kept", () => {
    const problem = (t: string) => kept(t).some((c) => c.type === "problem");
    // integ20's rules keep neither of these two
    assert.ok(problem("The nightly export exceeds its two-hour window at quarter-end because the reconciliation runs on one thread."));
    assert.ok(problem("The deploy key has admin rights on every repo, so a leaked key could rewrite history anywhere."));
    // the look-alikes: no trouble, or trouble that passed
    assert.equal(kept("We made the handbook public so anyone can read it.").length, 0);
    assert.equal(kept("The nightly export exceeded its window once last night, fine again now.").length, 0);
  });
});

describe("capture: a preference about how the work's text is written is about the work", () => {
  test("kept; a taste about nothing of the work is not", () => {
    // integ20's rules read this as "not about software"
    assert.ok(kept("For reports written for me, I would prefer American spelling and headings in sentence case.").some((c) => c.type === "preference"));
    assert.equal(kept("I prefer tea over coffee in the mornings.").length, 0);
  });
});
