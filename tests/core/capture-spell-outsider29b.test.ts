import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractCaptures } from "../../src/core/capture/extract.ts";
import { outsiderAct } from "../../src/core/capture/outsider-act.ts";
import { spellShape, statesLesson, troubleReport } from "../../src/core/capture/trouble-report.ts";
import { assertLookAlikes } from "../helpers/look-alikes.ts";

// Branch capture29b: two kinds of trouble talk main 74f709f still stored. A recurrence inside one
// spell near now ("every submit since lunch") is the one trouble met many times, not a condition
// that stands; and a decision's or a problem's words whose subject is outside the team (a vendor's
// choice, a friend's broken box, someone on a forum) hand on news, not the team's knowledge. Each
// "not kept" line below is kept by main be2fcef (by its rules, or, in the second test, by its
// learned table) and is none of the corpus's wording; each sits beside a look-alike that stays kept.

describe("capture: trouble within one spell, status, and others' acts are not stored", () => {
  test("the rules: a spell's recurrence, a state of today, a wait on others, an outsider's choice or trouble", () => {
    assertLookAlikes([
      ["The payroll API throws a 503 on every submit since about 2.", "The payroll API throws a 503 on every submit when the employee has two contracts."],
      ["All morning, every build on the Windows runners has been timing out.", "Every build on the Windows runners times out when the cache restore passes 4 GB."],
      ["Each login on the kiosk tablets is taking 40 seconds today.", "We're blocked from deploying on Fridays, that's the rule."],
      ["Blocked on the bank's security team for the SFTP allowlist.", "Our NAS died because the fan seized, so we now alert on fan speed."],
      ["The map tile vendor decided to drop the v1 style API next spring.", "We decided to drop the map tile vendor's v1 style API next spring."],
      ["The city council picked a new parking operator, nobody asked us.", "We picked a new parking operator for the garage app: Flowbird."],
      ["Someone on the Deno Discord had their cache wiped by a version mismatch.", "Our VPN drops whenever the office router reboots, so we moved it to a UPS."],
      ["My neighbour's EV charger app stopped syncing after the update.", "The EV charger app crashes whenever the phone is in battery saver mode."],
      ["The previous agency picked Gatsby for the marketing site.", "We picked Astro for the marketing site, replacing Gatsby."],
    ]);
  });

  test("with the learned table too: a spell's recurrence typed as a decision, a friend's trouble", () => {
    for (const no of [
      "The booking search has returned nothing for every date since the weekend.",
      "The payroll API returns a 503 on every submit since lunch.",
      "A friend's NAS died because the fan seized, so I'm a bit nervous now.",
    ]) assert.equal(extractCaptures(no).captures.length, 0, no);
    assert.ok(extractCaptures("The nightly sync pauses during the holidays because the bank's API is closed.").captures.length > 0);
  });
});

describe("trouble-report.ts and outsider-act.ts: spells and who acts", () => {
  test("a recurrence is a lesson unless a spell near now bounds it; a change since a release is still a cause", () => {
    assert.ok(statesLesson("exports fail on every third run"));
    assert.ok(!statesLesson("exports fail on every run since lunch"));
    assert.ok(!statesLesson("exports have failed on every run since the weekend"));
    assert.ok(statesLesson("exports fail on every run since the weekend's release"));
    assert.ok(statesLesson("exports fail since the upgrade to 4.2"));
    assert.equal(troubleReport("exports fail on every run since about 11", "exports fail on every run since about 11"), "recurring within one spell");
  });

  test("a spell's shapes, and what is not one: a rule effective today, a change that holds now", () => {
    assert.equal(spellShape("each scan takes 9 seconds today"), "told of one spell");
    assert.equal(spellShape("the sync is paused for the night, resuming at 6"), "paused, with its end told");
    assert.equal(spellShape("Effective today, every release needs a changelog entry."), null);
    assert.equal(spellShape("The queue now runs on NATS, cut over this morning."), null);
    assert.equal(spellShape("Per today's call, the importer stays on Python."), null);
  });

  test("who acts: an outsider as the subject, unless the team draws its own choice from it", () => {
    assert.ok(outsiderAct("The tide vendor decided to drop the old API."));
    assert.ok(outsiderAct("Saw a thread where someone's S3 bill doubled because of a loop."));
    assert.ok(outsiderAct("Before I joined, the previous CTO picked CouchDB."));
    assert.equal(outsiderAct("A friend's Pi died because the card filled up, so we now log to tmpfs."), null);
    assert.equal(outsiderAct("The vendor API drops connections under load."), null);
    assert.equal(outsiderAct("Customers on iOS 17 see a blank screen after login."), null);
  });
});
