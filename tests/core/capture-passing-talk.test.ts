import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractWithOpinion } from "../../src/core/capture/extract.ts";
import { passingTrouble, smallTalk, statusNow } from "../../src/core/capture/passing-talk.ts";

// Branch capture16: the rules' own false stores — trouble of one occasion or already passed, work
// in hand said as it happens, small talk with a preference verb — are not kept; the look-alike
// beside each (standing trouble, a fix with its cause, a preference about the code) still is.
const kept = (t: string) => extractWithOpinion(t, null).extraction.captures;
/** Each pair: the first is not kept, its look-alike is. */
function notKeptBesideKept(pairs: readonly (readonly [string, string])[]): void {
  for (const [no, yes] of pairs) {
    assert.equal(kept(no).length, 0, no);
    assert.ok(kept(yes).length > 0, yes);
  }
}

describe("capture: one-off trouble, status lines and small talk", () => {
  const pairs: [notKept: string, keptTwin: string][] = [
    ["The nightly backup failed once last week, the rerun passed.", "The nightly backup fails every time the disk is over 90% full."],
    ["The payments webhook timed out a few times this morning, it's fine again now.", "The payments webhook times out whenever Stripe retries in a burst."],
    ["The worker crashed once after I fed it a broken CSV, it restarted fine.", "The worker crashes on every CSV with a BOM at the start."],
    ["Redis was slow for a couple of minutes during the failover, then recovered.", "Redis gets slow under load because the snapshot blocks the main thread."],
    ["My laptop ran out of memory during the webpack build, closing Chrome fixed it.", "The webpack build was slow because source maps were on in CI; turning them off fixed it."],
    ["The staging deploy is stuck, I'm re-running it now.", "Staging deploys are stuck since the runner upgrade."],
  ];

  test("trouble of one occasion, already passed or in hand is not kept; standing trouble is", () => {
    notKeptBesideKept(pairs);
  });

  test("the markers, read on their own", () => {
    for (const [no, yes] of pairs) {
      assert.equal(passingTrouble(no), true, no);
      assert.equal(passingTrouble(yes), false, yes);
    }
    // a time marker never undoes a choice said in so many words
    assert.equal(passingTrouble("Yesterday we decided to move the queue to SQS after it crashed."), false);
    // a duration is a spell only beside a verb in the past: "caches 404s for five minutes" is how it works
    assert.equal(passingTrouble("The CDN caches 404s for five minutes."), false);
    assert.equal(passingTrouble("The CDN served stale pages for five minutes."), true);
    // "at once" is no single occasion
    assert.equal(passingTrouble("Checkout fails when two tabs submit at once."), false);
  });

  test("a choice made the day trouble happened is kept", () => {
    for (const t of ["Yesterday we decided to move the queue to SQS after RabbitMQ crashed.", "After this morning's outage we switched the DNS to Route 53."]) assert.ok(kept(t).length > 0, t);
  });

  test("small talk with a preference verb is not kept; a preference about the work is", () => {
    notKeptBesideKept([
      ["I always enjoy the Friday demos.", "I always want a failing test before a bug fix."],
      ["I'd rather have sushi than burgers for the team dinner.", "I'd rather have integration tests than mocks for the repository layer."],
      ["I prefer the aisle seat on long flights.", "I prefer composition over inheritance in the domain model."],
      ["Just so you know, I'm off next Thursday.", "Just so you know, we decided to keep the monolith for now."],
    ]);
    assert.equal(smallTalk("I'd rather have sushi for the team lunch.", false), true);
    // something named in the sentence is the work's, not a life outside it
    assert.equal(smallTalk("I'd rather have coffee-script gone from the lunch-menu service.", true), false);
  });

  test("a decision beside small talk in one sentence is kept", () => {
    const t = "Three notes: the offsite is in May, I'm off Friday, and we've chosen Temporal for the billing workflows.";
    assert.ok(kept(t).length > 0, t);
  });

  test("where a kind of thing goes or sits, said plainly, is kept; the same subject's status line is not", () => {
    notKeptBesideKept([
      ["The invoice emails went out late this morning.", "Invoice emails go out through Postmark."],
      ["The admin tools were unreachable for an hour this morning.", "The admin tools sit behind Cloudflare Access."],
    ]);
  });

  test("a line of how things are at the moment is marked; a standing fact of the same shape is not", () => {
    assert.equal(statusNow("Currently all traffic goes through the backup load balancer."), true);
    assert.equal(statusNow("Nobody uses the old admin panel anymore, as far as I can tell."), true);
    assert.equal(statusNow("All traffic goes through the Envoy edge proxy."), false);
  });

  test("a kind of thing handled on a standing schedule or for a set time is a policy; the same work in hand or in the past is not", () => {
    const pairs = [
      ["The audit logs are being purged right now.", "Audit logs are purged after 90 days."],
      ["The TLS certificates were renewed last night.", "TLS certificates are renewed every 60 days by cert-manager."],
      ["My laptop is backed up to the NAS.", "Production databases are backed up nightly to a second region."],
    ] as const;
    notKeptBesideKept(pairs);
    for (const [, yes] of pairs) {
      const got = kept(yes);
      assert.equal(got[0]!.type, "decision", yes);
      assert.equal(got[0]!.decision?.what, yes.replace(/\.$/, ""), "the statement whole is what is kept");
    }
  });

  test("the assistant's plan taken up 'as you proposed' is a decision; a task handed back the same way is not", () => {
    notKeptBesideKept([
      ["Makes sense, do the migration like you described and then run the tests.", "Makes sense, we'll keep the batch size at 500 as you proposed."],
      ["ok, go ahead with the refactor like you said", "Yes, let's do the saga pattern like you described."],
    ]);
  });
});
