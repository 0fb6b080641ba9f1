import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { aliasIndexModule } from "../../scripts/gen-alias-index.ts";
import { aliasHit, BUCKETS, bucketOf, buildIndex, entryNamed, lookupFor, prebuiltIndex } from "../../src/core/capture/alias-index.ts";
import { vocabulary, vocabularyEntryAt, vocabularySource } from "../../src/core/capture/vocabulary.ts";
import { REPO } from "../helpers/env.ts";

// The prebuilt alias index (alias-index.gen.ts) answers every lookup as the index made alias by
// alias does, and is used only when made from the table as it is now.

const EMPTY = { keys: Array.from({ length: BUCKETS }, () => "{}"), names: "{}" };

describe("the prebuilt alias index", () => {
  test("the committed file is the one made from the vocabulary as it is (npx bun scripts/gen-alias-index.ts)", () => {
    assert.equal(fs.readFileSync(path.join(REPO, "src/core/capture/alias-index.gen.ts"), "utf8"), aliasIndexModule());
  });

  test("every key gives the entry, alias and length the index made alias by alias gives, and no other key is found", () => {
    const slow = buildIndex();
    assert.ok(slow.size > 1000);
    const fast = lookupFor(vocabularySource(), vocabularySource(), prebuiltIndex());
    for (const [k, h] of slow) {
      const f = fast.hit(k);
      assert.ok(f, k);
      assert.equal(f.entry, h.entry, k);
      assert.equal(f.alias, h.alias, k);
      assert.equal(f.length, h.length, k);
      assert.equal(aliasHit(k)?.alias, h.alias, k);
    }
    // words that are no alias: parts of aliases, categories, names of Object's properties
    for (const k of ["", "database", "postgres 1", "ostgres", "constructor", "__proto__", "toString", "hasOwnProperty", "cursor", "cursor-based pagination"]) {
      assert.equal(fast.hit(k), slow.get(k), k);
      assert.equal(aliasHit(k), slow.get(k), k);
    }
  });

  test("every canonical name gives the first entry of that name, and nothing else is one", () => {
    const all = vocabulary();
    const fast = lookupFor(vocabularySource(), vocabularySource(), prebuiltIndex());
    for (const e of all) {
      assert.equal(fast.named(e.name), all.find((x) => x.name === e.name), e.name);
      assert.equal(entryNamed(e.name), all.find((x) => x.name === e.name), e.name);
    }
    for (const n of ["", "postgres", "database", "constructor", "__proto__"]) assert.equal(fast.named(n), undefined, n);
  });

  // a cold hook parsed the whole index (~0.6 ms) to look up one prompt's words
  test("a lookup parses only its key's bucket, and the names only when a name is asked", () => {
    const source = vocabularySource();
    const built = prebuiltIndex();
    const b = bucketOf("postgres");
    assert.equal(bucketOf("postgres 16"), b, "a key's longer forms share its first word's bucket");
    // every other text unreadable: a lookup that parsed them would throw
    const only = lookupFor(source, source, { keys: built.keys.map((k, i) => (i === b ? k : "not json")), names: "not json" });
    assert.equal(only.hit("postgres")?.entry.name, "postgresql");
    assert.equal(only.hit("postgres 16")?.entry.name, "postgresql");
    assert.throws(() => only.named("postgresql"), SyntaxError);
  });

  test("an entry parsed alone is the one of the whole table", () => {
    const all = vocabulary();
    for (const i of [0, 1, Math.floor(all.length / 2), all.length - 1]) assert.equal(vocabularyEntryAt(i), all[i]);
    assert.equal(vocabularyEntryAt(all.length), undefined);
  });

  test("an index made from another table is not used: lookups come from the table as it is", () => {
    const source = vocabularySource();
    // made from another table: the empty index is not read
    const stale = lookupFor(source, `${source}x`, EMPTY);
    assert.equal(stale.hit("postgres")?.entry.name, "postgresql");
    assert.equal(stale.named("postgresql")?.name, "postgresql");
    // made from this one: it is (a test that the prebuilt index is what answers)
    const fresh = lookupFor(source, source, EMPTY);
    assert.equal(fresh.hit("postgres"), undefined);
    assert.equal(fresh.named("postgresql"), undefined);
  });
});
