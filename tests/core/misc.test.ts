import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DatabaseSync } from "node:sqlite";
import { isMemsyncError } from "../../src/core/errors.ts";
import { isId, parseId, parseIdRef, SHARD_RE, shardOf } from "../../src/core/ids.ts";
import { newId } from "../../src/core/new-id.ts";
import { searchTerms } from "../../src/core/search-query.ts";
import { isoTime, parseSince } from "../../src/core/time.ts";
import { assertInvalid } from "../helpers/assert-error.ts";

// ids, search queries and times: the small pure modules every face leans on.

const ID = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";


describe("ids", () => {
  test("parseId refuses anything that is not a UUID, paths above all", () => {
    for (const bad of ["../x", "", "   ", "..", "/etc/passwd", `${ID}/../x`, `../${ID}`, `${ID}.json`, `{${ID}}`, ID.replace("d", "g"), ID.slice(1), `${ID}0`, `${ID}\u0000`]) {
      assertInvalid(() => parseId(bad), /invalid id/);
    }
  });

  test("parseId refuses a 10 kB string with a short, one-line message", () => {
    const huge = `${"a".repeat(5_000)}\n${"b".repeat(5_000)}`;
    assert.throws(
      () => parseId(huge),
      (e: unknown) => {
        assert.ok(isMemsyncError(e));
        assert.equal(e.code, "invalid_input");
        assert.ok(e.message.length < 200, `message is ${e.message.length} characters`);
        assert.ok(!e.message.includes("\n"));
        return true;
      },
    );
  });

  test("parseId names what it was parsing", () => {
    assertInvalid(() => parseId("nope", "relation id"), /invalid relation id "nope"/);
  });

  test("uppercase is accepted and lowercased; surrounding space trimmed", () => {
    assert.equal(parseId(ID.toUpperCase()), ID);
    assert.equal(parseId(`  ${ID}\n`), ID);
    assert.equal(parseId("0192F4C8-6A1E-7C3A-9B1D-2F6E8A4C5B7D"), ID);
  });

  test("parseIdRef: a full id, or at least 6 hex digits (dashes dropped); nothing that could be a path", () => {
    assert.deepEqual(parseIdRef(ID.toUpperCase()), { full: ID });
    assert.deepEqual(parseIdRef("0192F4C8-6a1e"), { abbrev: "0192f4c86a1e", given: "0192f4c8-6a1e" });
    assert.deepEqual(parseIdRef(" 8a4c5b7d "), { abbrev: "8a4c5b7d", given: "8a4c5b7d" });
    assert.deepEqual(parseIdRef("0192f4c86a1e7c3a9b1d2f6e8a4c5b7d"), { abbrev: "0192f4c86a1e7c3a9b1d2f6e8a4c5b7d", given: "0192f4c86a1e7c3a9b1d2f6e8a4c5b7d" });
    for (const bad of ["", "12345", "../8a4c5b7d", "8a4c5b7g", "8a4c 5b7d", `${ID}0`, "x".repeat(10_000)]) {
      assertInvalid(() => parseIdRef(bad, "from id"), /^invalid from id .*at least 6 of its hex digits/);
    }
  });

  test("isId itself accepts only the lowercase form", () => {
    assert.equal(isId(ID), true);
    assert.equal(isId(ID.toUpperCase()), false);
    assert.equal(isId(` ${ID}`), false);
    assert.equal(isId(undefined), false);
    assert.equal(isId(42), false);
  });

  test("newId makes lowercase v7 UUIDs that sort in creation order", () => {
    const ids = Array.from({ length: 500 }, () => newId());
    for (const id of ids) {
      assert.equal(isId(id), true, id);
      assert.equal(id[14], "7", `version 7: ${id}`);
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
  });

  test("shardOf is the last two hex digits", () => {
    assert.equal(shardOf(ID), "7d");
    assert.equal(shardOf("3f1c2a9e-8b4d-4e6f-9a1b-2c3d4e5f6a00"), "00");
    assert.equal(shardOf("3f1c2a9e-8b4d-4e6f-9a1b-2c3d4e5f6aff"), "ff");
  });

  test("ids made in the same instant still spread over many shards", () => {
    const shards = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const s = shardOf(newId());
      assert.match(s, SHARD_RE);
      shards.add(s);
    }
    // the leading digits are the same millisecond; the random tail must spread them
    assert.ok(shards.size > 100, `only ${shards.size} distinct shards for 400 ids`);
  });
});

