import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GIST_LEVELS, type GistLevel, makeGist, wordCount } from "../../src/core/gist.ts";
import { DROP_WORDS, isNegation, isNumberWord, PHRASES } from "../../src/core/gist/rules.ts";
import { PROSE_MEMORIES, TERSE_MEMORIES } from "../fixtures/prose-memories.ts";
import { Corpus } from "../../scripts/bench-lib/corpus.ts";

// Gists: shorter, never emptier of meaning. What the content protects is looked for in the gist
// with patterns written here, independently of the reducer's own tokenizer.

const PADDING =
  "Basically, it is worth noting that the team really thinks that this is a very important point, and in order to keep the " +
  "whole thing simple we actually decided that the approach is quite good for the time being.";

function gists(text: string, entities: readonly string[] = []): Record<GistLevel, string | null> {
  return Object.fromEntries(GIST_LEVELS.map((l) => [l, makeGist(text, l, entities)])) as Record<GistLevel, string | null>;
}

/** Every level gives a gist (so the checks below can fail) and each contains every needle. */
function assertKept(text: string, needles: readonly (string | RegExp)[], entities: readonly string[] = []): void {
  const g = gists(text, entities);
  assert.ok(g.aggressive !== null, `no aggressive gist for: ${text}`);
  for (const level of GIST_LEVELS) {
    const gist = g[level];
    if (gist === null) continue;
    for (const n of needles) {
      if (typeof n === "string") assert.ok(gist.includes(n), `${level} gist lost ${JSON.stringify(n)}: ${gist}`);
      else assert.match(gist, n, `${level} gist lost ${n}: ${gist}`);
    }
  }
}

const word = (w: string) => new RegExp(`(?<![\\p{L}'’])${w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}'’])`, "iu");

