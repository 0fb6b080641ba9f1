import assert from "node:assert/strict";
import { test } from "node:test";
import { contentWords } from "../../src/core/memory-terms.ts";
import { recallTerms } from "../../src/core/recall-rank.ts";
import { restates, type Stated } from "../../src/core/recall-restated.ts";
import { namedProject, projectNameWords, withinProject } from "../../src/core/recall-scope.ts";

// The pure parts of branch recall26's fixes: a project's name inside it, and two memories that
// state one fact in other words (the hook's behaviour: tests/hooks/recall-audit26.test.ts).

test("a project's name is its repository's name, in words; inside the project it is no strong word", () => {
  assert.deepEqual(projectNameWords("github.com/acme/ledgerly"), ["ledgerly"]);
  assert.deepEqual(projectNameWords("local:My-App"), ["my", "app"]);
  assert.deepEqual(projectNameWords("gitlab.com/group/sub/tool_box/"), ["tool", "box"]);
  const terms = recallTerms("what colors should the ledgerly landing page use");
  assert.ok(terms.strong.includes("ledgerly"));
  const inside = withinProject(terms, "github.com/acme/ledgerly");
  assert.deepEqual(inside.strong, terms.strong.filter((w) => w !== "ledgerly"));
  assert.deepEqual(inside.words, terms.words, "still looked for, and weighed as a weak word");
  assert.equal(withinProject(terms, "github.com/acme/shop"), terms, "another project's name: unchanged");
  assert.equal(withinProject(terms, null), terms);
  // a product's name (a concept) stays strong inside a project named after it
  const redis = recallTerms("how do we configure redis eviction");
  assert.ok(redis.concepts.some((c) => c.from.includes("redis")));
  assert.equal(withinProject(redis, "github.com/acme/redis-tools"), redis);
});

const said = (type: string, content: string, entities: string[]): Stated => ({ type, content, entities, words: contentWords(content) });

test("restated: one type, the same entities, numbers and polarity, and most content stems shared", () => {
  const pg = ["postgresql", "jsonb"];
  const a = said("decision", "We chose PostgreSQL for the orders database because we need JSONB columns", pg);
  const b = said("decision", "The orders database is PostgreSQL, picked for its JSONB column support", pg);
  assert.equal(restates(a, b), true);
  assert.equal(restates(b, a), true);
  assert.equal(restates(a, { ...b, type: "fact" }), false, "another type");
  assert.equal(restates(a, { ...b, entities: ["postgresql"] }), false, "other entities");
  assert.equal(restates({ ...a, entities: [] }, { ...b, entities: [] }), false, "no entities: nothing says they name the same things");
  assert.equal(restates(said("fact", "The PostgreSQL orders database keeps 30 days of JSONB snapshots", pg), said("fact", "The PostgreSQL orders database keeps 14 days of JSONB snapshots", pg)), false, "another figure");
  assert.equal(restates(said("decision", "We use PostgreSQL JSONB columns for the orders database payloads", pg), said("decision", "We do not use PostgreSQL JSONB columns for the orders database payloads", pg)), false, "turned around");
  assert.equal(restates(a, said("decision", "The analytics warehouse reads PostgreSQL JSONB exports nightly", pg)), false, "too few stems shared");
});

test("the project a prompt outside any repository names: its name's words in a row, the longest, not an everyday word alone", () => {
  const projects = ["github.com/acme/acme-billing", "github.com/acme/acme-web", "github.com/tidewater/harbor", "github.com/acme/ledgerly", "github.com/someone/web", "local:field-notes"];
  assert.equal(namedProject("how is search done in acme-web", projects), "github.com/acme/acme-web");
  assert.equal(namedProject("How is search done in Acme Web?", projects), "github.com/acme/acme-web");
  assert.equal(namedProject("which database do field notes sightings use", projects), "local:field-notes");
  assert.equal(namedProject("does ledgerly retry webhooks", projects), "github.com/acme/ledgerly");
  // the words apart, or only the organisation's: no project named
  assert.equal(namedProject("is billing at acme done by the web team", projects), null);
  assert.equal(namedProject("draft an email to acme's accountant", projects), null);
  // a one-word name everyday English says names nothing by itself
  assert.equal(namedProject("how do I get to the harbor", projects), null);
  assert.equal(namedProject("the web page is slow", projects), null);
  // two names of one length: which one is meant is not said
  assert.equal(namedProject("compare acme-web and acme-billing", projects), null);
  assert.equal(namedProject("anything", []), null);
});
