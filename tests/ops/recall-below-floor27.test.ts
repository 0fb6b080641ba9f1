import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// Memories under the relevance floor (sharing one strong word, shown after those that pass) are
// cut relative to the best that passes, and were ranked on its scale too: every one whose match
// outdid it read as relevance 1, so among them the freshest came first, not the best match
// (branch recall27: "do we hash user passwords ourselves" put the Auth0 decision eighth).

const T0 = 1_790_000_000;

function memory(i: number, content: string): Memory {
  return { ...createMemory({ content }, newId(), { now: T0 + i * 86_400, machine: "m", user: null }), status: "active" };
}

test("memories under the floor are ordered by how well they match, not by freshness", async () => {
  const answer = "Authentication goes through Auth0; we do not store passwords ourselves.";
  // the answer is the oldest
  const texts = [
    answer,
    "Sign-in failed for some users because the server clock drifted and tokens looked issued in the future; chrony now keeps time.",
    "Welcome emails were sent twice when a user double-clicked sign-up; a unique index on the user's email address in the outbox fixed it.",
    "Enterprise customers sign in with SAML through Auth0 connections; we will not build our own SAML handling.",
    "Multi-factor authentication is mandatory for admin accounts, with TOTP apps or passkeys; SMS codes are not offered.",
    "Public API keys are hashed with SHA-256 before storage and shown to the customer only once.",
    "Static assets are served from CloudFront with immutable hashed file names and a one-year max-age.",
    "The web app keeps sessions in HttpOnly session cookies rather than JWTs in localStorage, to keep tokens away from scripts.",
    "Permissions are checked with role-based access control: roles map to permission sets in src/auth/roles.ts.",
  ];
  const store = await storeWith(texts.map((c, i) => memory(i, c)), T0);
  try {
    const out = await recall(store, { query: "do we hash user passwords ourselves or is that outsourced", now: T0 + 30 * 86_400 });
    const shown = out.items.map((i) => i.text);
    const at = shown.indexOf(answer);
    // three pass the floor (two words, or the sign-in concept and a word); the answer, holding the
    // query's passwords and the concept's words most, is the first of those under it
    assert.equal(at, 3, shown.join("\n"));
  } finally {
    store.close();
  }
});
