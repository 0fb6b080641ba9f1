import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cutAtWord, renderBlock, shellWord } from "../../src/core/context-block.ts";
import { isShortId } from "../../src/core/ids.ts";
import { recallText, storedTerms, termsFromStored, TERMS_VERSION } from "../../src/core/memory-terms.ts";
import { memoryTerms, stem } from "../../src/core/recall-concepts.ts";
import { PROSE_MEMORIES } from "../fixtures/prose-memories.ts";
import { answers, asksFor } from "../../src/core/recall-answer.ts";
import { spellingVariants } from "../../src/core/recall-spelling.ts";
import { heldByAssociation } from "../../src/core/recall-associated.ts";
import { LEAD_WEIGHT, leadWeight } from "../../src/core/recall-lead.ts";
import { collapseNearDuplicates, contentWords, fitOf, floorOf, leadAndNumber, SPECIFIC_HOLDERS, SPECIFIC_QUERY_WORDS, NEAR_DUPLICATE, nearDuplicates, newerFirst, rank, rareCoverage, recallTerms, relevanceOf, replacedWords, similarity, supersededAmong, wordSet } from "../../src/core/recall-rank.ts";

// Recall's pure parts: query terms, the blend, near-duplicates and the budgeted block.

const DAY = 86_400;
const NOW = 1_800_000_000;

describe("recall terms", () => {
  test("stop words out, any word matches, words quoted so no input is FTS syntax", () => {
    const t = recallTerms("How do we paginate the Orders API? Don't use OFFSET!");
    assert.deepEqual(t.words, ["paginate", "orders", "api", "offset"]);
    // words of 5+ letters also as prefixes; then the phrases of the concepts named ("paginate")
    assert.ok(t.match?.startsWith('"paginate"* OR "orders"* OR "api" OR "offset"* OR "pagination"'), t.match ?? "");
    for (const p of ["pagination", "paging", "page through"]) assert.ok(t.phrases.includes(p), p);
    assert.equal(recallTerms('" OR 1=1 -- NEAR(xs ys) col:*').match, '"near" OR "xs" OR "ys" OR "col"');
  });

  test("only stop words, or no words at all: no terms", () => {
    assert.equal(recallTerms("what do we do with it?").match, null);
    assert.deepEqual(recallTerms(" ?! -- "), { words: [], strong: [], concepts: [], match: null, phrases: [] });
  });

  test("long prompts are cut to 24 words", () => {
    const prompt = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    assert.equal(recallTerms(prompt).words.length, 24);
  });
});

describe("the blend", () => {
  const base = { use_count: 0, strength: 1, last_used: NOW, created_at: NOW, updated_at: null };

  test("an old exact match outranks a fresh memory half as relevant", () => {
    const old = rank({ ...base, relevance: 1, last_used: NOW - 700 * DAY, created_at: NOW - 700 * DAY }, 1, NOW);
    const fresh = rank({ ...base, relevance: 0.5, use_count: 30, strength: 2 }, 1, NOW);
    assert.ok(old.score > fresh.score, `${old.score} vs ${fresh.score}`);
  });

  test("of two equally relevant memories the more used and the fresher ranks first", () => {
    const used = rank({ ...base, relevance: 0.8, use_count: 10 }, 1, NOW);
    const unused = rank({ ...base, relevance: 0.8 }, 1, NOW);
    assert.ok(used.score > unused.score);
    const recentUse = rank({ ...base, relevance: 0.8, last_used: NOW - DAY }, 1, NOW);
    const oldUse = rank({ ...base, relevance: 0.8, last_used: NOW - 20 * DAY }, 1, NOW);
    assert.ok(recentUse.score > oldUse.score);
    const newer = rank({ ...base, relevance: 0.8, created_at: NOW - 2 * DAY, last_used: NOW - 90 * DAY }, 1, NOW);
    const older = rank({ ...base, relevance: 0.8, created_at: NOW - 200 * DAY, last_used: NOW - 90 * DAY }, 1, NOW);
    assert.ok(newer.score > older.score);
    assert.ok(newer.recency > older.recency && newer.decay === older.decay);
  });

  test("relevance: BM25 share and the share of the query found; stems and concepts count as found", () => {
    const covered = (q: string, text: string, entities: string[] = []) => fitOf(recallTerms(q), memoryTerms(text, entities)).covered;
    assert.equal(covered("paginate orders kafka", "Cursor pagination for the order list"), 2 / 3);
    assert.equal(covered("postgres", "We run PostgreSQL 16"), 1);
    assert.equal(covered("paginate orders kafka", "Cursor pagination orders", ["kafka"]), 1);
    assert.equal(relevanceOf(2, 4, 1), 0.825);
  });
});

