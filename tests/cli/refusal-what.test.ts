import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memsyncJson } from "../helpers/env.ts";

// A decision against something read by the second reading (cues): its `what` is what MEMORY.md
// and the session's start show ("[Decision] avoid ..."), so the refusal's own words go, once.

describe("capture: a refusal's what", () => {
  test("'avoid' replaces the refusal that opens the clause, keeping a verb the object needs", () => {
    const cases: [string, string][] = [
      ["Let's not add Redux to the storefront; React context is enough.", "avoid adding Redux to the storefront"],
      ["Let us not introduce Kafka for the order events yet, a Postgres outbox is enough.", "avoid introducing Kafka for the order events yet"],
      ["Let's not use GraphQL subscriptions for the order tracker, polling every 10s is enough.", "avoid GraphQL subscriptions for the order tracker"],
      ["We ruled out DynamoDB for the ledger.", "avoid DynamoDB for the ledger"],
    ];
    for (const [text, what] of cases) {
      const out = memsyncJson(["capture", "--dry-run", "--json", text]);
      assert.equal(out.captures.length, 1, text);
      assert.equal(out.captures[0].type, "decision", text);
      assert.equal(out.captures[0].decision.what, what, text);
    }
  });
});

describe("capture: brackets in what", () => {
  test("a bracket closed right before the reason stays with what it closes", () => {
    const cases: [string, string][] = [
      ["We keep user sessions in Redis (30 min TTL) since sticky sessions broke autoscaling.", "Redis (30 min TTL)"],
      ["We decided to use pnpm (not yarn) because of disk usage.", "pnpm (not yarn)"],
    ];
    for (const [text, what] of cases) {
      const out = memsyncJson(["capture", "--dry-run", "--json", text]);
      assert.equal(out.captures[0]?.decision?.what, what, text);
    }
  });
});
