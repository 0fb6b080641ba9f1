import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "node:test";
import { ftsTermList, ftsTerms, isNonAsciiSeparator, stem } from "../../scripts/bench-lib/fts-tokens.ts";
import { makeRng } from "../helpers/rng.ts";

// fts-tokens.ts makes in JS the terms FTS5 (`porter unicode61 remove_diacritics 2`) indexes, and
// term-docs.ts's counts are exact only if they are the same: each case here is checked against
// FTS5 itself, on the labelled capture corpus's texts and on words made to hit every porter rule.

const TOKENIZE = "porter unicode61 remove_diacritics 2";
const CORPUS = path.resolve(import.meta.dirname, "../fixtures/capture-corpus.jsonl");
const corpusTexts = () => fs.readFileSync(CORPUS, "utf8").split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);

/** FTS5's terms of each text, in order (one row a text). */
function fts5Terms(texts: readonly string[]): string[][] {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${TOKENIZE}'); CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
    const ins = db.prepare("INSERT INTO t(rowid, x) VALUES (?, ?)");
    db.exec("BEGIN");
    texts.forEach((x, i) => ins.run(i + 1, x));
    db.exec("COMMIT");
    const out: { term: string; offset: number }[][] = texts.map(() => []);
    for (const r of db.prepare("SELECT term, doc, offset FROM v").all() as { term: string; doc: number; offset: number }[]) out[r.doc - 1]!.push(r);
    return out.map((xs) => xs.sort((a, b) => a.offset - b.offset).map((x) => x.term));
  } finally {
    db.close();
  }
}

/** Words built to meet porter's suffixes, their conditions and the short and long edges. */
function madeWords(n: number): string[] {
  const rng = makeRng(20261129);
  const letters = "aeiouybcdlmnrstzgwx";
  const suffixes = (
    "ational tional enci anci izer logi bli abli alli entli eli ousli ization ation ator alism iveness fulness ousness aliti iviti biliti " +
    "icate ative alize iciti ical ful ness al ance ence er ic able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize " +
    "eed ed ing at bl iz ies sses ss s e ll y ly edly ingly"
  ).split(" ");
  const tails = ["", "s", "es", "ed", "ing", "ly"];
  const out = ["a", "ab", "ies", "sses", "ss", "yes", "sky", "eed", "ed", "ing", "yyy", "x".repeat(64), "x".repeat(65), `${"a".repeat(60)}ness`];
  for (let i = 0; i < n; i++) {
    const stemPart = Array.from({ length: Math.floor(rng() * 8) }, () => letters[Math.floor(rng() * letters.length)]).join("");
    out.push(stemPart + suffixes[Math.floor(rng() * suffixes.length)] + (rng() < 0.5 ? tails[Math.floor(rng() * tails.length)] : ""));
  }
  for (let i = 0; i < n / 10; i++) out.push(Array.from({ length: 1 + Math.floor(rng() * 70) }, () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(rng() * 36)]).join(""));
  return out;
}

describe("the full-text index's terms made in JS", () => {
  test("each word stems as FTS5's porter stems it", () => {
    const words = [...new Set([...madeWords(30_000), ...corpusTexts().flatMap((t) => t.toLowerCase().match(/[a-z0-9]+/g) ?? [])])];
    const theirs = fts5Terms(words);
    const differ = words.filter((w, i) => theirs[i]!.length !== 1 || theirs[i]![0] !== stem(w));
    assert.deepEqual(differ.slice(0, 20).map((w) => `${w}: fts5 ${fts5Terms([w])[0]} js ${stem(w)}`), [], `${differ.length} of ${words.length} words`);
  });

  test("each text's terms are FTS5's, or none are told (a letter beyond ASCII)", () => {
    const texts = [
      ...corpusTexts(),
      "Build — deploy → verify “quoted” ‘single’ … • bullet ✓ done 🎉 × 2",
      "snake_case and kebab-case, CamelCase; 3.14 v2.0.1 e-mail don't",
      "tab\there\r\nnew line\u00a0nbsp\u2009thin",
      "a café naïve résumé",
      "東京 on-call",
      "ﬁle ligature",
      "emoji with a variation selector ❤️ here",
      "combining e\u0301 mark",
    ];
    const theirs = fts5Terms(texts);
    let told = 0;
    for (const [i, text] of texts.entries()) {
      const mine = ftsTermList(text);
      if (mine === null) {
        // only a text holding a character that is neither ASCII nor a separator is left to FTS5
        assert.ok([...text].some((c) => c > "\x7f" && !isNonAsciiSeparator(c)), text);
        continue;
      }
      told++;
      assert.deepEqual(mine, theirs[i], text);
      assert.deepEqual(ftsTerms(text), new Set(theirs[i]), text);
    }
    assert.ok(told > texts.length * 0.9, `told ${told} of ${texts.length}`);
    for (const text of ["a café naïve résumé", "東京 on-call", "ﬁle ligature", "combining e\u0301 mark", "thinking 🤔"]) assert.equal(ftsTerms(text), null, text);
  });

  test("every non-ASCII character taken for a separator is one to FTS5", () => {
    const admitted: string[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c);
      if (isNonAsciiSeparator(ch)) admitted.push(ch);
    }
    const theirs = fts5Terms(admitted.map((ch) => `qa${ch}qb`));
    const joined = admitted.filter((_, i) => theirs[i]!.join(" ") !== "qa qb");
    assert.deepEqual(joined.map((ch) => ch.codePointAt(0)!.toString(16)), []);
    assert.ok(admitted.length > 1000, `${admitted.length} admitted`);
  });
});
