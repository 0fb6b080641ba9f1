import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { findMentions } from "../../src/core/capture/entities.ts";
import { parsedEntryCount, vocabulary, vocabularyInCategories } from "../../src/core/capture/vocabulary.ts";
import { queryConcepts } from "../../src/core/recall-concepts.ts";

// The cold hook's first calls (issue 16): a kind trigger's products are found without parsing the
// whole vocabulary, and findMentions answers plain words without its Unicode patterns. Each
// shortcut must give exactly what the general path gives.

describe("a kind's products without the whole vocabulary", () => {
  test("a kind trigger parses only its categories' entries", () => {
    // what this lookup parsed (in a process where the table is parsed already: nothing)
    const before = parsedEntryCount();
    const db = queryConcepts("which database did we pick?").find((c) => c.label === "db");
    const parsed = parsedEntryCount() - before;
    assert.ok(db && db.names.includes("postgresql"), "the db kind stands for the databases");
    assert.ok(parsed <= db.names.length + 5, `${parsed} of ${vocabulary().length} entries parsed for one kind of ${db.names.length} products`);
  });

  test("the entries of any categories are vocabulary()'s, in its order, the same objects", () => {
    const all = vocabulary();
    const categories = [...new Set(all.map((e) => e.category))];
    for (const c of categories) assert.deepEqual(vocabularyInCategories([c]), all.filter((e) => e.category === c), c);
    const two = categories.slice(0, 2);
    const got = vocabularyInCategories(two);
    assert.deepEqual(got, all.filter((e) => two.includes(e.category)));
    for (const e of got) assert.ok(all.includes(e), "the same parsed objects");
    assert.deepEqual(vocabularyInCategories(["no such category"]), []);
  });
});

describe("findMentions' plain-text shortcuts say what the patterns say", () => {
  const names = (t: string) => findMentions(t).map((m) => m.name);

  test("a URL's words are masked; a text without one is read whole", () => {
    assert.deepEqual(names("see https://github.com/PgBouncer/docs for it"), []);
    assert.deepEqual(names("see PgBouncer docs for it"), ["connection-pooling"]);
  });

  test("shouting is counted by the letters' case, in ASCII and beyond it", () => {
    // shouted: capitalised words are no terms; quiet: an acronym is one
    assert.deepEqual(names("WE PUT THE ACL ON IT"), []);
    assert.deepEqual(names("we put the ACL on it"), ["acl"]);
    assert.deepEqual(names("ÜBER DAS ACL SPRECHEN WIR"), []);
    assert.deepEqual(names("über das ACL sprechen wir"), ["acl"]);
  });

  test("a word of a-z is no term; digits, dots or capitals can make one", () => {
    assert.deepEqual(names("the worker and the queue"), []);
    assert.deepEqual(names("moved to ec2 with log4j and moment.js"), ["ec2", "log4j", "moment.js"]);
    assert.deepEqual(names("the GraphQL gateway"), ["graphql"]);
  });

  test("a tool's verb names a capitalised word, in ASCII and beyond it, never a small one", () => {
    assert.deepEqual(names("flags are served by Flagsmith"), ["flagsmith"]);
    assert.deepEqual(names("flags are served by flagsmith"), []);
    assert.deepEqual(names("flags are served by Ølsmith"), ["ølsmith"]);
  });
});
