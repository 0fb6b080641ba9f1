import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { aliasIndexModule } from "../../scripts/gen-alias-index.ts";
import { aliasHit, BUCKETS, bucketOf, buildIndex, entryNamed, longestAliasFrom, lookupFor, prebuiltIndex } from "../../src/core/capture/alias-index.ts";
import { findMentions, units } from "../../src/core/capture/entities.ts";
import { vocabulary, vocabularyEntryAt, vocabularySource } from "../../src/core/capture/vocabulary.ts";
import { REPO } from "../helpers/env.ts";

// The prebuilt alias index (alias-index.gen.ts) answers every lookup as the index made alias by
// alias does, and is used only when made from the table as it is now.

const EMPTY = { keys: Array.from({ length: BUCKETS }, () => "{}"), names: "{}", longest: "{}" };

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
    const only = lookupFor(source, source, { keys: built.keys.map((k, i) => (i === b ? k : "not json")), names: "not json", longest: "not json" });
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

  test("the longest key from each first word: as the index made alias by alias says, prebuilt or not; 1 for a word no longer key starts with", () => {
    const slow = buildIndex();
    const most = new Map<string, number>();
    for (const [k, h] of slow) most.set(k.split(" ")[0]!, Math.max(most.get(k.split(" ")[0]!) ?? 0, h.length));
    assert.ok([...most.values()].some((n) => n >= 3), "keys of three units and more");
    const source = vocabularySource();
    const fast = lookupFor(source, source, prebuiltIndex());
    const stale = lookupFor(source, `${source}x`, EMPTY);
    for (const [w, n] of most) {
      assert.equal(fast.longestFrom(w), n, w);
      assert.equal(stale.longestFrom(w), n, w);
      assert.equal(longestAliasFrom(w), n, w);
    }
    // the empty prebuilt index (made from this table) answers 1: only the word itself is looked up
    assert.equal(lookupFor(source, source, EMPTY).longestFrom("visual"), 1);
    for (const w of ["", "zzqx", "constructor", "__proto__", "toString", "billing"]) {
      assert.equal(fast.longestFrom(w), Math.max(1, most.get(w) ?? 1), w);
      assert.equal(stale.longestFrom(w), Math.max(1, most.get(w) ?? 1), w);
    }
  });

  test("findMentions tries no key longer than the longest from its unit: a text naming nothing makes no adjacency test", () => {
    // words no key of two units or more starts with (checked below), so no longer key is tried
    const text = Array.from({ length: 40 }, (_, i) => `item ${100 + i} processed in ${200 + i} seconds, queue depth fell again`).join("\n");
    for (const u of units(text)) assert.ok(longestAliasFrom(u.lower) <= 1, u.lower);
    const { test: t } = RegExp.prototype;
    let adjacency = 0;
    RegExp.prototype.test = function (s: string) {
      if (this.source === "^[\\s/-]{0,3}$") adjacency++;
      return t.call(this, s);
    };
    let found: string[];
    try {
      found = findMentions(text).map((m) => m.name);
    } finally {
      RegExp.prototype.test = t;
    }
    assert.equal(adjacency, 0);
    assert.ok(!found.some((n) => vocabulary().some((e) => e.name === n)), found.join(","));
    // a text naming a product by three units still finds it
    assert.ok(findMentions("we moved the analytics jobs onto Microsoft SQL Server last week").some((m) => m.name === "sql-server"));
  });
});

