import assert from "node:assert/strict";
import { test } from "node:test";
import { findMentions } from "../../src/core/capture/entities.ts";
import { memoryTerms } from "../../src/core/memory-terms.ts";
import { queryConcepts } from "../../src/core/recall-concepts.ts";
import { fitOf, recallTerms } from "../../src/core/recall-rank.ts";
import { shownOutside } from "../../src/core/recall-scope.ts";

// The developer thesaurus (core/dev-thesaurus.ts, branch recall32): each prompt below shares no
// strong word with its memory but through a thesaurus link, so each fails the relevance floor
// without it. Written for this test, not taken from the recall corpus.

// the memory with the entities capture finds in it, as a saved memory carries them
const passes = (query: string, memory: string) => fitOf(recallTerms(query), memoryTerms(memory, [...new Set(findMentions(memory).map((m) => m.name))])).passes;

test("a symptom in plain words finds the memory written with its technical name", () => {
  const cases: [string, string][] = [
    ["the admin screen feels sluggish", "Latency of the admin API went up after the ORM upgrade; a missing index was the cause."],
    ["the importer blew up", "The importer crashed with an out of memory error on files over 2 GB."],
    ["ledger requests hang", "Every call to the ledger service now has a 10 second timeout."],
    ["sessions vanished from the store", "Redis evicted session keys under the allkeys-lru policy."],
    ["users got the invite email two times", "Invites are sent from an outbox with a unique idempotency key per user."],
  ];
  for (const [query, memory] of cases) assert.equal(passes(query, memory), true, `${query} -> ${memory}`);
});

test("a kind of tool named in plain words stands for its products, and plain names of engineering things link", () => {
  const cases: [string, string][] = [
    ["which editor does the team prefer", "Everyone uses Neovim with the shared config from the dotfiles repo."],
    ["what source control host do we use", "Code lives on GitLab, with merge requests for every change."],
    ["do we do a pen-testers style security audit", "A penetration test by an outside firm happens each spring."],
    ["how do I choose between a kill switch and a config change", "Feature flags live in LaunchDarkly and default to off."],
    ["are there dead rows piling up in the events table", "Autovacuum on the events table was tuned to a scale factor of 0.02."],
  ];
  for (const [query, memory] of cases) assert.equal(passes(query, memory), true, `${query} -> ${memory}`);
});

test("a thesaurus word is linked only through another word: the prompt's own word stays a plain word match", () => {
  // "slow" in both is one shared word, as without the thesaurus: the floor wants two
  assert.equal(passes("why is my grandmother's tablet so slow", "Search was slow because of a wildcard query at the start of a term."), false);
  assert.equal(passes("why does my react effect run twice", "The rollup ran twice on the day clocks changed."), false);
  const slow = queryConcepts("the tablet is slow").find((c) => c.label === "slow");
  assert.ok(slow?.linkOnly, "a thesaurus concept");
  assert.ok(!slow.termStems.some((words) => words.join(" ") === "slow"), "without the prompt's own word");
});

test("the thesaurus adds concepts and takes none away: its phrases leave the words of recall's own triggers theirs", () => {
  const labels = (q: string) => queryConcepts(q).map((c) => c.label);
  // "analytics database" is a kind of the thesaurus (data warehouses); "database" still the db
  assert.ok(labels("what did we decide about the analytics database").includes("db"));
  assert.ok(labels("is password guessing stopped somewhere").includes("auth"));
  assert.ok(labels("which email validation rule do we use").includes("email"));
  // nor does a thesaurus phrase make its words one thing for the prompt's scope (recall-scope.ts):
  // the hook's answer outside the project, tests/api/hooks.test.ts, depends on it
  const t = recallTerms("What did we decide about the analytics database?");
  const m = "Let's use PostgreSQL for the analytics DB because we need JSONB and vector support";
  const fit = fitOf(t, memoryTerms(m, ["postgresql"]));
  assert.ok(shownOutside(t, "github.com/acme/shop", fit));
});