describe("near-duplicates", () => {
  test("more than 85% of words shared folds into the better one", () => {
    const a = "Pagination cursors must be opaque to clients; never parse them on the client side.";
    const b = "Pagination cursors must be opaque to clients: never parse them on the client side!";
    const c = "Pagination cursors must be opaque to clients.";
    assert.ok(similarity(wordSet(a), wordSet(b)) > 0.85);
    assert.ok(similarity(wordSet(a), wordSet(c)) < 0.85);
    const items = [
      { id: "1", text: a },
      { id: "2", text: c },
      { id: "3", text: b },
    ];
    const out = collapseNearDuplicates(items, (x) => wordSet(x.text), (x) => x.id);
    assert.deepEqual(out.map((o) => [o.item.id, o.collapsed]), [["1", ["3"]], ["2", []]]);
  });

  test("the size shortcut decides as the full comparison does, at the threshold too", () => {
    const set = (from: number, n: number) => new Set(Array.from({ length: n }, (_, i) => `w${from + i}`));
    for (let small = 0; small <= 24; small++) {
      for (let large = small; large <= 24; large++) {
        for (let shared = 0; shared <= small; shared++) {
          const a = set(0, small);
          const b = set(small - shared, large);
          assert.equal(nearDuplicates(a, b), similarity(a, b) > NEAR_DUPLICATE, `${small} ${large} ${shared}`);
          assert.equal(nearDuplicates(b, a), similarity(a, b) > NEAR_DUPLICATE);
        }
      }
    }
  });
});

describe("the block", () => {
  const entries = Array.from({ length: 30 }, (_, i) => ({
    text: `Memory number ${i} says something about caching, ${"with more detail ".repeat(i % 9)}and ends here.`,
    tail: `[fact 2026-01-${String((i % 28) + 1).padStart(2, "0")} ${String(i).padStart(8, "0")}]`,
    covers: i % 4 === 0 ? 2 : 1,
  }));
  const covered = entries.reduce((a, e) => a + e.covers, 0);
  const spec = (budget: number, total = covered + 5) => ({
    heading: "## Relevant memories",
    entries,
    total,
    more: (n: number) => `… ${n} more matches`,
    budget,
    itemMax: 120,
  });

  test("never exceeds its budget, for every budget from 0 to 4,000", () => {
    let sawCut = false;
    let sawAll = false;
    for (let budget = 0; budget <= 4000; budget += 7) {
      const b = renderBlock(spec(budget));
      assert.ok(b.text.length <= budget, `budget ${budget}: ${b.text.length}`);
      if (b.text === "") continue;
      const lines = b.text.trimEnd().split("\n");
      assert.equal(lines[0], "## Relevant memories");
      const shownCovers = entries.slice(0, b.shown).reduce((a, e) => a + e.covers, 0);
      assert.equal(b.more, covered + 5 - shownCovers);
      assert.equal(lines.at(-1), `… ${b.more} more matches`);
      assert.equal(lines.length, 2 + b.shown);
      if (lines.some((l) => l.includes("…") && l.startsWith("- "))) sawCut = true;
      if (b.shown === entries.length) sawAll = true;
    }
    assert.ok(sawCut && sawAll);
  });

  test("no more line when everything fits; nothing at all for no match or a budget below the heading", () => {
    const b = renderBlock(spec(100_000, covered));
    assert.equal(b.shown, 30);
    assert.equal(b.more, 0);
    assert.ok(!b.text.includes("more matches"));
    assert.equal(renderBlock({ ...spec(5000), entries: [], total: 0 }).text, "");
    assert.equal(renderBlock(spec(10)).text, "");
  });

  test("texts are cut at a word boundary", () => {
    assert.equal(cutAtWord("alpha beta gamma delta", 13), "alpha beta…");
    assert.equal(cutAtWord("  alpha\n beta  ", 50), "alpha beta");
    assert.ok(cutAtWord("x".repeat(100), 10).length <= 10);
  });

  test("shell words and short ids", () => {
    assert.equal(shellWord("web-dashboard"), "web-dashboard");
    assert.equal(shellWord("my project's"), "'my project'\\''s'");
    assert.ok(isShortId("1a2b3c4d") && isShortId("0123456789ab") && !isShortId("1a2b3c4") && !isShortId("1a2b3c4g") && !isShortId("../1a2b3c4d"));
  });
});

