import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractWithOpinion } from "../../src/core/capture/extract.ts";

// Branch capture14: a plan said to be open ("nothing decided yet", "a draft RFC", "no choices made
// yet", "I can't decide between...") and a client id or a secret sent elsewhere, handed over for a
// task, are not kept; the decisions beside the same words still are.
const kept = (t: string) => extractWithOpinion(t, null).extraction.captures;

describe("capture: open plans and credentials handed over", () => {
  test("a plan said to be open is not a decision", () => {
    for (const t of [
      "The postmortem is on Monday and we'll sort out the action items there, nothing decided yet.",
      "There's a draft RFC to replace REST with gRPC internally; feedback is due Monday.",
      "There is an open proposal to move the docs to Docusaurus.",
      "The board wants a plan for SOC 2 by spring, no choices made yet.",
      "Leadership asked for a multi-region design, nothing agreed so far.",
      "I can't decide between Supabase and a plain Postgres on RDS.",
      "We haven't committed to Kafka for the event bus.",
      "no decision yet on Redis vs Memcached",
      "We're evaluating Adyen against Stripe for Europe, no pick yet.",
      "An idea for later: autoscaling the workers on queue depth instead of CPU.",
    ]) assert.equal(kept(t).length, 0, t);
  });

  test("a client id or a secret sent elsewhere, handed over for a task, is not a decision", () => {
    for (const t of [
      "Use client id 7c1f0e2a-9b3d-4e55-a1c2-88d0f4e6b219 and the secret I sent on Slack for the partner sandbox.",
      "Take the admin cookie from my last message and replay the request with it.",
    ]) assert.equal(kept(t).length, 0, t);
  });

  test("a request for a policy set before is not a decision", () => {
    for (const t of ["Recall the policy we set for production hotfixes.", "Show me the conventions we adopted for error codes."]) assert.equal(kept(t).length, 0, t);
  });

  test("decisions that share those words are still kept", () => {
    for (const t of [
      "We settled on Zod for request validation in every API route.",
      "We decided on RDS; the draft of the runbook is in Notion.",
      "From now on nothing gets merged without a review.",
      "Secrets live in Vault; nothing sensitive goes in .env files committed to the repo.",
    ]) assert.equal(kept(t)[0]?.type, "decision", t);
  });
});
