import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assertLookAlikes, keptByRules } from "../helpers/look-alikes.ts";
import { passingTrouble, statusNow } from "../../src/core/capture/passing-talk.ts";
import { relayedTalk } from "../../src/core/capture/relayed-talk.ts";
import { sessionTalk } from "../../src/core/capture/session-talk.ts";

// Branch capture21: the false stores tune21's voices showed (a data platform, compliance, PR
// descriptions, standups, a long day told), each guard by the shape of the sentence, each "not
// kept" line beside a look-alike still kept. Every "not kept" line here is kept by main d38fda5's
// rules (none is a corpus row's wording).

describe("capture: tune21's false stores, each beside a look-alike", () => {
  const pairs: [string, string][] = [
    // trouble of one occasion whose cause is one person's act ("because someone ran ...")
    ["Redshift credits spiked this morning because someone ran a cross join on orders, talked to them", "Redshift credits spike every month-end because the finance dashboard runs a cross join on orders."],
    ["Warehouse costs spiked yesterday because a colleague ran an unbounded query, sorted now", "Warehouse costs spike every time the dashboard refreshes because its query is unbounded."],
    // a manual's words in quotes, then a question about them after a dash
    ["The Redis manual: 'KEYS may ruin performance when used in production' — is that why the API stalled", "Never run KEYS against production Redis; use SCAN instead."],
    // the docs "say" a quote (no colon), then a question
    ["the Airflow docs say 'sensors occupy a worker slot' — is that why the DAG stalls", "Airflow sensors always run in reschedule mode; poke mode is not allowed."],
    // history: a year, what happened, and "that's where X came from"
    ["in 2022 we got paged all night because the cron ran twice, that's where the lock file came from", "The cron job takes a lock file first, because two runs at once corrupt the export."],
    ["in 2018 we lost a day of orders because a migration failed halfway, that's where the dry runs came from", "Every migration runs as a dry run first, because a half-applied one loses orders."],
    // a review's verdict on a named thing
    ["Accessibility review of the checkout page: approved with two contrast fixes.", "Every new page gets an accessibility review before launch; contrast below 4.5:1 is rejected."],
    // a revert of one numbered change
    ["## Hotfix\nReverts #3310, it broke the CSV export for one tenant. Will redo it properly.", "The CSV export breaks for every tenant with more than 10k rows because the query times out."],
    // a standup's "yesterday ..., today ..."
    ["Standup: yesterday the billing API, today the webhooks, no blockers", "Standup is at 09:30 every day and we never move it for meetings."],
    // a long day told: "I spent two hours on ...", "the planning ran over"
    ["Long day. The planning ran over, then the client call, and then I spent two hours on the flaky test.", "The flaky test fails whenever the suite runs in parallel, because it shares a temp directory."],
  ];

  test("not kept; each look-alike is", () => assertLookAlikes(pairs));

  test("the guards, read on their own", () => {
    assert.equal(relayedTalk("Compliance sign-off on the payouts flow: approved with one copy change."), "a review's verdict, not a choice");
    assert.equal(relayedTalk("Compliance sign-off on every payouts change is required before release."), null);
    assert.equal(relayedTalk("The style guide says 'never use passive voice' — does that apply to error messages"), "quoted: another's words relayed");
    assert.equal(relayedTalk("Error messages never use the passive voice."), null);
    // a person's act as the cause of one occasion; a cause in the system still makes it a problem to keep
    assert.equal(passingTrouble("the build broke yesterday because someone pushed a bad lockfile"), true);
    assert.equal(passingTrouble("the build broke yesterday because the lockfile was regenerated on a Mac"), false);
    // a decision said in the sentence is never passing trouble
    assert.equal(passingTrouble("I spent the afternoon on the flaky test, then the decision there is React Native stays"), false);
    assert.equal(sessionTalk("yesterday the invoices API, today the webhooks", "Standup: yesterday the invoices API, today the webhooks", "decision"), "a status line, not a problem to keep");
    assert.equal(sessionTalk("from today the webhooks are signed", "from today the webhooks are signed", "decision"), null);
  });

  // tune21b's (written after the guards above): the forms that got past them, added after it was scored
  const pairs21b: [string, string][] = [
    // a build tool's test summary: target labels with a status in capitals, "1 test passes and 1 fails"
    ["//apps/web:e2e_test   FAILED in 48.0s\n//apps/web:lint   PASSED in 2.2s\nExecuted 2 out of 2 tests: 1 test passes and 1 fails", "The web e2e test fails on every CI run from forks because forks can't read the browser cache secret."],
    // a spell of trouble ("for the whole morning") that ended ("it's fixed")
    ["the staging VPN was flaky for the whole morning, IT says it's fixed", "The staging VPN drops every connection after 30 minutes idle because the NAT timeout is shorter than the keepalive."],
    // how things were "until 2020"
    ["the API docs were a single Word file until 2020, then we moved them to a wiki", "The API docs are generated from the OpenAPI spec on every release, never written by hand."],
  ];

  test("tune21b's forms: not kept; each look-alike is", () => assertLookAlikes(pairs21b));

  test("an update listing several items is never the learned model's add; one that says a choice may be", () => {
    assert.equal(statusNow("Board update draft: revenue up 9%, one hire joined, churn is flat, and we're exploring a reseller deal."), true);
    assert.equal(statusNow("Board update: from now on, customer data stays in the EU region, backups included, no exceptions."), false);
    assert.equal(statusNow("The update job runs nightly, retries twice, and pages on the third failure."), false);
  });

  test("a long day told keeps the decision said in it", () => {
    assert.ok(keptByRules("so I spent the afternoon on the broken build, then we had the sync — decision there is Postgres stays, we are not moving to Mongo.").length > 0);
  });
});
