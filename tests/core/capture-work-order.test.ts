import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractCaptures } from "../../src/core/capture/extract.ts";

// Branch capture26: a request for work said other than as a bare imperative (an obligation of the
// one who will do it, a "let's" with its day, a wish addressed to the assistant, a task under a
// heading, a version bump chained to a second task) is a task for now, not a decision; the
// standing rules said with the same verbs still are. Sentences written for this test (not from the
// corpus).
const kept = (t: string) => extractCaptures(t).captures;

describe("capture: requests for work are not decisions", () => {
  test("a change to make once, however it is asked for, is not kept", () => {
    for (const t of [
      "We need to bump the Terraform AWS provider to 5.70 for the new S3 resources.",
      "we have to migrate the session store from Memcached to Redis by Thursday",
      "I must rename the billing tables before the cutover.",
      "Let's bump Svelte to 5 tonight.",
      "I'd like you to replace the hand-written fetch wrapper with ky.",
      "Need you to move the cron jobs into Kubernetes CronJobs.",
      "It would be great if you could add OpenTelemetry to the gateway.",
      "I'd like the Django app upgraded to 5.1 by Friday.",
      "TODO: migrate the uploads from S3 to R2",
      "Action item for you: convert the Express handlers to Fastify.",
      "Upgrade Prisma to 5.20 and fix the tests that break, since we need the new JSON filters.",
      "I have to rewrite the importer in Rust this week, the Python one is too slow.",
    ]) assert.deepEqual(kept(t), [], t);
  });

  test("standing rules and settled changes said with the same verbs are still kept", () => {
    for (const t of [
      "We bump the Terraform providers on the first Monday of every month.",
      "From now on pin Svelte at 4.2 in the component library.",
      "Decided: we're migrating the session store from Memcached to Redis.",
      "We always rename tables in two steps: a view with the old name stays for one release.",
      "I'd like you to run the type checker before telling me something is done.",
      "We need to keep every Lambda on the same Node major as the API.",
      "bump Next to 15 in the web app, we need the new caching defaults",
    ]) assert.ok(kept(t).length > 0, t);
  });
});