describe("the relevance floor and concepts", () => {
  const fits = (query: string, content: string, entities: string[] = []) => fitOf(recallTerms(query), memoryTerms(content, entities));

  test("common words and prefixes do not carry a match alone", () => {
    assert.equal(fits("I need to log my hours for work this week", "The login workflow logs each step").passes, false);
    assert.equal(fits("give me three ideas for a birthday party", "We keep 3 availability zones; three replicas").passes, false);
    assert.equal(fits("a card for my mom's birthday", "Card data never touches our servers").passes, false);
    // the same words, meant: a query of one strong word, or two found
    assert.equal(fits("login workflow", "The login workflow logs each step").passes, true);
    assert.equal(fits("kestrel", "Kestrel is the codename of the billing engine").passes, true);
  });

  test("a concept found carries the match: a category, an alias, an abbreviation", () => {
    assert.equal(fits("which db do we use?", "We use PostgreSQL 16 for orders", ["postgresql"]).passes, true);
    assert.equal(fits("which db do we use?", "We run PostgreSQL 16 for orders").passes, true);
    assert.equal(fits("how do users log in?", "Authentication goes through Auth0", ["auth0"]).passes, true);
    assert.equal(fits("is 2FA required?", "Multi-factor authentication is mandatory for admins").passes, true);
    assert.equal(fits("are we adding gql?", "We will not add GraphQL").passes, true);
    assert.equal(fits("how do we merge PRs", "Pull requests are squash-merged").covered, 1);
    assert.equal(fits("which db do we use?", "Kafka carries the order events", ["kafka"]).passes, false);
  });

  test("words are found by their porter stem, and by prefix only from 5 letters", () => {
    assert.equal(fits("webhook retry", "Webhooks are retried with backoff").covered, 1);
    assert.equal(fits("postgres replica", "the postgresql replica").covered, 1);
    assert.equal(fits("log work", "login workflow").covered, 0);
  });

  // floorOf over a query's candidates: one strong word is enough when the store knows every strong
  // word of the query and no better match holds that word
  const floor = (query: string, memories: string[]) => {
    const t = recallTerms(query);
    return floorOf(t, memories.map((m) => fitOf(t, memoryTerms(m, []))));
  };

  test("a query in the store's words: one word shared passes when no better match holds it", () => {
    const store = ["Invoice PDFs are rendered in a separate worker", "The OpenAPI spec is generated from the route schemas"];
    assert.deepEqual(floor("how are pdfs generated", store), [true, true]);
    // a word no memory holds: the query speaks of something else, one word shared is chance
    assert.deepEqual(floor("write a birthday card for my sister", ["Card data never touches our servers", "Commit messages are short"]), [false, false]);
    // a memory holding only what a better match holds is not let through
    const better = ["Signing keys rotate every 90 days", "The keys of the cache are namespaced", "Emails are signed with DKIM"];
    assert.deepEqual(floor("how do we rotate the signing keys", better), [true, false, false]);
  });

  test("every match known: a specific word carries a short query's match even where better matches hold it", () => {
    // (not "falling behind": the vocabulary reads that as consumer lag, branch recall27)
    const t = recallTerms("kafka consumers stalling badly");
    const store = [
      "Kafka consumers stalling badly when a partition is hot",
      "Consumer lag on the events topic grew to two hours",
      "Kafka topics keep seven days of events",
    ];
    const fits = store.map((m) => fitOf(t, memoryTerms(m, [])));
    assert.deepEqual(fits.map((f) => f.passes), [true, false, false]);
    // candidates cut from more matches: their count says nothing of a word's rarity, the floor stays
    assert.deepEqual(floorOf(t, fits), [true, false, false]);
    // every match: "consumers" and "kafka" are held by 2 memories each, specific enough
    assert.deepEqual(floorOf(t, fits, true), [true, true, true]);
    // a word held by more than SPECIFIC_HOLDERS memories carries nothing alone
    const many = [store[0]!, ...Array.from({ length: SPECIFIC_HOLDERS }, (_, i) => `Consumer group ${i} reads the ledger`)];
    const manyFits = many.map((m) => fitOf(t, memoryTerms(m, [])));
    assert.deepEqual(floorOf(t, manyFits, true), [true, ...many.slice(1).map(() => false)]);
    // a query with a word no memory holds is about something else: the one shared word stays no match
    const off = recallTerms("kafka consumers and hamsters");
    assert.equal(floorOf(off, store.map((m) => fitOf(off, memoryTerms(m, []))), true)[1], false);
    // a long query, every word known: one word is no fair share of it
    const long = recallTerms("kafka consumers stalling badly when a partition is hot");
    assert.equal(long.strong.length > SPECIFIC_QUERY_WORDS, true);
    assert.equal(floorOf(long, store.map((m) => fitOf(long, memoryTerms(m, []))), true)[1], false);
  });

  test("a concept alone does not carry a match when two of the query's words are in no memory", () => {
    const store = ["The checkout end-to-end test was flaky because it clicked too early", "Logs are kept for 14 days"];
    const at = (query: string, everyMatch: boolean) => {
      const t = recallTerms(query);
      return floorOf(t, store.map((m) => fitOf(t, memoryTerms(m, []))), everyMatch)[0];
    };
    // "flaky" (a concept) alone, "skin" and "winter" in no memory: a prompt about something else
    assert.equal(at("flaky skin in winter", true), false);
    // candidates cut from more matches: an unknown word may be in the store, the concept carries
    assert.equal(at("flaky skin in winter", false), true);
    // one word the store does not know, or more words shared, leave the match as it was
    assert.equal(at("flaky in winter", true), true);
    assert.equal(at("is the checkout test flaky in winter", true), true);
  });

  test("a question for a quantity: a memory that states one answers it with one word shared", () => {
    assert.equal(asksFor("how long do we keep database dumps around"), "duration");
    assert.equal(asksFor("how often does the ios app get released"), "frequency");
    assert.equal(asksFor("when does the nightly export job run"), "time");
    assert.equal(asksFor("max avatar size"), "amount");
    assert.equal(asksFor("which database do we use"), null);
    // a question for a product of a kind the query names: answered by a memory carrying one
    const t = recallTerms("which database do we use");
    assert.equal(t.asks, "choice");
    assert.equal(fitOf(t, memoryTerms("We use PostgreSQL 16 for orders", ["postgresql"])).answered, true);
    assert.equal(fitOf(t, memoryTerms("The database is backed up nightly", [])).answered, false);
    assert.equal(recallTerms("are we on postgres").asks, undefined);
    assert.equal(answers(wordSet("backups are kept for 30 days"), "duration"), true);
    assert.equal(answers(wordSet("we keep three availability zones"), "duration"), false);
    assert.equal(answers(wordSet("releases ship every two weeks"), "frequency"), true);
    assert.equal(answers(wordSet("the export runs at 02:00 UTC"), "time"), true);
    const store = ["The nightly invoice export loads the whole month", "The invoice export runs at 02:00 UTC", "The invoice export is written in Go"];
    // "export" alone is held by a better match: the time stated carries the second memory
    assert.deepEqual(floor("when does the nightly export run", store), [true, true, false]);
    assert.deepEqual(floor("what does the nightly export load", store), [true, false, false]);
    // never without a word of the store's: an off-topic question for a number stays unanswered
    assert.deepEqual(floor("how many players are on a basketball team", ["The team has 5 engineers"]), [false]);
  });

  test("irregular verbs are found in their other forms", () => {
    const t = recallTerms("how long do we keep dumps");
    assert.ok(fitOf(t, memoryTerms("pg_dump backups are kept for 30 days", [])).found.has("keep"));
    assert.ok(!fitOf(t, memoryTerms("the keeper of the dumps", [])).found.has("keep"));
  });

  test("a word is found in its British or American spelling, and two words as the one word a memory writes", () => {
    const found = (q: string, text: string) => [...fitOf(recallTerms(q), memoryTerms(text, [])).found].sort();
    assert.deepEqual(found("the colour of buttons", "Buttons need a 4.5:1 color contrast"), ["buttons", "colour"]);
    assert.deepEqual(found("how are invoices modelled", "Invoices are modeled as rows"), ["invoices", "modelled"]);
    assert.deepEqual(found("where is the data center", "Servers live in one data centre"), ["center", "data"]);
    assert.deepEqual(found("how do we analyze logs", "We analyse the logs in Loki"), ["analyze", "logs"]);
    // the other spelling is looked for in the index too, so a memory holding only it is a candidate
    assert.ok(recallTerms("which colour for errors").phrases.includes("color"));
    // common words with such an ending have none: each would be a term looked for in the index
    for (const w of ["error", "monitor", "vendor", "floor", "changelog", "backlog", "filter", "cluster", "called", "sequence"]) assert.deepEqual(spellingVariants(w), [], w);
    assert.deepEqual(spellingVariants("behaviour"), ["behavior"]);
    assert.deepEqual(spellingVariants("center"), ["centre"]);
    // no other spelling for a short word or one without such an ending ("four" is no "for")
    assert.deepEqual(found("four replicas", "for the replicas"), ["replicas"]);
    assert.deepEqual(found("what is our rate limit", "The API ratelimiter allows 100 requests a minute"), ["limit", "rate"]);
    assert.deepEqual(found("what is our rate limit", "The API rate is capped"), ["rate"]);
  });

  test("a choice between two things: a memory naming one of them passes the floor", () => {
    const passes = (q: string, text: string) => fitOf(recallTerms(q), memoryTerms(text, [])).passes;
    assert.equal(recallTerms("postmark or sendgrid").alternatives, 1);
    assert.equal(passes("postmark or sendgrid", "Transactional email is sent through Postmark"), true);
    // without the "or", two strong words are still both needed
    assert.equal(passes("postmark sendgrid", "Transactional email is sent through Postmark"), false);
    // the rest of the query still counts: one alternative and nothing else of three is no match
    assert.equal(passes("postmark or sendgrid for invoices", "Transactional email is sent through Postmark"), false);
    assert.equal(passes("postmark or sendgrid for invoices", "Invoices are mailed through Postmark"), true);
  });

  test("a question for a version is answered by a number that counts nothing", () => {
    assert.equal(asksFor("pg version"), "version");
    assert.equal(asksFor("which version of node do the services run"), "version");
    assert.equal(asksFor("where does the api version go"), null);
    assert.equal(answers(wordSet("We use PostgreSQL 16 as the primary store"), "version"), true);
    assert.equal(answers(wordSet("The public API is versioned in the URL path (/v1, /v2)"), "version"), true);
    assert.equal(answers(wordSet("Dumps are kept for 30 days"), "version"), false);
    assert.equal(answers(wordSet("Postgres holds the orders"), "version"), false);
    // it ranks, but does not carry a match past the floor on its own (a number is in too many memories)
    const store = ["The services run on Node 22 LTS; the version is pinned", "Product search runs on Elasticsearch 8 for the services", "Node scripts live in tools/"];
    assert.deepEqual(floor("which node version do the services run", store), [true, false, false]);
  });

  test("a quantity the query itself says is no answer to it", () => {
    const t = recallTerms("when does the nightly export job run");
    assert.equal(fitOf(t, memoryTerms("The nightly invoice export ran out of memory", [])).answered, false);
    assert.equal(fitOf(t, memoryTerms("The invoice export runs at 02:00 UTC", [])).answered, true);
  });

  test("rare words weigh more in the coverage that ranks", () => {
    const t = recallTerms("how do cache keys look");
    const ms = ["Cache keys are namespaced by service", "Reads use cache-aside: look in the cache first", "The cache holds product pages", "CI caches the store"];
    const [keys, aside] = rareCoverage(t, ms.map((m) => fitOf(t, memoryTerms(m, []))));
    assert.ok(keys! > aside!, `${keys} > ${aside}`);
  });
});

