import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { withStore } from "../../src/ops/context.ts";
import { recall } from "../../src/ops/recall.ts";
import { binaryThenInProcess, git, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// recall and context through the compiled binary, on real stores (the budget sweep in-process,
// checked against the binary for a spread of budgets).

const DAY = 86_400;
const NOW = Math.floor(Date.now() / 1000);

async function saveAt(store: string, content: string, ageDays: number, extra: Record<string, unknown> = {}): Promise<string> {
  const t = NOW - ageDays * DAY;
  // no project unless given (save would take the working directory's)
  const input = JSON.stringify({ content, created_at: t, last_used: t, gist: null, project: null, ...extra });
  return (await memsyncJson(["--store", store, "save", "--input", "-"], { input })).memory.id;
}

/** Many memories at once (save --input takes a JSON array: one process, one operation); their ids in order. */
async function saveManyAt(store: string, items: { content: string; ageDays: number; extra?: Record<string, unknown> }[]): Promise<string[]> {
  const records = items.map(({ content, ageDays, extra }) => {
    const t = NOW - ageDays * DAY;
    return { content, created_at: t, last_used: t, gist: null, project: null, ...extra };
  });
  return (await memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify(records) })).saved.map((s: any) => s.memory.id);
}

const recallJson = async (store: string, ...args: string[]) => await memsyncJson(["--store", store, "recall", ...args]);
const ids = (out: any) => out.items.map((i: any) => i.id);