describe("makeGist keeps what carries meaning", () => {
  test("negations survive, in every form", () => {
    const negations = ["not", "never", "don't", "no", "without", "cannot", "can't", "won't", "isn't", "doesn't", "none", "nor", "neither", "unless", "except", "only", "nothing", "nobody"];
    for (const n of negations) {
      const text = `${PADDING} We should ${n} really use the very old client for the billing worker, because it is quite slow. ${PADDING}`;
      assertKept(text, [word(n)]);
    }
    // in a sentence that would otherwise be pruned as filler
    assertKept(`Use Redis for sessions. ${PADDING} It is really not a very good idea to basically share the cache. ${PADDING}`, [word("not"), "Redis"]);
    // the word after a negation stays too: "not very fast" is not "not fast"
    assertKept(`${PADDING} The old client is not very fast on the staging cluster. ${PADDING}`, [/not very fast/]);
  });

  test("numbers, in digits and in words", () => {
    const text = `${PADDING} The job took 30 seconds, then 1.5 minutes, for 5,000 rows at 99.9% and 2x speed, thirty times a day with ten million rows, twice. ${PADDING}`;
    assertKept(text, ["30", "1.5", "5,000", "99.9%", "2x", word("thirty"), word("ten"), word("million"), word("twice")]);
  });

  test("versions", () => {
    assertKept(`${PADDING} Upgrade to v1.2.3 of the client, Python 3.11 and node 20.11.1, but keep 2.4.0-beta.1 for the worker. ${PADDING}`, [
      "v1.2.3",
      "3.11",
      "20.11.1",
      "2.4.0-beta.1",
    ]);
  });

  test("paths, on every platform", () => {
    assertKept(`${PADDING} The config is in src/a/b.ts and ~/x, on Windows in C:\\x\\y.ini, and the script is ./scripts/run.sh with /etc/hosts. ${PADDING}`, [
      "src/a/b.ts",
      "~/x",
      "C:\\x\\y.ini",
      "./scripts/run.sh",
      "/etc/hosts",
    ]);
  });

  test("code spans, inline and fenced, exactly", () => {
    const fenced = "```ts\nconst the = a.very.basic(thing);\n// it is really simple\n```";
    assertKept(`${PADDING} Run \`npm run the build --very\` first, then the \`really  spaced\` one:\n${fenced}\n${PADDING}`, [
      "`npm run the build --very`",
      "`really  spaced`",
      fenced,
    ]);
  });

  test("URLs", () => {
    assertKept(`${PADDING} The runbook is at https://wiki.example.com/a/the-very/page?x=1&y=2 (see also http://example.org/x_(y)). ${PADDING}`, [
      "https://wiki.example.com/a/the-very/page?x=1&y=2",
      "http://example.org/x_(y)",
    ]);
  });

  test("entities, given or written as names", () => {
    const text = `${PADDING} the team basically moved from aws lambda to Cloudflare Workers and it is really the case that go is the very language of the team. ${PADDING}`;
    assertKept(text, [/aws lambda/i, "Cloudflare Workers", word("go")], ["AWS Lambda", "Go"]);
    assertKept(`${PADDING} We use PostgreSQL, Redis and the API of iOS with JSONB. ${PADDING}`, ["PostgreSQL", "Redis", "API", "iOS", "JSONB"]);
  });

  test("every protected token of every corpus memory survives every level", () => {
    const corpus = new Corpus(300, 7);
    const bench: { text: string; entities: string[] }[] = [];
    while (!corpus.done) {
      const { memory } = corpus.next();
      bench.push({ text: String(memory.fields.content), entities: memory.fields.entities as string[] });
    }
    const all = [...PROSE_MEMORIES.map((text) => ({ text, entities: [] as string[] })), ...TERSE_MEMORIES.map((text) => ({ text, entities: [] as string[] })), ...bench];
    let checked = 0;
    for (const { text, entities } of all) {
      const needles = new Set<string>();
      for (const m of text.matchAll(/`[^`]+`|https?:\/\/\S+?(?=[.,;)]?(\s|$))|\S*[/\\]\S*[\w/]|\d[\d.,:%x]*\d|\d/g)) needles.add(m[0]);
      const words = new Set<string>();
      for (const m of text.matchAll(/[\p{L}'’-]+/gu)) if (isNegation(m[0].toLowerCase()) || isNumberWord(m[0].toLowerCase())) words.add(m[0].toLowerCase());
      for (const level of GIST_LEVELS) {
        const g = makeGist(text, level, entities);
        if (g === null) continue;
        checked++;
        for (const n of needles) assert.ok(g.includes(n), `${level} lost ${JSON.stringify(n)}\n${text}\n=> ${g}`);
        for (const w of words) assert.match(g, word(w), `${level} lost ${w}\n${text}\n=> ${g}`);
        for (const e of entities) if (word(e).test(text)) assert.match(g, word(e), `${level} lost entity ${e}`);
      }
    }
    assert.ok(checked > 500, `only ${checked} gists checked`);
  });
});

describe("makeGist's length rules", () => {
  test("under 30 words: no gist; from 30 words a gist is possible", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? "the" : i % 3 === 1 ? "really" : `word${i}`)).join(" ");
    assert.equal(wordCount(words(29)), 29);
    for (const level of GIST_LEVELS) assert.equal(makeGist(words(29), level), null);
    assert.notEqual(makeGist(words(30), "light"), null);
    assert.equal(makeGist("", "aggressive"), null);
    assert.equal(makeGist("Short note: do not use the shared Redis.", "aggressive"), null);
  });

  test("no gist when it would not be clearly shorter (over 85% of the content)", () => {
    const dense = "PostgreSQL 16, pgvector 0.7, JSONB columns, src/db/schema.ts, `npm run migrate`, v2.3.1, 1,200 rows/s, " +
      "Redis 7.2 (noeviction), SESSION_REDIS_URL, Kafka 3.6 topics orders.v1 and payments.v2, 12 partitions, 3 replicas, " +
      "Grafana board ops/latency, p99 < 250 ms, SLO 99.9%, alerts via PagerDuty, runbook docs/runbooks/db.md.";
    assert.ok(wordCount(dense) >= 30);
    for (const level of GIST_LEVELS) assert.equal(makeGist(dense, level), null, level);
    for (const text of [...PROSE_MEMORIES, ...TERSE_MEMORIES]) {
      for (const level of GIST_LEVELS) {
        const g = makeGist(text, level);
        if (g !== null) assert.ok(g.length <= text.length * 0.85, `${level}: ${g.length} of ${text.length}`);
      }
    }
  });

  test("never an empty gist, even from text made only of filler (the 45-word regression)", () => {
    const fillers = ["the", "a", "basically", "really", "very", "it", "is", "we", "that", "also", "just", "quite", "actually", "please", "an", "are"];
    let seed = 1;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 300; n++) {
      const len = 30 + Math.floor(next() * 40);
      const text = Array.from({ length: len }, () => fillers[Math.floor(next() * fillers.length)]).join(next() < 0.5 ? " " : ", ");
      for (const level of GIST_LEVELS) {
        const g = makeGist(text, level);
        assert.ok(g === null || g.trim().length > 0, `empty gist from ${JSON.stringify(text)}`);
      }
    }
    // 45 words, most of them removable: a gist, never an empty one
    const m45 =
      "Basically, it is really very important that we actually do not deploy on a Friday, and it is also the case that " +
      "the team is quite tired of the very late nights, so please basically just do it on a Monday or a Tuesday instead.";
    assert.equal(wordCount(m45), 45);
    for (const level of GIST_LEVELS) {
      const g = makeGist(m45, level);
      assert.ok(g === null || (g.trim().length > 0 && /\bnot\b/.test(g) && /Friday/.test(g)), `${level}: ${g}`);
    }
    assert.notEqual(makeGist(m45, "moderate"), null);
  });

  test("levels are ordered: aggressive <= moderate <= light in length", () => {
    let strictly = 0;
    for (const text of [...PROSE_MEMORIES, ...TERSE_MEMORIES]) {
      const len = (l: GistLevel) => (makeGist(text, l) ?? text).length;
      assert.ok(len("aggressive") <= len("moderate"), text);
      assert.ok(len("moderate") <= len("light"), text);
      if (len("aggressive") < len("moderate") && len("moderate") < len("light")) strictly++;
    }
    assert.ok(strictly > 0);
  });

  test("deterministic, and an unknown level is the default", () => {
    const text = PROSE_MEMORIES[3]!;
    assert.equal(makeGist(text), makeGist(text, "moderate"));
    assert.equal(makeGist(text, "moderate"), makeGist(text, "moderate"));
    assert.equal(makeGist(text, "bogus" as GistLevel), makeGist(text, "moderate"));
  });
});

describe("gist rules", () => {
  test("every phrase becomes something shorter; no rule touches a negation or a number word", () => {
    for (const [phrase, repl] of PHRASES) {
      assert.ok(repl.length < phrase.length, `${phrase} -> ${repl}`);
      for (const w of phrase.split(" ")) assert.ok(!isNegation(w) && !isNumberWord(w), `${phrase} contains ${w}`);
    }
    for (const w of DROP_WORDS.keys()) assert.ok(!isNegation(w) && !isNumberWord(w), w);
  });
});