describe("superseded knowledge", () => {
  const st = (id: string, type: string, created_at: number, content: string) => ({ id, type, created_at, content, terms: memoryTerms(content, []) });

  test("a newer statement naming what it replaces marks the older one; it moves after the newer", () => {
    const old = st("old", "decision", 1, "Background jobs run on Sidekiq with a Ruby worker.");
    const newer = st("new", "decision", 2, "Background jobs moved from Sidekiq to BullMQ with Redis.");
    const other = st("other", "decision", 0, "Redis is our cache for product pages.");
    const problem = st("problem", "problem", 0, "Sidekiq workers crashed under load.");
    assert.deepEqual(replacedWords(newer.content), ["sidekiq"]);
    const replaced = supersededAmong([old, newer, other, problem]);
    assert.deepEqual([...replaced], [["old", "new"]]);
    assert.deepEqual(newerFirst(["old", "other", "new", "problem"], (x) => x, replaced), ["other", "new", "old", "problem"]);
    // an older memory never replaces a newer one; the same order stays when the newer leads
    assert.equal(supersededAmong([{ ...old, created_at: 3 }, newer]).size, 0);
    assert.deepEqual(newerFirst(["new", "old"], (x) => x, replaced), ["new", "old"]);
  });

  test("a newer statement with the same words up to another number replaces the older", () => {
    const old = st("old", "fact", 1, "The free trial is 30 days and requires a credit card.");
    const newer = st("new", "decision", 2, "The free trial is 14 days and does not ask for a card.");
    const same = st("same", "fact", 3, "The free trial is 14 days long.");
    const other = st("other", "fact", 4, "Logs are kept for 14 days.");
    assert.deepEqual(leadAndNumber(old.content), ["the free trial is", "30"]);
    assert.equal(leadAndNumber("We keep 3 zones"), null);
    // one specific word among general ones names a subject too ("node" with "services run")
    const node18 = st("n18", "fact", 5, "The services run on Node 18; upgrading is blocked.");
    const node22 = st("n22", "fact", 6, "The services run on Node 22 LTS, pinned in .nvmrc.");
    assert.deepEqual(leadAndNumber(node18.content), ["the services run on node", "18"]);
    assert.deepEqual([...supersededAmong([node18, node22])], [["n18", "n22"]]);
    // general words only are no subject ("it runs every 5 minutes" and "it runs every 10 minutes")
    assert.equal(leadAndNumber("It runs every 5 minutes"), null);
    assert.deepEqual([...supersededAmong([old, newer, same, other])], [["old", "new"]]);
  });

  test("what a change names is cut at the first small word; numbers and weak words are not names", () => {
    assert.deepEqual(replacedWords("We replaced ESLint and Prettier checks in CI with Biome"), ["eslint"]);
    assert.deepEqual(replacedWords("We switched from weekly Thursday deploys to continuous deployment"), ["weekly thursday deploys"]);
    assert.deepEqual(replacedWords("The suite went from 14 to 5 minutes"), []);
    assert.deepEqual(replacedWords("Data is loaded from the replica every night"), []);
  });

  test("a memory's stems, made by first letter on demand, answer as every word's stems would", () => {
    const texts = [...PROSE_MEMORIES, "Yesterday's yearly retries: naïve caching, ÉCOLE, 2FA, k8s, x86_64 — résumé"];
    for (const text of texts) {
      const words = text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const every = new Set(words.map(stem));
      // a porter stem keeps its word's first letter: what the lazy stems rely on
      for (const w of words) assert.equal(stem(w).charAt(0), w.charAt(0), w);
      const lazy = memoryTerms(text, []).stems;
      for (const s of [...every, ...words, "retri", "cach", "zzz", ""]) assert.equal(lazy.has(s), every.has(s), `${s} in ${text.slice(0, 40)}`);
    }
  });

  test("a memory's terms as the index keeps them answer as terms made from its text", () => {
    const texts = [...PROSE_MEMORIES, "Yesterday's yearly retries: naïve caching, ÉCOLE, 2FA, k8s, x86_64 — résumé", "", "?!"];
    for (const [i, content] of texts.entries()) {
      const m = { content, gist: i % 3 ? null : "Gist: the retried ﬁle", entities: i % 2 ? ["PostgreSQL", "redis"] : [], meta: { tags: i % 2 ? ["db-choice", "ops"] : [] } };
      const made = memoryTerms(recallText(m), m.entities);
      const kept = termsFromStored(storedTerms(m), m.entities);
      assert.ok(kept, content.slice(0, 40));
      const words = [...made.words];
      // the same words (the index may keep a word more than once)
      assert.deepEqual([...new Set(kept.words)].sort(), [...words].sort(), content.slice(0, 40));
      const probes = [...words, ...words.map(stem), "retri", "cach", "zzz", "", "a b", "postgresql", "ops"];
      for (const w of probes) {
        assert.equal(kept.words.has(w), made.words.has(w), `word ${JSON.stringify(w)} in ${content.slice(0, 40)}`);
        assert.equal(kept.stems.has(w), made.stems.has(w), `stem ${JSON.stringify(w)} in ${content.slice(0, 40)}`);
      }
      assert.deepEqual([...kept.entities], [...made.entities]);
      assert.deepEqual([...kept.content].sort(), [...contentWords(content)].sort());
    }
    // terms of another version (or not of this form) are not used: recall makes them from the text
    assert.equal(termsFromStored(`${TERMS_VERSION + 1}\nword\nword\nword`, []), null);
    assert.equal(termsFromStored("word", []), null);
  });

  test("a query fits a memory's kept terms as it fits terms made from its text, found words in the same order", () => {
    const texts = [...PROSE_MEMORIES, "Yesterday's yearly retries: naïve caching, ÉCOLE, 2FA, k8s, x86_64 — résumé", ""];
    // prefixes of 5+ letters found in longer words ("connection" in "connections"), in another
    // order than the query's; forms, irregular verbs and concepts
    const queries = ["why do the billing workers retry connections during nightly batches", "connection paginat retri cachi", "which database do we keep backups in", "naïve écol résum yesterd", ...PROSE_MEMORIES.slice(0, 8)];
    for (const [i, content] of texts.entries()) {
      const m = { content, gist: i % 3 ? null : "Gist: the retried ﬁle", entities: i % 2 ? ["PostgreSQL", "redis"] : [], meta: { tags: i % 2 ? ["db-choice", "ops"] : [] } };
      const made = memoryTerms(recallText(m), m.entities);
      const kept = termsFromStored(storedTerms(m), m.entities)!;
      for (const q of queries) {
        const terms = recallTerms(q);
        const a = fitOf(terms, kept);
        const b = fitOf(terms, made);
        // the order matters: rareCoverage sums weights over found in its order
        assert.deepEqual({ ...a, found: [...a.found] }, { ...b, found: [...b.found] }, `${q} / ${content.slice(0, 40)}`);
      }
    }
  });

  test("what the index keeps is of the version it says: a change to the terms made raises TERMS_VERSION", async () => {
    // the index keeps each memory's terms and uses those of its version as they are: terms made
    // differently under the same version would be used stale. Made anew, raise TERMS_VERSION (and
    // INDEX_VERSION with a fillTerms step, see core/memory-terms.ts), then record the new digest here.
    const { createHash } = await import("node:crypto");
    const h = createHash("sha256");
    for (const [i, content] of [...PROSE_MEMORIES, "Yesterday's naïve ÉCOLE ﬁle — résumé"].entries()) {
      h.update(`${storedTerms({ content, gist: i % 3 ? null : "Gist: the retried ﬁle", entities: i % 2 ? ["PostgreSQL"] : [], meta: { tags: i % 2 ? ["db-choice"] : [] } })}\0`);
    }
    const digests: Record<number, string> = { 1: "c92434dd2d1c4399" };
    assert.equal(h.digest("hex").slice(0, 16), digests[TERMS_VERSION], `the terms made changed under TERMS_VERSION ${TERMS_VERSION}`);
  });
});