describe("recall", () => {
  test("ranks by relevance, finds an old exact match, never returns a non-match, and prints the block", async () => {
    const store = newStore();
    const old = await saveAt(store, "Offset pagination timed out on the orders table of large merchants", 700);
    const partial = await saveAt(store, "The orders table has a composite index on merchant and created_at", 1);
    await saveManyAt(store, Array.from({ length: 40 }, (_, i) => ({ content: `Unrelated note number ${i} about logging and alerts`, ageDays: 0 })));
    const out = await recallJson(store, "why did offset pagination time out on the orders table?");
    assert.deepEqual(ids(out), [old, partial], "the old memory matching every word first, the partial match after");
    assert.equal(out.total, 2);
    assert.equal(out.total_exact, true);
    assert.ok(out.words.includes("pagination") && !out.words.includes("the") && !out.words.includes("why"));
    const text = await memsync(["--store", store, "recall", "why did offset pagination time out on the orders table?"]);
    assert.equal(text.code, 0);
    assert.equal(text.stdout, out.text, "the text output is the block itself");
    const lines = text.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^## Relevant memories \(full text: memsync open <id>\)$/);
    assert.match(lines[1]!, new RegExp(`^- Offset pagination timed out .* \\[fact \\d{4}-\\d\\d-\\d\\d ${old.slice(-8)}\\]$`));
    assert.equal(lines.length, 3);
    // the short id opens the full memory
    assert.equal((await memsyncJson(["--store", store, "open", old.slice(-8)])).found[0].memory.id, old);
  });

  test("open takes a short id (8 to 12 hex digits); one that fits two memories is refused", async () => {
    const store = newStore();
    const a = "0192f4c8-6a1e-7c3a-9b1d-2f6e1a2b3c4d";
    const b = "0192f4c8-6a1e-7c3a-9b1d-9f9e1a2b3c4d";
    for (const id of [a, b]) await memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify({ id, content: `memory ${id}` }) });
    const r = await memsync(["--store", store, "open", "1a2b3c4d"]);
    assert.equal(r.code, 5);
    assert.match(r.stderr, /short id 1a2b3c4d fits 2 memories/);
    assert.equal((await memsyncJson(["--store", store, "open", "2F6E1A2B3C4D"])).found[0].memory.id, a);
    assert.equal((await memsync(["--store", store, "open", "00000000"])).code, 3);
  });

  test("with over 1,000 matches of common words, the memory holding every word still comes first, however old", async () => {
    const store = newStore();
    // 1,200 recent, much used memories written straight into the folder (as another tool would)
    for (let i = 0; i < 1200; i++) {
      const id = randomUUID();
      const t = NOW - (i % 30) * DAY;
      const content = `Note ${i}: the connection pool ${i % 2 ? "timeout" : "size"} was tuned for service ${i % 17}`;
      fs.writeFileSync(path.join(store, "memories", `${id}.json`), JSON.stringify({ id, content, created_at: t, last_used: t, use_count: 20 }));
    }
    const old = await saveAt(store, "Zeppelin builds hit the connection timeout of the artifact proxy", 700);
    const both = await recallJson(store, "zeppelin connection timeout");
    assert.ok(both.total > 1000, `${both.total} matches`);
    assert.equal(both.items[0].id, old, "chosen by its rarer word, ranked on all three");
    const common = await recallJson(store, "connection pool timeout");
    assert.equal(common.items.length, 10);
    for (const item of common.items) assert.match(item.text, /connection pool timeout/, "candidates hold every word when enough do");
    // matches are counted up to 1,001; the block's last line counts the relevant ones not shown
    // among those ranked, and says "more than" when the least of them still fits (more may be past them)
    assert.equal(common.total, 1001);
    assert.equal(common.total_exact, false);
    assert.ok(common.more >= 10, `${common.more} more`);
    assert.match(common.text.trimEnd().split("\n").at(-1), new RegExp(`^… more than ${common.more} more matches: memsync search --any connection pool timeout$`));
    // counted to less (as the hook does): the same memories, a lower bound said as such
    await withStore({ storeRoot: store, hostName: "test-host", user: null, machineOverride: "test-machine" }, async (s) => {
      const capped = await recall(s, { query: "connection pool timeout", countUpTo: 101 });
      assert.deepEqual(ids(capped), ids(common));
      assert.equal(capped.total, 101);
      assert.equal(capped.total_exact, false);
      assert.match(capped.text.trimEnd().split("\n").at(-1) ?? "", /^… more than \d+ more matches: /);
      const rare = await recall(s, { query: "zeppelin artifact proxy", countUpTo: 101 });
      assert.deepEqual([rare.total, rare.total_exact, rare.items[0]?.id], [1, true, old], "few matches: counted exactly");
    });
  });

  test("gist first: a memory with a gist shows its gist, and open gives the full text", async () => {
    const store = newStore();
    const id = await saveAt(store, "We moved session storage to a separate Redis database with the noeviction policy because the shared cache evicted sessions.", 3, {
      gist: "Sessions: separate Redis db, noeviction",
    });
    const out = await recallJson(store, "where are sessions stored");
    assert.equal(out.items[0].id, id);
    assert.equal(out.items[0].text, "Sessions: separate Redis db, noeviction");
    assert.equal(out.items[0].from_gist, true);
    assert.match(out.text, /- Sessions: separate Redis db, noeviction \[fact/);
    assert.match((await memsync(["--store", store, "open", id.slice(-8)])).stdout, /shared cache evicted sessions/);
  });

  test("of two equally relevant memories, the more used and the fresher ranks first", async () => {
    const store = newStore();
    // the same words in the same number, so BM25 ties; both orders tried so ids cannot decide
    for (const firstIsUsed of [true, false]) {
      const a = await saveAt(store, `Kestrel queue retries use exponential backoff alpha ${firstIsUsed}`, 60, { use_count: firstIsUsed ? 12 : 0, last_used: NOW - (firstIsUsed ? 1 : 50) * DAY });
      const b = await saveAt(store, `Kestrel queue retries use exponential backoff bravo ${firstIsUsed}`, 60, { use_count: firstIsUsed ? 0 : 12, last_used: NOW - (firstIsUsed ? 50 : 1) * DAY });
      const out = await recallJson(store, `kestrel backoff ${firstIsUsed}`);
      const [top, second] = out.items;
      assert.equal(top.id, firstIsUsed ? a : b, "the used one first");
      assert.ok(top.score > second.score && top.decay > second.decay);
      await memsync(["--store", store, "delete", a, b]);
    }
    // same use, different age: the newer first
    const older = await saveAt(store, "Zeppelin deploys need a manual approval step", 300, { last_used: NOW - 100 * DAY });
    const newer = await saveAt(store, "Zeppelin deploys need a signed release tag", 2, { last_used: NOW - 100 * DAY });
    assert.deepEqual(ids(await recallJson(store, "zeppelin deploys")), [newer, older]);
  });

  test("a captured decision that names what it replaces supersedes the older one: related at capture, first in recall, the older marked", async () => {
    const store = newStore();
    const cwd = tempDir();
    const old = await saveAt(store, "Background jobs run on Sidekiq with a Ruby worker service.", 90, { type: "decision", use_count: 20 });
    await saveAt(store, "Sidekiq workers crashed when Redis restarted.", 80, { type: "problem" });
    const cap = await memsyncJson(["--store", store, "capture", "We decided to move background jobs from Sidekiq to BullMQ because the Ruby service is going away."], { cwd });
    const created = cap.stored.find((s: any) => s.action === "created").memory.id;
    const got = (await memsyncJson(["--store", store, "open", created])).found[0];
    assert.deepEqual(got.outgoing.map((r: any) => [r.to_memory_id, r.relation_type]), [[old, "supersedes"]], "a problem is not replaced by a decision");
    const out = await recallJson(store, "what do background jobs run on");
    const at = (id: string) => ids(out).indexOf(id);
    assert.ok(at(created) >= 0 && at(created) < at(old), JSON.stringify(ids(out)));
    assert.equal(out.items[at(old)].superseded_by, created);
    assert.match(out.text, new RegExp(`${old.slice(-8)} superseded by ${created.slice(-8)}\\]`));
  });

  test("near-duplicates are collapsed into the best of them", async () => {
    const store = newStore();
    const best = await saveAt(store, "Never share one Redis client between the web and the worker processes", 1, { use_count: 5 });
    const dup1 = await saveAt(store, "Never share one Redis client between the web and the worker processes.", 30);
    const dup2 = await saveAt(store, "never share ONE redis client between the web and the worker processes!", 60);
    const other = await saveAt(store, "The Redis client in the worker needs a longer timeout", 5);
    const out = await recallJson(store, "redis client worker");
    // which of the two distinct memories leads is ranking's business (other starts with the
    // query's words); the point here is that the three copies show as one, the most used
    assert.deepEqual(new Set(ids(out)), new Set([best, other]));
    const shown = out.items[ids(out).indexOf(best)];
    assert.deepEqual(new Set(shown.collapsed), new Set([dup1, dup2]));
    assert.equal(out.collapsed, 2);
    assert.equal(out.more, 0);
    assert.match(out.text, new RegExp(`${best.slice(-8)} \\+2 similar\\]`));
  });

  test("the block never exceeds the budget, across many budgets", async () => {
    const store = newStore();
    const words = ["cache", "invalidation", "timeout", "retry", "pool", "index"];
    const notes = Array.from({ length: 45 }, (_, i) => {
      const detail = " It was measured on staging with production-like data and the numbers are in the channel.".repeat(i % 5);
      return { content: `Note ${i}: the ${words[i % words.length]} of service ${i} needs care when the cache is cold.${detail}`, ageDays: i };
    });
    assert.equal((await saveManyAt(store, notes)).length, 45);
    const query = "cache timeout retry pool";
    // the sweep runs recall in-process (the block is computed there; 40 processes were 20 s of a
    // loaded machine); the binary prints the same block for a spread of budgets, checked below
    const blocks = new Map<number, string>();
    let sawMore = false;
    let sawEmpty = false;
    await withStore({ storeRoot: store, hostName: "test-host", user: null, machineOverride: "test-machine" }, async (s) => {
      for (const budget of [0, 10, 50, 80, 120, 160, 200, 260, 333, 400, 555, 700, 900, 1200, 1500, 2000, 2500, 3100, 4096, 8000]) {
        const out = await recall(s, { query, budget, limit: 50 });
        blocks.set(budget, out.text);
        assert.ok(out.text.length <= budget && [...out.text].length <= budget, `budget ${budget}: ${out.text.length} characters`);
        if (out.text === "") {
          sawEmpty = true;
          continue;
        }
        const lines = out.text.trimEnd().split("\n");
        assert.equal(lines.length, 1 + out.items.length + (out.more > 0 ? 1 : 0));
        if (out.more > 0) {
          sawMore = true;
          assert.match(lines.at(-1)!, new RegExp(`^… ${out.more} more match(es)?: memsync search --any `));
        }
        for (const item of out.items) assert.ok(out.text.includes(item.short_id));
      }
    });
    assert.ok(sawMore && sawEmpty);
    // what the binary prints is that block, and its --json says the same
    for (const budget of [0, 120, 700, 2500, 8000]) {
      const r = await memsync(["--store", store, "recall", query, "--budget", String(budget), "--limit", "50"]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, blocks.get(budget), `budget ${budget}: the binary's block`);
    }
    assert.equal((await recallJson(store, query, "--budget", "700", "--limit", "50")).text, blocks.get(700));
    // the default budget is 2,000
    assert.equal((await memsync(["--store", store, "recall", query, "--limit", "50"])).stdout, blocks.get(2000));
  });

  test("--project keeps that project's memories and those of no project", async () => {
    const store = newStore();
    const mine = await saveAt(store, "Kafka consumers commit offsets after the write", 1, { project: "shop" });
    const global = await saveAt(store, "Kafka consumers need idempotent handlers", 1);
    await saveAt(store, "Kafka consumers in analytics run nightly", 1, { project: "analytics" });
    assert.deepEqual(new Set(ids(await recallJson(store, "kafka consumers", "--project", "shop"))), new Set([mine, global]));
    assert.equal((await recallJson(store, "kafka consumers")).items.length, 3);
  });

  test("stop words only, or no words at all: nothing to inject (exit 0); archived memories are left out", async () => {
    const store = newStore();
    const id = await saveAt(store, "What we do with the archive", 1);
    const r = await memsync(["--store", store, "recall", "what do we do with it"]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "");
    const none = await memsync(["--store", store, "recall", "--", "?! --"]);
    assert.deepEqual([none.code, none.stdout, none.stderr], [0, "", ""]);
    assert.equal((await memsync(["--store", store, "recall"])).code, 2);
    assert.equal((await recallJson(store, "archive")).items.length, 1);
    await memsync(["--store", store, "archive", id]);
    assert.equal((await recallJson(store, "archive")).items.length, 0);
    assert.equal((await memsync(["--store", store, "recall", "archive", "--budget", "lots"])).code, 4);
  });
});

