import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryTerms } from "../../src/core/memory-terms.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";

// Entries of recall's developer vocabulary (branch recall27, written as a list of the trade's usage
// and checked on its tuning batch tune27): each paraphrase below shares no strong word with its
// memory but through the entry, so each fails the relevance floor without it.

const passes = (query: string, memory: string) => fitOf(recallTerms(query), memoryTerms(memory, [])).passes;

test("the trade's other words for one thing carry the relevance floor", () => {
  const cases: [string, string][] = [
    ["how do we keep personal data out of what gets written", "The logger redacts email and phone fields before anything is written."],
    ["who reads the changelog", "Release notes are written for customers, not as a list of commits."],
    ["when is the daily meeting", "The team's standup is asynchronous, posted in the team channel by ten."],
    ["the customer was charged twice after a retry", "POST endpoints that create payments accept an Idempotency-Key header and replay the first response."],
    ["what happens to edits made in airplane mode", "The app queues writes offline in SQLite and replays them when the connection returns."],
    ["may a client build the next page token itself", "The cursor is an opaque base64 string of created_at and id; clients must not parse it."],
    ["does anything stop scrapers", "The WAF in front of CloudFront blocks known bad bots and limits each IP to 2,000 requests per five minutes."],
    ["can buyers pay in yen", "We charge in USD, EUR and GBP; prices in other currencies are shown but charged in USD."],
    ["what happens when a callback url keeps failing", "Webhooks are retried with exponential backoff for up to three days, then disabled."],
    ["is casting to any type allowed", "TypeScript runs in strict mode everywhere, with a comment wherever it is loosened."],
    ["how do backend services call each other", "Internal traffic uses gRPC with protobuf contracts in a shared repository."],
    ["should a full disk wake someone up", "Alerts page a human only when users are affected; everything else waits for the morning."],
    ["where do we say that two search words mean the same", "Synonyms for product search are kept in a file the merchandising team reviews."],
  ];
  for (const [query, memory] of cases) assert.equal(passes(query, memory), true, `${query} -> ${memory}`);
  // the same words about something else stay below it
  assert.equal(passes("what is the yen to euro rate for my holiday", "Mobile releases ship every two weeks through the App Store."), false);
  assert.equal(passes("write a story about a web crawler spider", "Alerts page a human only when users are affected."), false);
});

test("a second list of the trade's words (symptoms and their names) carries the floor too", () => {
  const cases: [string, string][] = [
    ["we ran out of connections again", "PgBouncer in transaction mode sits in front of Postgres; the app pool is 20 per instance."],
    ["the pods are oom killed after an upgrade", "Setting --max-old-space-size to 75% of the container memory stopped the crashes."],
    ["our deliverability dropped last month", "Hard bounces were ignored and our sender reputation dropped; bounced addresses are now suppressed."],
    ["excel shows garbled characters in exports", "CSV exports opened broken until we wrote a UTF-8 byte order mark first."],
    ["how do we turn latitude and longitude into a distance", "Store locator distances use PostGIS rather than application code."],
    ["is there an audit trail somewhere", "Every change an admin makes is written to an append-only audit log table."],
    ["who writes the postmortem", "Every incident that affected customers gets a blameless review within five working days."],
    ["the upload endpoint answers 413", "Uploads over 100 MB failed behind the load balancer because of its body size limit."],
    ["how does semantic search work for the help bot", "Help-center answers use retrieval over our docs embedded with pgvector."],
  ];
  for (const [query, memory] of cases) assert.equal(passes(query, memory), true, `${query} -> ${memory}`);
  // words too general to name the thing are no entries: a CSS radius, JavaScript's eval, rounding to the nearest
  assert.equal(passes("how do I set a border radius in css", "Store locator distances use PostGIS."), false);
  assert.equal(passes("why is eval dangerous in javascript", "Every change to a prompt is checked against the eval set of 200 support questions."), false);
  assert.equal(passes("round to the nearest integer", "Store locator distances use PostGIS."), false);
});
