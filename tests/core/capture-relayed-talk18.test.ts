import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assertLookAlikes, keptByRules } from "../helpers/look-alikes.ts";
import { mySetup, passingTrouble, statusNow } from "../../src/core/capture/passing-talk.ts";
import { relayedTalk } from "../../src/core/capture/relayed-talk.ts";
import { notOurs } from "../../src/core/capture/not-ours.ts";
import { HYPOTHETICAL, undecided } from "../../src/core/capture/signals.ts";

// Branch capture18: the false stores tune18's fresh voices showed (a product lead's long messages,
// ticket and review-thread pastes, an SRE mid-incident, a data scientist's notebook talk, a junior,
// chat with emoji) and nested leave-one-set-out listed, each beside a look-alike still kept. Every
// "not kept" line here is kept by integ20's rules.
const kept = keptByRules;
/** Each line read by a guard: marked (true) or not (false). */
const each = (guard: (s: string) => boolean, lines: readonly string[], marked: boolean) => {
  for (const s of lines) assert.equal(guard(s), marked, s);
};

describe("capture: relayed words, tracker events, review verdicts, work in hand, open choices", () => {
  /** Each line not kept -> its look-alike, kept. */
  const twins: Record<string, string> = {
    // a customer's words relayed in quotes
    "Ticket SUP-228 from a customer: 'Export to CSV button does nothing.' Can't reproduce, asked for their browser version.":
      "Export to CSV fails silently for any account with more than 50k rows because the request hits the 30 s gateway timeout.",
    "Pasting the customer email for context: 'We love the product but the export is slow and the UI for roles is confusing.'":
      "The export is slow for every account over 10k rows because it runs inline in the request.",
    // the docs quoted, then a question
    "the Terraform docs: 'Never edit the state file by hand.' how do we fix a drifted resource then":
      "Never edit the Terraform state file by hand; drift is fixed with terraform import.",
    // a tracker's event on one ticket
    "Linear: ENG-77 'Investigate flaky e2e on checkout' moved to Backlog by Sam":
      "We moved the checkout e2e tests to Playwright (ENG-77).",
    // a review's verdict alone
    "Approved with comments.":
      "Approved: we go with Postgres for the event store.",
    // work in hand during an incident
    "rolled back to 4.12.1, error rate dropping, still watching":
      "Our policy: a deploy that doubles the error rate is rolled back to the last release at once, no discussion.",
    "paging db on-call, replica lag is at 40s and climbing":
      "Replica lag climbs above 40s every night during the backup because it saturates the disk.",
    "Nobody has looked at the flaky Cypress tests yet.":
      "The Cypress tests are flaky on every CI run because they share one seeded database.",
    // an open choice
    "Long day. The vendor call was useless, and the API versioning debate went another round without an answer.":
      "Long day. The vendor call was useless, but one thing is settled: the public API gets versioned in the URL, not in headers.",
    "gonna try lazy-loading the charts later, no promises":
      "We lazy-load every chart from now on.",
    // a rollout's state at the moment
    "Datadog agent is installed on staging now.":
      "The Datadog agent is installed on every host by the base image.",
    // another's things, told as news
    "Fixtures go into tests/fixtures in the Rails template we looked at.":
      "Fixtures go into tests/fixtures in our Rails apps.",
    "Stripe's own dashboard uses optimistic UI everywhere, neat.":
      "Our dashboard uses optimistic UI for every toggle.",
    // a verdict on a moment; small talk about the office
    "We agreed the offsite was the best one yet.":
      "We agreed the offsite budget comes out of the team's training budget from now on.",
    "I prefer the dark theme in the new office screens, looks great.":
      "I prefer the dark theme in every code sample of our docs.",
  };
  const pairs = Object.entries(twins);

  test("not kept; each look-alike is", () => assertLookAlikes(pairs));

  test("the relayed and tracker guards, read on their own", () => {
    assert.match(relayedTalk("Ticket SUP-228 from a customer: 'Export to CSV button does nothing.'") ?? "", /quoted/);
    assert.match(relayedTalk("'Prefer fetch over axios in modern apps' — that's from a blog.") ?? "", /quoted/);
    assert.match(relayedTalk("ENG-77 'Investigate flaky e2e' moved to Backlog by Sam") ?? "", /tracker/);
    assert.match(relayedTalk("LGTM!") ?? "", /verdict/);
    assert.match(relayedTalk("For this task, first show me the plan before you edit any files.") ?? "", /task in hand/);
    assert.match(relayedTalk("The new runner image is rolled out to half the fleet.") ?? "", /rollout/);
    // tune18b, written after the guards: a customer's words, a reviewer's note, a progress report
    assert.match(relayedTalk("Customer wrote: 'your API returns 429 after 10 requests, is that a bug?' how should I answer") ?? "", /quoted/);
    assert.match(relayedTalk("left a couple of comments on your PR, mostly naming, approve once fixed") ?? "", /verdict/);
    assert.match(relayedTalk("Weekly summary: hiring is on track, two offers out, and the Q4 planning doc is half written.") ?? "", /progress/);
    assert.match(relayedTalk("migrating the users table rn, 40% done, don't deploy please") ?? "", /progress/);
    assert.equal(relayedTalk("Customers on the free plan get 100 requests per minute; more needs the enterprise plan."), null);
    assert.equal(relayedTalk("Reviewers leave comments as suggestions, and the author resolves them."), null);
    assert.equal(relayedTalk("Coverage must stay above 80% on every package."), null);
    // a ticket named beside a choice, a policy about states, a rule for every task, a standing rollout order
    assert.equal(relayedTalk("We moved the checkout e2e tests to Playwright (ENG-77)."), null);
    assert.equal(relayedTalk("Tickets moved to Done must link the PR that closed them."), null);
    assert.equal(relayedTalk("For every task, first show me the plan before you edit any files."), null);
    assert.equal(relayedTalk("Feature flags are enabled in staging first and in production a week later."), null);
    assert.equal(relayedTalk("Customers complain that the export is slow because it runs inline."), null);
  });

  test("another's opinion and examples seen elsewhere are not ours; ours are", () => {
    assert.notEqual(notOurs("Our CTO likes Go for everything but that's her opinion, not a rule for this repo.", () => true), null);
    assert.notEqual(notOurs("The example repo from the workshop keeps all its styles in one global.css.", () => false), null);
    assert.notEqual(notOurs("In that talk, the speaker's team ships straight to prod from main.", () => false), null);
    assert.equal(notOurs("Our example app keeps all its styles in CSS modules, like the main app.", () => false), null);
    assert.equal(notOurs("We ship straight to prod from main after the canary.", () => false), null);
  });

  test("work in hand is passing trouble; the same trouble standing is not", () => {
    assert.equal(passingTrouble("ok so cell 14 gives AUC 0.81 now, rerunning with 5 folds"), true);
    assert.equal(passingTrouble("the queue is backing up, keeping an eye on it"), true);
    assert.equal(passingTrouble("Training reruns every night with 5 folds because one split leaked labels."), false);
  });

  test("open choices: leaning, hearing from the team, no promises, no answer", () => {
    each(undecided, ["I'm leaning towards Linear over Jira but I want to hear from the team first", "gonna try it later, no promises", "the debate went another round without an answer"], true);
    assert.equal(undecided("We moved issue tracking from Jira to Linear this week."), false);
  });

  test("status lines the model may not keep alone: progress, a request with a date, a to-do list", () => {
    each(statusNow, [
      "Quick update from the roadmap sync: checkout v2 is about 70% done",
      "the Q3 OKRs are in the doc, please comment by Friday",
      "Three things before Monday: 1) the deck for the board, 2) ask legal about the DPA wording",
      "Nothing blocking yet.",
      "Dashboards are updated with the new numbers, take a look.",
    ], true);
    each(statusNow, ["Please always squash-merge PRs into main.", "Checkout v2 ships behind a feature flag to 5% of users first.", "Coverage must stay above 80% on every package."], false);
  });

  test("the nested leave-one-set-out list's false stores: the marker on its own, its look-alike without it", () => {
    // one occasion, a state put right by hand, history with nothing of now, work in hand
    each(passingTrouble, [
      "Secrets never showed up in the logs during the audit, good.",
      "The staging certificate expired over the weekend and someone renewed it.",
      "In the early days we hosted everything on a single droplet and it went down a lot.",
      "the Terraform plan shows 43 changes, reviewing them before apply",
    ], true);
    each(passingTrouble, [
      "The staging certificate expires every 90 days because cert-manager is off there.",
      "In the early days we hosted everything on one droplet; now every service runs on Kubernetes.",
    ], false);
    // status lines and one person's setup, for the model's adds
    each(statusNow, [
      "No one can push to main at the moment, the branch protection is misconfigured.",
      "Route 53 records for the new domain are created, waiting for propagation.",
      "The nightly job is running late, it's still on step 3.",
      "Finished the upgrade of the Helm chart, all pods are healthy.",
    ], true);
    each(statusNow, ["Nobody pushes to main; branch protection requires two approvals.", "Deploys wait for two approvals before they go out.", "The nightly job runs in three steps; the last one uploads to S3."], false);
    assert.equal(mySetup("Just switched my local setup to OrbStack, way faster."), true);
    assert.equal(mySetup("The team switched local dev from Docker Desktop to OrbStack."), false);
    // a hypothetical world, a login handed over, another's practice read about
    assert.equal(HYPOTHETICAL.test("In a world where we drop the mobile app, most of the API versioning goes away."), true);
    assert.match(relayedTalk("Log into the grafana admin with admin / Wint3r!2026 and export the dashboard JSON") ?? "", /credential/);
    assert.equal(relayedTalk("Log into grafana with SSO / SAML only, never a shared admin account."), null);
    assert.notEqual(notOurs("The Rust community prefers thiserror for libraries and anyhow for apps, from what I read.", () => true), null);
    assert.notEqual(notOurs("In the tutorial they keep all the migrations in one big file.", () => false), null);
    assert.equal(notOurs("We prefer thiserror for libraries and anyhow for apps.", () => true), null);
    assert.ok(kept("We prefer thiserror for libraries and anyhow for apps.").length > 0);
    assert.ok(kept("Log into grafana with SSO only, never with a shared admin account.").length > 0);
  });
});