describe("words the store links (pseudo-relevance feedback over the candidates)", () => {
  // candidates of "naming scheme for redis keys": three name Redis and say "cache" with it; one says
  // only "cache keys"; the rest hold a query word ("keys") among other talk (so "cache" is in a
  // third of them, not a word most candidates say)
  const store = [
    "Redis is our cache for product pages and rate limit counters",
    "Reads use cache-aside: look in Redis, fall back to Postgres",
    "Redis evicted session data from the cache because maxmemory was low",
    "Cache keys are namespaced by service and version",
    "Public API keys are hashed before storage",
    "Signing keys rotate every 90 days",
    "SSH keys of leavers are revoked the same day",
    "License keys are emailed after payment",
    "Keys of the translation files are sorted",
    "Primary keys are UUIDv7",
    "Idempotency keys are kept for 24 hours",
    "Foreign keys are indexed",
  ];
  const held = (query: string, memories: string[]) => {
    const t = recallTerms(query);
    const mts = memories.map((m) => memoryTerms(m, []));
    return heldByAssociation(t, mts.map((m) => fitOf(t, m)), memories.map((m, i) => ({ content: contentWords(m), words: mts[i]!.words })));
  };

  test("a memory with one query word holds another by what that word's holders say with it", () => {
    const t = recallTerms("naming scheme for redis keys");
    const fits = store.map((m) => fitOf(t, memoryTerms(m, [])));
    // without it the cache-keys memory shares one strong word ("keys") and fails the floor
    assert.equal(fits[3]!.passes, false);
    assert.equal(floorOf(t, fits)[3], false);
    assert.deepEqual(held("naming scheme for redis keys", store), [null, null, null, "redis", null, null, null, null, null, null, null, null]);
  });

  test("no link from one holder, from a word most candidates say, or for a memory with no query word", () => {
    // one memory names Redis: what it says is no link
    assert.deepEqual(held("naming scheme for redis keys", [store[0]!, ...store.slice(3)]), store.slice(3).concat([store[0]!]).map(() => null));
    // "cache" in most candidates: too common to stand for anything
    const common = store.map((m) => `${m} (cache)`);
    assert.ok(held("naming scheme for redis keys", common).every((w) => w === null));
    // five candidates pass already (each holds two words of the query): the first page is full, none is completed
    const full = [...store, ...[1, 2, 3, 4, 5].map((i) => `The naming scheme of tenant ${i} is documented`)];
    assert.ok(held("naming scheme for redis keys", full).every((w) => w === null));
    assert.equal(held("naming scheme for redis keys", full.slice(0, -1))[3], "redis");
    // a memory that shares no strong word of the query is not completed
    assert.equal(held("naming scheme for redis keys", [...store.slice(0, 3), "The cache is warmed at start", ...store.slice(4)])[3], null);
  });
});