describe("context", () => {
  async function decision(store: string, what: string, ageDays: number, project = "shop", extra: Record<string, unknown> = {}): Promise<string> {
    return await saveAt(store, what, ageDays, { type: "decision", project, ...extra });
  }

  test("the project's decisions, newest first, with their reasons; other projects and types left out", async () => {
    const store = newStore();
    const d1 = await decision(store, "Use cursor pagination for list endpoints", 30);
    const d2 = await decision(store, "PostgreSQL for analytics", 10, "shop", { decision: { what: "PostgreSQL 16 for the analytics database", why: "need JSONB" } });
    const d3 = await decision(store, "Tailwind for new components", 1);
    await decision(store, "Something for another project", 0, "billing");
    await saveAt(store, "A fact about the shop", 0, { project: "shop" });
    const out = await memsyncJson(["--store", store, "context", "--project", "shop"]);
    assert.equal(out.kind, "decisions");
    assert.deepEqual(ids(out), [d3, d2, d1]);
    assert.equal(out.more, 0);
    const text = (await memsync(["--store", store, "context", "--project", "shop"])).stdout;
    assert.equal(text, out.text);
    const lines = text.trimEnd().split("\n");
    assert.equal(lines[0], "## Recent Project Decisions (shop)");
    assert.match(lines[2]!, new RegExp(`^- \\[Decision\\] PostgreSQL 16 for the analytics database \\(because: need JSONB\\) (?:\\{[^}]*\\} )?\\[\\d{4}-\\d\\d-\\d\\d ${d2.slice(-8)}\\]$`));
    assert.equal(lines.length, 4);
  });

  test("limit 10 by default, --limit, the budget, and the line saying more exist", async () => {
    const store = newStore();
    const made = await saveManyAt(
      store,
      Array.from({ length: 14 }, (_, i) => ({ content: `Decision ${i}: ${"a reasonably long explanation of the choice ".repeat(1 + (i % 4))}`, ageDays: 14 - i, extra: { type: "decision", project: "web app" } })),
    );
    const newestFirst = [...made].reverse();
    const out = await memsyncJson(["--store", store, "context", "--project", "web app"]);
    assert.deepEqual(ids(out), newestFirst.slice(0, 10));
    assert.equal(out.total, 14);
    assert.equal(out.more, 4);
    assert.match(out.text.trimEnd().split("\n").at(-1), /^… 4 more decisions: memsync list --project 'web app' --type decision,preference$/);
    assert.equal((await memsyncJson(["--store", store, "context", "--project", "web app", "--limit", "3"])).items.length, 3);
    for (const budget of [0, 40, 90, 150, 300, 600, 1000, 3000]) {
      const r = await memsync(["--store", store, "context", "--project", "web app", "--budget", String(budget), "--limit", "14"]);
      assert.ok(r.stdout.length <= budget, `budget ${budget}: ${r.stdout.length}`);
      const j = await memsyncJson(["--store", store, "context", "--project", "web app", "--budget", String(budget), "--limit", "14"]);
      assert.deepEqual(ids(j), newestFirst.slice(0, j.items.length), "newest first whatever fits");
      if (r.stdout !== "" && j.items.length < 14) assert.match(r.stdout, new RegExp(`… ${14 - j.items.length} more decisions?: `));
    }
    assert.ok((await memsync(["--store", store, "context", "--project", "web app", "--limit", "14"])).stdout.length <= 3000);
  });

  test("a project without decisions gets its recent memories; an unknown project nothing; no project is a usage error", async () => {
    const store = newStore();
    const f = await saveAt(store, "The docs site builds with Astro", 2, { project: "docs", type: "fact" });
    const out = await memsyncJson(["--store", store, "context", "--project", "docs"]);
    assert.equal(out.kind, "memories");
    assert.deepEqual(ids(out), [f]);
    assert.match(out.text, /^## Recent Project Memories \(docs; no decisions yet\)\n- \[Fact\] The docs site builds with Astro (?:\{[^}]*\} )?\[/);
    assert.equal((await memsync(["--store", store, "context", "--project", "nothing-here"])).stdout, "");
    // outside any git repository there is no project to name: a usage error
    const r = await memsync(["--store", store, "context"], { cwd: tempDir() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--project/);
    // inside one, the project is its normalized remote, the same on every machine
    const repo = tempDir();
    assert.equal(git(repo, "init", "-q").status, 0);
    assert.equal(git(repo, "remote", "add", "origin", "git@github.com:Acme/Docs.git").status, 0);
    await saveAt(store, "The docs deploy from main", 1, { project: "github.com/acme/docs", type: "decision" });
    assert.match((await memsyncJson(["--store", store, "context"], { cwd: repo })).text, /^## Recent Project Decisions \(github\.com\/acme\/docs\)\n- \[Decision\] The docs deploy from main/);
  });
});