describe("searchTerms: only quoted word tokens reach FTS5", () => {
  const TOKEN = /^"[\p{L}\p{N}]+"\*?$/u;

  function assertSafe(match: string, joiner: "AND" | "OR" = "AND"): void {
    const parts = match.split(` ${joiner} `);
    for (const p of parts) assert.match(p, TOKEN, `unsafe token ${JSON.stringify(p)} in ${JSON.stringify(match)}`);
  }

  /** A real FTS5 table like the index's, to run the expressions against. */
  function ftsWith(docs: string[]): (match: string) => number[] {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE VIRTUAL TABLE f USING fts5(content, gist, tokenize = 'porter unicode61 remove_diacritics 2')");
    const ins = db.prepare("INSERT INTO f(rowid, content, gist) VALUES (?, ?, '')");
    docs.forEach((d, i) => ins.run(i + 1, d));
    const q = db.prepare("SELECT rowid AS r FROM f WHERE f MATCH ? ORDER BY rowid");
    return (match) => (q.all(match) as { r: number }[]).map((x) => x.r);
  }

  test("every word must match; words of 3+ characters match as prefixes", () => {
    const t = searchTerms("Postgres go INDEX");
    assert.deepEqual(t.words, ["postgres", "go", "index"]);
    assert.equal(t.match, '"postgres"* AND "go" AND "index"*');
    assert.equal(searchTerms("postgres index", "any").match, '"postgres"* OR "index"*');
  });

  test("injection attempts become plain words", () => {
    const attempts = ['foo" OR 1=1 --', "NEAR(", "NEAR(a b, 2)", "content:secret", "{gist content}: x", 'a* AND b:c ^d -e "x', "NOT foo", "foo)) OR ((bar", "\"\"\"", "col:* OR *"];
    const search = ftsWith(["foo bar", "secret plans in content", "near the end"]);
    for (const q of attempts) {
      let t;
      try {
        t = searchTerms(q);
      } catch (e) {
        // a query with no words is refused, which is also safe
        assert.ok(isMemsyncError(e) && e.code === "invalid_input", `${q}: ${String(e)}`);
        continue;
      }
      assertSafe(t.match);
      assertSafe(searchTerms(q, "any").match, "OR");
      // the expression is valid FTS5 and runs
      search(t.match);
      search(searchTerms(q, "any").match);
    }
  });

  test("an injected OR does not widen the result; a column filter does not narrow to a column", () => {
    const search = ftsWith(["foo bar", "one and one", "foo or 1 together", "secret", "content holds the secret"]);
    // naive: foo" OR 1=1 -- would be a syntax error or match more; here all of foo, or, 1 must match
    assert.deepEqual(search(searchTerms('foo" OR 1=1 --').match), [3]);
    // "content:secret" means the words content and secret, not the column filter content: secret
    assert.deepEqual(search(searchTerms("content:secret").match), [5]);
    assert.deepEqual(search(searchTerms("NEAR(").match), []);
  });

  test("a query with no words is invalid input", () => {
    for (const q of ["", "   ", "!!! ---", '"*"', "()", "-- ;", "💥💥"]) {
      assertInvalid(() => searchTerms(q), /no words/);
    }
  });

  test("words are normalized, de-duplicated and capped at 32", () => {
    assert.deepEqual(searchTerms("foo FOO Foo ＦＯＯ").words, ["foo"]);
    const many = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const t = searchTerms(many);
    assert.equal(t.words.length, 32);
    assertSafe(t.match);
  });
});

describe("parseSince", () => {
  const NOW = 1_800_000_000;

  test("relative times: 7d, 12h, minutes, seconds, weeks", () => {
    assert.equal(parseSince("7d", NOW), NOW - 7 * 86_400);
    assert.equal(parseSince("12h", NOW), NOW - 12 * 3_600);
    assert.equal(parseSince("30m", NOW), NOW - 30 * 60);
    assert.equal(parseSince("45s", NOW), NOW - 45);
    assert.equal(parseSince("2w", NOW), NOW - 14 * 86_400);
    assert.equal(parseSince(" 7 d ", NOW), NOW - 7 * 86_400);
    assert.equal(parseSince("7D", NOW), NOW - 7 * 86_400);
  });

  test("ISO dates and date-times", () => {
    assert.equal(parseSince("2026-11-01", NOW), Date.UTC(2026, 10, 1) / 1000);
    assert.equal(parseSince("2026-11-01T10:00:00Z", NOW), Date.UTC(2026, 10, 1, 10) / 1000);
    assert.equal(parseSince("2026-11-01T10:00:00+02:00", NOW), Date.UTC(2026, 10, 1, 8) / 1000);
    assert.equal(parseSince("2026-11-01T10:00:00.750Z", NOW), Date.UTC(2026, 10, 1, 10) / 1000);
  });

  test("Unix seconds", () => {
    assert.equal(parseSince("1700000000", NOW), 1_700_000_000);
    assert.equal(parseSince("946684800", NOW), 946_684_800);
  });

  test("garbage is refused", () => {
    for (const bad of ["", "yesterday", "7x", "-5d", "1.5d", "d7", "1e9", "0", "17000000000000", "2026-13-45", "2026-11-01T25:00:00Z", "2026-11-01T::", "2026/11/01", "now"]) {
      assertInvalid(() => parseSince(bad, NOW), /invalid time/);
    }
  });

  test("an impossible calendar date is refused", () => {
    assertInvalid(() => parseSince("2026-02-30", NOW), /invalid time/);
    assertInvalid(() => parseSince("2026-04-31", NOW), /invalid time/);
  });

  test("isoTime prints seconds as UTC ISO without milliseconds", () => {
    assert.equal(isoTime(1_700_000_000), "2023-11-14T22:13:20Z");
    assert.equal(parseSince(isoTime(1_700_000_000), NOW), 1_700_000_000);
  });
});
