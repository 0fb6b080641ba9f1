import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { triggerIndexModule } from "../../scripts/gen-trigger-index.ts";
import { queryConcepts, searchedTriggers, triggerIndexFor, triggerIndexRows, triggersOf, triggerSource } from "../../src/core/recall-concepts.ts";
import { TRIGGER_GROUPS, TRIGGER_KEYS, TRIGGERS_FROM } from "../../src/core/trigger-index.gen.ts";
import { REPO } from "../helpers/env.ts";

// recall's trigger words looked up in a prebuilt sorted index (trigger-index.gen.ts, made at build
// time) instead of searched in a text of every key made on each cold start: the same triggers, in
// the same order and number, for every phrase; used only when made from the tables as they are.

const corpusTexts = (): string[] =>
  fs.readFileSync(path.join(REPO, "tests/fixtures/capture-corpus.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);

/** A text's phrases of one to three words, as queryConcepts looks them up. */
function phrasesOf(text: string): string[] {
  const us = text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (let i = 0; i < us.length; i++) for (let n = 1; n <= 3 && i + n <= us.length; n++) out.push(us.slice(i, i + n).join(" "));
  return out;
}

describe("the prebuilt trigger index", () => {
  test("the committed file is the one made from the tables as they are (npx bun scripts/gen-trigger-index.ts)", () => {
    assert.equal(fs.readFileSync(path.join(REPO, "src/core/trigger-index.gen.ts"), "utf8"), triggerIndexModule());
    assert.equal(TRIGGERS_FROM, triggerSource());
  });

  test("every key, and every phrase of the capture corpus, finds the triggers the search of every key's text finds", () => {
    const rows = triggerIndexRows();
    assert.ok(rows.length > 500, `${rows.length} keys`);
    // keys of more than one trigger (and one key twice in one group) are among them
    assert.ok(rows.some(([, g]) => new Set(g).size > 1), "a key of two groups");
    assert.ok(rows.some(([, g]) => new Set(g).size < g.length), "a key twice in one group");
    const phrases = new Set<string>(["", " ", "db x", "x db", "a", "zzzz", "constructor", "__proto__", "toString"]);
    for (const [k] of rows) {
      phrases.add(k);
      phrases.add(`${k}s`);
      phrases.add(k.slice(1));
      phrases.add(k.slice(0, -1));
    }
    for (const t of corpusTexts()) for (const p of phrasesOf(t)) phrases.add(p);
    let found = 0;
    for (const p of phrases) {
      const fast = triggersOf(p);
      assert.deepEqual(fast, searchedTriggers(p), p);
      if (fast) {
        found++;
        // the same trigger objects (made once per group), not equal copies
        fast.forEach((t, i) => assert.equal(t, searchedTriggers(p)![i], p));
      }
    }
    assert.ok(phrases.size > 20_000 && found > 700, `${phrases.size} phrases, ${found} with triggers`);
  });

  test("an index made from other tables is not used", () => {
    assert.ok(triggerIndexFor(triggerSource(), TRIGGERS_FROM, TRIGGER_KEYS, TRIGGER_GROUPS));
    assert.equal(triggerIndexFor(`${triggerSource()}x\n\n`, TRIGGERS_FROM, TRIGGER_KEYS, TRIGGER_GROUPS), null);
    assert.equal(triggerIndexFor(triggerSource().replace("\ndbs\n", "\n"), TRIGGERS_FROM, TRIGGER_KEYS, TRIGGER_GROUPS), null);
  });

  test("a long prompt's concepts are found without searching the text of every key", () => {
    const log = Array.from({ length: 60 }, (_, i) => `10:${i} worker-${i % 4} job ${i} failed: pool exhausted, cache miss on the db`).join("\n");
    const indexOf = String.prototype.indexOf;
    let searches = 0;
    String.prototype.indexOf = function (this: string, needle: string, from?: number) {
      if (typeof needle === "string" && needle.startsWith("\n") && needle.endsWith("\n")) searches++;
      return indexOf.call(this, needle, from);
    };
    let labels: string[];
    try {
      labels = queryConcepts(log).map((c) => c.label);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    assert.ok(labels.includes("db") && labels.includes("cache"), labels.join(","));
    assert.equal(searches, 0);
  });
});
