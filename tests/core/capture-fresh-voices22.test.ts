import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { historyOnly, passingTrouble, statusNow } from "../../src/core/capture/passing-talk.ts";
import { relayedTalk } from "../../src/core/capture/relayed-talk.ts";
import { reportList, sessionTalk, sessionTalkForModel } from "../../src/core/capture/session-talk.ts";
import { assertLookAlikes, keptByRules } from "../helpers/look-alikes.ts";

// Branch capture22: the false stores tune22's voices showed (an Android team, a bioinformatics lab,
// incident retros, support escalations, a CTO's all-hands notes, staff-engineer reviews, platform
// tickets), each guard by the shape of the sentence, each "not kept" line beside a look-alike still
// kept. Every "not kept" line here is kept by a68d714 (rules, or rules + model where said); none is
// a corpus row's wording.

describe("capture: tune22's false stores, each beside a look-alike", () => {
  const pairs: [string, string][] = [
    // a report's list under its heading ("<X> update / notes / timeline / summary: a, b, c")
    ["Sprint update: the login screen shipped, two tests failed on the tablet and are being fixed, Ana is out Friday.", "Sprint update: we decided that every screen ships with a dark-mode snapshot test, the login screen is done."],
    ["Offsite notes: good food, thanks to the ops team for the quarter, the new travel policy is on the wiki, and the talks ran long.", "Offsite notes: from now on every team publishes its roadmap in the wiki, the talks ran long, good food."],
    // a timeline: three clock times in one sentence
    ["INC-88 timeline: 03:01 error rate alert fired, 03:04 acked, 03:09 rollback started, 03:15 errors normal.", "The error rate alert fires every night at 03:00 because the batch import saturates the database."],
    // one occasion, redone by hand at the end of the sentence
    ["all the integration tests failed last night because the build agent ran out of memory, restarted it and reran", "All the integration tests fail every night because the build agent runs out of memory; we now run them on the large agents."],
    // ", works now" closing a sentence: a state that ended
    ["the build cache got corrupted again so I wiped it and rebuilt, works now", "The simulator hangs every time it boots with an old snapshot, because the snapshot format changed in Xcode 16."],
    // history: "we used to ..." with nothing said of now nor of a choice
    ["we used to always release on Mondays before the change freeze policy changed", "We always release on Tuesdays, never on Mondays."],
    // a review's opening verdict, then the reviewer's notes
    ["Looks good overall, but the helper should be private and the test on line 30 leaks a temp file", "Tests never leave temp files behind; every test cleans its directory in afterEach."],
    // a reviewer's note on a named change ("on the <name> PR")
    ["Left a few notes on the checkout PR, mostly naming, approve once the build is green", "Every PR needs one approval and a passing build before it merges."],
    // a tracker's event: a ticket picked up
    ["OPS-881 picked up, expect a fix by tomorrow", "OPS-881: we decided the backup bucket stays in eu-west-1 for data residency."],
    // a draft handed on, "(not adopted yet)"
    ["From the API guidelines draft (not adopted yet): \"Prefer plural resource names. Avoid verbs in paths.\"", "From the API guidelines (adopted in March): \"Prefer plural resource names. Avoid verbs in paths.\""],
  ];

  test("not kept; each look-alike is", () => assertLookAlikes(pairs));

  test("the model's adds: history, a subjectless report of an act, a report's list", () => {
    // the first and the last are added by a68d714's model (the second by it on tune22's wording); each guard read beside a look-alike it lets pass
    assert.equal(extractCaptures("When we started, the founders ran the billing by hand from a spreadsheet.").captures.length, 0);
    assert.equal(passingTrouble("When we started, the founders ran the billing by hand from a spreadsheet."), true);
    assert.equal(passingTrouble("When we started the rewrite, we decided billing runs on Stripe."), false);
    assert.equal(statusNow("pushed the new build to the beta channel and the internal track"), true);
    assert.equal(statusNow("Builds are pushed to the beta channel by CI on every merge."), false);
    assert.equal(statusNow("pushed the new build; from now on every build goes to the beta channel first"), false);
    assert.equal(sessionTalkForModel("Support summary for the week: 20 tickets, 2 P1s resolved, median first response 9 minutes.", "x"), true);
    assert.equal(sessionTalkForModel("Support summary: P1 tickets always get an engineer within 30 minutes, day or night, no exceptions.", "x"), false);
  });

  test("tune22's misses the rules now keep, each beside a look-alike not kept", () => {
    // who agreed, then what: "Design and product agreed: ..." is no request though "Design" can be a verb
    // trouble that stands: "lose(s) <thing> every time", "backs up every time"
    assertLookAlikes([
      ["Design the save system so it writes one file per slot", "Design and product agreed: the save system writes one file per slot."],
      ["the job queue backed up this morning, drained it by hand", "The job queue backs up every time the billing service deploys, because its workers drain too slowly."],
      ["we lost the session cache this morning, no idea why", "Workers lose their session cache every time the pod is rescheduled, because it lives in memory."],
    ]);
  });

  test("the guards, read on their own", () => {
    assert.ok(reportList("Lab update: the centrifuge is back, two runs failed QC, Sam presents Friday."));
    assert.ok(!reportList("Lab update: raw reads are always archived after 90 days, the centrifuge is back, Sam presents."));
    assert.ok(!reportList("Notes: the freezer arrived."));
    assert.equal(historyOnly("we used to deploy on Thursdays before the policy changed"), true);
    assert.equal(historyOnly("we used to deploy on Thursdays, now we deploy on Tuesdays"), false);
    assert.equal(historyOnly("we used to use Jenkins and moved to GitHub Actions"), false);
    assert.equal(relayedTalk("LGTM, but the retry loop should back off"), "a review's verdict, not a choice");
    assert.equal(relayedTalk("LGTM, but from now on every retry loop backs off exponentially"), null);
    assert.equal(relayedTalk("PAY-12 picked up, on it"), "a tracker's event, not a choice");
    assert.equal(relayedTalk("PAY-12: refunds always go back to the original card"), null);
    assert.equal(sessionTalk("Use plural nouns.", "Guidelines (draft): \"Use plural nouns.\"", "decision"), "a draft or proposal, not adopted");
    assert.equal(sessionTalk("Use plural nouns.", "Guidelines (adopted): \"Use plural nouns.\"", "decision"), null);
  });

  // tune22b's (written after the guards above, scored before any change): the forms that got past them
  test("tune22b's forms: not kept; each look-alike is", () => {
    assertLookAlikes([
      // a question asked of oneself, without its mark
      ["trying to figure out why the escalation rule skipped the APAC queue", "The escalation rule always routes APAC tickets to the Singapore queue."],
      // a meeting moved once
      ["STANDUP MOVED TO 10AM", "STANDUP IS AT 10AM EVERY DAY AND NOBODY MOVES IT"],
    ]);
    // a tracker's move said alone, with no ticket key (kept by a68d714's rules; its look-alike by the model)
    assert.equal(keptByRules("Moved to QA. @li please test it on the beta build").length, 0);
    assert.ok(extractCaptures("Tickets move to QA only after a code review.").captures.length > 0);
    assert.equal(relayedTalk("Moved to QA."), "a tracker's event, not a choice");
    // progress said as a share reached (a68d714's model added it)
    assert.equal(relayedTalk("Docs and API are at 100%, SDKs still at 80%"), "a progress report");
    assert.equal(relayedTalk("CPU alerts fire when usage stays above 90% for five minutes."), null);
    assert.equal(relayedTalk("Team retro moved to Friday from now on."), null);
  });
});