describe("a memory's lead (its first words) as its title", () => {
  const weight = (query: string, content: string) => {
    const t = recallTerms(query);
    return leadWeight(t, fitOf(t, memoryTerms(content, [])), content);
  };

  test("query words a memory opens with weigh more than the same words said in passing", () => {
    const about = weight("where do reporting queries run", "Reporting queries go to the read replica, never to the primary");
    const passing = weight("where do reporting queries run", "Server state is handled with TanStack Query; reporting moved to the replica");
    assert.ok(about > passing, `${about} > ${passing}`);
    assert.equal(passing, 1);
    // the whole query in the lead: the full weight; none of it found: none
    assert.equal(weight("reporting queries", "Reporting queries go to the read replica"), 1 + LEAD_WEIGHT);
    assert.equal(weight("kafka lag", "Reporting queries go to the read replica"), 1);
  });

  test("of two memories holding the same query words, the one that opens with them weighs more", () => {
    const t = recallTerms("what shape do api errors have");
    const a = "Errors follow problem details with a stable type field in every API response";
    const b = "Screens get endpoints shaped per view; API errors were discussed in review";
    const rel = (c: string) => leadWeight(t, fitOf(t, memoryTerms(c, [])), c);
    assert.ok(rel(a) > rel(b));
  });
});
