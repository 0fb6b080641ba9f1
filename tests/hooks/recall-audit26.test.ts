import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gitProject, memsync, newStore, saveMany, tempDir } from "../helpers/env.ts";

// Four faults an agent's-eye audit found in recall (branch recall26), each through the compiled
// binary's UserPromptSubmit hook on a real store: the project's own name carrying a match, the
// "N more matches" line counting matches under the relevance floor, two memories saying one fact
// in other words both shown, and a session outside any repository recalling every project's memories.

const LEDGERLY = "github.com/acme/ledgerly";
const SHOP = "github.com/acme/shop";

/** The context the hook injects for a prompt in `cwd` (undefined: none). */
function recalled(store: string, cwd: string, prompt: string): string | undefined {
  const input = JSON.stringify({ session_id: "s", hook_event_name: "UserPromptSubmit", cwd, prompt });
  const r = memsync(["--store", store, "hook", "UserPromptSubmit"], { input, env: { CLAUDE_PROJECT_DIR: cwd } });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).hookSpecificOutput?.additionalContext as string | undefined;
}

function ledgerlyStore(): string {
  const store = newStore();
  saveMany(store, [
    { content: "Ledgerly stores invoices in PostgreSQL with one schema per tenant", type: "decision", project: LEDGERLY },
    { content: "Ledgerly's public API paginates with opaque cursors, never offsets", type: "decision", project: LEDGERLY },
    { content: "Ledgerly sends receipt emails through Postmark", type: "decision", project: LEDGERLY },
    { content: "Ledgerly runs its nightly reconciliation job at 02:00 UTC", type: "fact", project: LEDGERLY },
    { content: "The checkout page of Ledgerly was slow because of an N+1 query on line items", type: "problem", project: LEDGERLY },
  ]);
  return store;
}

describe("recall26: faults of the audit, through the hook", () => {
  test("the project's own name carries no match inside the project: it is in every memory of it", () => {
    const store = ledgerlyStore();
    const repo = gitProject(`https://${LEDGERLY}.git`, "ledgerly");
    for (const prompt of ["what colors should the ledgerly landing page use", "write a birthday card for the ledgerly public relations manager"]) {
      assert.equal(recalled(store, repo, prompt), undefined, `${prompt}: shares only the project's name and one word`);
    }
    // the name beside what a memory is about still finds it
    assert.match(recalled(store, repo, "how does the ledgerly api paginate?") ?? "", /opaque cursors/);
    assert.match(recalled(store, repo, "why was the ledgerly checkout page slow") ?? "", /N\+1 query/);
  });

  test("a project named after a product keeps the product as a strong word: the prompt names what it is about", () => {
    const store = newStore();
    const project = "github.com/acme/redis-tools";
    saveMany(store, [
      { content: "Redis eviction policy is allkeys-lru on the session cache", type: "decision", project },
      { content: "Redis backups are copied to the cold bucket every night", type: "fact", project },
    ]);
    const repo = gitProject(`https://${project}.git`, "redis-tools");
    assert.match(recalled(store, repo, "how do we configure redis eviction") ?? "", /allkeys-lru/);
  });

  test("the 'more matches' line counts only matches that pass the relevance floor", () => {
    const store = newStore();
    saveMany(store, [
      { content: "Invoice PDFs render slowly because the renderer loads every font on each call", type: "problem" },
      ...Array.from({ length: 8 }, (_, i) => ({ content: `Invoices of region ${i} are archived after seven years`, type: "fact" })),
    ]);
    const ctx = recalled(store, tempDir(), "why do the invoice pdfs render so slowly?") ?? "";
    assert.match(ctx, /loads every font/);
    const more = /… (?:more than )?(\d+) more match/.exec(ctx);
    // the archived invoices share one word each and are under the floor: not "more matches"
    assert.equal(more, null, ctx);
  });

  test("two memories that state one fact in other words fold into one line; different facts about the same thing do not", () => {
    const store = newStore();
    const repo = gitProject(`https://${SHOP}.git`);
    // entities as capture finds them
    const pg = ["postgresql", "jsonb"];
    saveMany(store, [
      { content: "We chose PostgreSQL for the orders database because we need JSONB columns", type: "decision", project: SHOP, entities: pg, created_at: 1_790_000_000 },
      { content: "The orders database is PostgreSQL, picked for its JSONB column support", type: "decision", project: SHOP, entities: pg, created_at: 1_790_100_000 },
      { content: "The analytics database is PostgreSQL too, on a read replica", type: "decision", project: SHOP, entities: ["postgresql"], created_at: 1_790_000_000 },
      // one word apart and opposite: no entity says they name the same things, both are shown
      { content: "Kestrel queue retries use exponential backoff between attempts", type: "decision", project: SHOP },
      { content: "Kestrel queue retries use linear backoff between attempts", type: "decision", project: SHOP },
    ]);
    const ctx = recalled(store, repo, "which database do we use for orders and why?") ?? "";
    const lines = ctx.split("\n").filter((l) => l.startsWith("- "));
    assert.equal(lines.filter((l) => /orders database/.test(l)).length, 1, ctx);
    assert.match(ctx, /\+1 similar/, ctx);
    const both = recalled(store, repo, "which postgresql databases do we run?") ?? "";
    assert.match(both, /analytics database/, "another fact about PostgreSQL stays its own line");
    const retries = recalled(store, repo, "how do kestrel queue retries back off?") ?? "";
    assert.match(retries, /exponential backoff/, retries);
    assert.match(retries, /linear backoff/, retries);
  });

  test("a session outside any repository gets memories of no project, and another project's only on a strong match", () => {
    const store = ledgerlyStore();
    saveMany(store, [
      { content: "We chose PostgreSQL for the orders database because we need JSONB columns", type: "decision", project: SHOP },
      { content: "Always pin exact dependency versions in package manifests", type: "preference", scope: "global", project: null },
    ]);
    const folder = tempDir();
    // shares "database" (a concept: PostgreSQL) with a Ledgerly memory and little else
    const ctx = recalled(store, folder, "which database do we use for orders?") ?? "";
    assert.match(ctx, /orders database/, "a strong match of another project");
    assert.doesNotMatch(ctx, /invoices/, `a weak match of another project is left out: ${ctx}`);
    assert.match(recalled(store, folder, "should dependency versions be pinned in manifests?") ?? "", /pin exact dependency versions/);
    // a prompt that names the project gets its memories as a session inside it would
    assert.match(recalled(store, folder, "which emails do ledgerly customers get") ?? "", /receipt emails/);
  });
});
