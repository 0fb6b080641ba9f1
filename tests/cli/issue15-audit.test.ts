import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { gitProject, memsync, memsyncJson, newStore, saveMany, tempDir } from "../helpers/env.ts";

// Issue 15's requirements other than its numeric targets, each through the compiled binary on
// examples written for this audit (not the corpus's, not the issue's own words): capture's miss
// and false-store classes, its types and entities, the assistant's decisions, recall's floor,
// aliases, superseded and near-duplicate memories, and the MEMORY.md / SessionStart tier.
// The checklist in docs/benchmarks.md ("Issue 15 checklist (branch audit15)") points here.

interface Captured {
  type: string;
  content: string;
  entities: string[];
  decision: { what: string } | null;
}

/** What `capture --dry-run` would store for a text (nothing is written, no store is made). */
function captures(text: string): Captured[] {
  const store = path.join(tempDir(), "none");
  const out = memsyncJson(["--store", store, "capture", "--dry-run", text]);
  assert.equal(fs.existsSync(store), false, "a dry run makes no store");
  return out.captures;
}

function storedAs(text: string, type: string, what?: RegExp): Captured {
  const got = captures(text);
  assert.equal(got.length, 1, `${text}: ${JSON.stringify(got.map((c) => c.type))}`);
  assert.equal(got[0]!.type, type, text);
  if (what) assert.match(got[0]!.decision?.what ?? got[0]!.content, what, text);
  return got[0]!;
}

const project = () => gitProject("https://github.com/acme/atlas.git", "atlas");

function hook(store: string, event: string, payload: Record<string, unknown>, env: Record<string, string> = {}) {
  const r = memsync(["--store", store, "hook", event], { input: JSON.stringify({ session_id: "audit-1", hook_event_name: event, ...payload }), env });
  assert.equal(r.code, 0, r.stderr);
  const reply = JSON.parse(r.stdout);
  return { reply, ctx: reply.hookSpecificOutput?.additionalContext as string | undefined };
}

const list = (store: string) => memsyncJson(["--store", store, "list"]).memories as { id: string; content: string; type: string; entities: string[] }[];

describe("issue 15 audit: capture's miss classes are stored, with the right type", () => {
  test("a change, a policy from now on, a team agreement, a convention, a preference, 'rather than', negatives, 'remember that'", () => {
    storedAs("We're switching the mobile build from Fastlane to Xcode Cloud.", "decision", /Xcode Cloud/);
    storedAs("Let's migrate Webpack to Vite for the admin app.", "decision", /Vite/);
    storedAs("We'll move the cron jobs to Temporal.", "decision", /Temporal/);
    storedAs("Going forward, feature flags live in Unleash, not in env vars.", "decision", /Unleash/);
    storedAs("From now on PRs need two approvals.", "decision", /two approvals/);
    storedAs("The team agreed on trunk-based development with short-lived branches.", "decision", /trunk-based/);
    storedAs("Our convention is kebab-case for every file under src/components.", "decision", /kebab-case/);
    storedAs("My preference is tabs over spaces in Go files.", "preference", /tabs/);
    storedAs("Rather than Redux we use Zustand for client state.", "decision", /Zustand/);
    // "we won't use X" is a decision, not a preference
    storedAs("We won't use Lerna in this monorepo.", "decision", /Lerna/);
    storedAs("No more moment.js: we use date-fns everywhere.", "decision", /date-fns/);
    storedAs("No force pushes to main.", "decision", /force pushes to main/);
    storedAs("No deploys to production on Fridays.", "decision", /Fridays/);
    for (const t of ["No need to push to main yet.", "No way to deploy to prod today."]) assert.deepEqual(captures(t), [], t);
    assert.equal(captures("Never log request bodies in the gateway.").length, 1);
    storedAs("Remember that staging deploys need the VPN on.", "decision", /VPN/);
    storedAs("Quick note: we ended up using Playwright for e2e.", "decision", /^Playwright for e2e$/);
    assert.match(captures("We'll never store card numbers, Stripe holds them.")[0]?.decision?.what ?? "", /^never store card numbers/);
  });

  test("a decision buried in a longer message: the sentence that holds it", () => {
    const c = storedAs(
      "Thanks for the review. A couple of notes: the tests look fine, I skimmed the docs. Anyway, we settled on Terraform for all infra going forward. Let me know about lunch.",
      "decision",
      /Terraform for all infra/,
    );
    assert.doesNotMatch(c.decision!.what, /notes|lunch|review/);
  });

  test("trouble and its fix in one sentence, with numbers and config names, is a fix", () => {
    storedAs("The nightly export was slow because it loaded every row into memory; streaming with a cursor of 500 rows fixed it.", "solution", /cursor of 500 rows/);
    storedAs("Builds failed on CI because NODE_OPTIONS capped the heap at 512 MB; raising it to 4096 fixed it.", "solution", /4096/);
    storedAs("Fixed the flaky login test by waiting for the redirect before asserting.", "solution", /waiting for the redirect/);
    // "we never closed the streams" is the cause, said of the past: no rule
    storedAs("Memory kept climbing since we never closed the S3 streams; closing them in finally sorted it out.", "solution", /closing them in finally/);
  });

  test("statements that open with a question's word are not questions", () => {
    storedAs("How we version the API is with a date header.", "decision", /date header/);
    storedAs("How we deploy is through Argo CD.", "decision", /Argo CD/);
    storedAs("What we do is squash-merge every PR into main.", "decision", /squash-merge/);
    storedAs("Which is why we pin every GitHub Action to a commit SHA.", "decision", /^we pin every GitHub Action to a commit SHA$/);
    storedAs("Which database we use for analytics is ClickHouse.", "decision", /ClickHouse/);
    // a wish said as a cleft is a preference, though its words name errors
    storedAs("What I want is every endpoint to return problem+json errors.", "preference", /problem\+json/);
    // and the questions stay questions
    for (const q of ["How we handle it is unclear.", "how do we version the API", "What did we pick for the queue last month", "Which is why we can't ship today.", "That is why we had an outage.", "Which queue we use is still open.", "Which database we use for analytics is slow."]) assert.deepEqual(captures(q), [], q);
  });

  test("a decision whose reason names a flaw of the other option is a decision, not a problem", () => {
    storedAs("We picked Postgres over MongoDB because Mongo's transactions were flaky under load.", "decision", /Postgres/);
    storedAs("We're going with SQS because RabbitMQ kept losing messages during failovers.", "decision", /SQS/);
    // a practice and the trouble it keeps away: the practice, a decision
    storedAs("We pin every GitHub Action to a commit SHA so a retagged action can't change our builds.", "decision", /^We pin every GitHub Action to a commit SHA$/);
    storedAs("We run migrations in a separate job so a failed migration doesn't take the app down.", "decision", /separate job$/);
    // trouble that came anyway, or came of what was done, is still a problem
    storedAs("We restart the worker every night so it doesn't leak memory, but it still crashes at noon.", "problem");
    storedAs("We deployed on Friday so the checkout kept crashing all weekend.", "problem");
  });
});

describe("issue 15 audit: capture's false stores stay out", () => {
  test("requests about the past, credentials for a task, quoted docs with a question, pasted output, others' rules not adopted", () => {
    const none = [
      "Remind me what we chose for payments?",
      "what did we pick for the queue last month",
      "Use this token for the integration test: ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "Here's the API key for staging, use it for the smoke test: sk_live_51Habcdefghijklmnopqrstuv",
      "> Connections are pooled per worker and released on idle. The pool size defaults to 10.\nDoes that mean we need to raise it?",
      'The docs say: "Always set max_connections below 100." Is that true for RDS?',
      "ERROR 2026-11-27T10:00:01Z worker-3 connection refused to redis:6379 after 3 retries",
      "FAIL src/cart.test.ts\n  ● cart › adds item\n    expected 2 received 3\nTests: 1 failed, 41 passed",
      "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\nnpm ERR! build failed",
      "The Go style guide says never use init functions, but I haven't decided yet.",
      "Kent says never mock the database, but I'm not sure we should follow that.",
      "The article says always use UUIDv7 for keys, though we haven't agreed on anything.",
      "Some people on the team prefer Tailwind, but nothing is decided.",
      "Let's move on to the next ticket.",
    ];
    for (const text of none) assert.deepEqual(captures(text), [], text);
  });
});

describe("issue 15 audit: entities", () => {
  test("aliases in their context, a known name after a verb, low-value words never entities", () => {
    assert.deepEqual(storedAs("We use gql for the public API and REST for internal services.", "decision").entities.includes("graphql"), true);
    assert.ok(storedAs("We use ES for full-text search on the product catalogue.", "decision").entities.includes("elasticsearch"));
    const esm = storedAs("We moved the frontend to ES modules and target ES2022.", "decision").entities;
    assert.ok(!esm.includes("elasticsearch"), JSON.stringify(esm));
    assert.ok(storedAs("Bump React to 18.3 across all packages.", "decision").entities.includes("react"));
    // a name that is also a word, beside its version (entities16); the word alone is no entity
    assert.deepEqual(storedAs("Pin Next to 14.2 across all apps.", "decision").entities, ["next.js"]);
    assert.ok(storedAs("Let's bump next to 15 in the web app.", "decision").entities.includes("next.js"));
    assert.ok(!storedAs("We decided to ship the next release on Friday.", "decision").entities.includes("next.js"));
    assert.ok(storedAs("We decided to upgrade go to 1.22 for every service.", "decision").entities.includes("go"));
    // "constructor" is a key of every object: it crashed capture (and lost the hook's decision)
    storedAs("We decided the constructor should validate its input.", "decision");
    const modules = storedAs("We moved the frontend to ES module imports for the search page.", "decision").entities;
    assert.ok(modules.includes("esm") && !modules.includes("elasticsearch"), JSON.stringify(modules));
    const low = storedAs("We decided to use Redis INCR with a TTL per user for rate limits; it failed on the M1 runner, amd64 is fine, revisit in Q3, LISTEN/NOTIFY later.", "decision").entities;
    for (const w of ["incr", "ttl", "user", "failed", "m1", "amd64", "q3", "listen", "notify"]) assert.ok(!low.includes(w), `${w} in ${JSON.stringify(low)}`);
    assert.ok(low.includes("redis"));
  });
});

describe("issue 15 audit: the assistant's decisions", () => {
  test("only an explicit decision the user accepts is kept; a suggestion never, even accepted; SubagentStop the same", () => {
    const store = newStore();
    const repo = project();
    hook(store, "Stop", { cwd: repo, last_assistant_message: "You could try Valkey instead of Redis, or maybe Dragonfly. I'd suggest benchmarking both." });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "sounds good" });
    assert.deepEqual(list(store), [], "suggestions accepted are still no decision");
    hook(store, "SubagentStop", { cwd: repo, agent_type: "general-purpose", last_assistant_message: "Migration done. We switched the session store from Redis to Valkey; all tests pass." });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "great, thanks" });
    const kept = list(store);
    assert.equal(kept.length, 1);
    assert.equal(kept[0]!.type, "decision");
    assert.match(kept[0]!.content, /Valkey/);
    // a policy the assistant states ("Going forward, ..."), accepted; its suggestion beside it never
    hook(store, "Stop", { cwd: repo, last_assistant_message: "Going forward, all timestamps are stored in UTC. You might also want a lint rule for naive dates." });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "ok" });
    const after = list(store);
    assert.equal(after.length, 2, JSON.stringify(after.map((m) => m.content)));
    assert.ok(after.some((m) => /timestamps are stored in UTC/.test(m.content) && m.type === "decision"));
    assert.doesNotMatch(JSON.stringify(after), /lint rule/);
    // the subagent then starts with the project's decisions
    const sub = hook(store, "SubagentStart", { cwd: repo, agent_type: "Explore" });
    assert.match(sub.ctx!, /\[Decision\][^\n]*Valkey/);
  });
});

describe("issue 15 audit: what accepts the assistant's decision", () => {
  test("a thanks or an ok then a new task accepts nothing; 'yes, go with that', 'sounds good, do it', 'agreed' accept", () => {
    const store = newStore();
    const repo = project();
    const decided = (what: string) => hook(store, "Stop", { cwd: repo, last_assistant_message: `Done. We decided to use ${what} for the job queue; the worker is wired up.` });
    for (const reply of ["thanks, now fix the login bug", "ok, now fix the login bug", "Great work. Next, the refund flow"]) {
      decided("BullMQ");
      hook(store, "UserPromptSubmit", { cwd: repo, prompt: reply });
      assert.doesNotMatch(JSON.stringify(list(store)), /BullMQ/, reply);
    }
    const kept: string[] = [];
    for (const [what, reply] of [["Sidekiq", "yes, go with that"], ["Celery", "sounds good, do it"], ["Temporal", "agreed"]] as const) {
      decided(what);
      hook(store, "UserPromptSubmit", { cwd: repo, prompt: reply });
      kept.push(what);
      const now = list(store);
      for (const k of kept) assert.ok(now.some((m) => m.type === "decision" && m.content.includes(k)), `${reply}: ${JSON.stringify(now.map((m) => m.content))}`);
    }
  });
});

describe("issue 15 audit: recall's floor, aliases, superseded and near-duplicates through the binary", () => {
  test("common words and prefixes carry no match; aliases and categories do", () => {
    const store = newStore();
    saveMany(store, [
      { content: "The login workflow logs each step to the audit table.", type: "fact", project: null },
      { content: "We run three Kafka brokers; partitions: 12.", type: "fact", project: null },
      { content: "Orders live in PostgreSQL 16 with logical replication.", type: "decision", project: null, entities: ["postgresql"] },
      { content: "Authentication goes through Auth0 with passwordless email.", type: "decision", project: null, entities: ["auth0"] },
      { content: "Multi-factor authentication is mandatory for admin accounts.", type: "decision", project: null },
    ]);
    const recall = (q: string) => (memsyncJson(["--store", store, "recall", q]).items as { text: string }[]).map((i) => ({ content: i.text }));
    for (const q of ["I need to log my work hours today", "my logs of work hours are a mess", "give me three ideas for a birthday party", "I have 12 tabs open", "remind me to log my gym workouts"]) assert.deepEqual(recall(q), [], q);
    assert.match(recall("which db holds the orders?")[0]?.content ?? "", /PostgreSQL/);
    assert.match(recall("how does login work for users")[0]?.content ?? "", /Auth0/);
    assert.match(recall("is 2FA required for admins?")[0]?.content ?? "", /Multi-factor/);
  });

  test("a captured decision that names what it replaces in other words ('rather than', 'no more', 'swapped') supersedes the older", () => {
    const store = newStore();
    const cwd = tempDir();
    const now = Math.floor(Date.now() / 1000);
    const [redux, moment, lint] = saveMany(store, [
      { content: "Client state lives in Redux with redux-thunk.", type: "decision", project: null, created_at: now - 200 * 86_400 },
      { content: "Dates are formatted with Moment.js everywhere.", type: "decision", project: null, created_at: now - 200 * 86_400 },
      { content: "ESLint checks every package on CI.", type: "decision", project: null, created_at: now - 200 * 86_400 },
    ]);
    for (const [text, older] of [
      ["Rather than Redux we now use Zustand for client state.", redux],
      ["No more Moment.js: we use date-fns for dates.", moment],
      ["We swapped ESLint and Prettier for Biome on CI.", lint],
    ] as const) {
      const cap = memsyncJson(["--store", store, "capture", "--global", text], { cwd });
      const created = cap.stored.find((x: { action: string }) => x.action === "created").memory.id;
      const got = memsyncJson(["--store", store, "open", created]).found[0];
      assert.deepEqual(got.outgoing.map((r: { to_memory_id: string; relation_type: string }) => [r.to_memory_id, r.relation_type]), [[older, "supersedes"]], text);
    }
  });

  test("consolidate --link makes `supersedes` from the newer to the older of a cluster; recall shows the newer first, the older marked", () => {
    const store = newStore();
    const now = Math.floor(Date.now() / 1000);
    const [older, newer] = saveMany(store, [
      { content: "The free trial of the Pro plan lasts 30 days and needs a credit card.", type: "fact", project: null, created_at: now - 90 * 86_400, use_count: 9 },
      { content: "The free trial of the Pro plan lasts 14 days and needs a credit card.", type: "fact", project: null, created_at: now - 86_400 },
    ]);
    const linked = memsyncJson(["--store", store, "consolidate", "--link"]);
    assert.equal(linked.applied.length, 1);
    const out = memsyncJson(["--store", store, "open", newer!]).found[0];
    assert.ok(out.outgoing.some((r: { to_memory_id: string; relation_type: string }) => r.to_memory_id === older && r.relation_type === "supersedes"), JSON.stringify(out.outgoing));
    // again: nothing new to relate, no commit
    assert.equal(memsyncJson(["--store", store, "consolidate", "--link"]).applied[0].relations_created.length, 0);
    const got = memsyncJson(["--store", store, "recall", "how long is the pro plan trial"]);
    assert.deepEqual(got.items.map((i: { id: string }) => i.id), [newer, older]);
    assert.equal(got.items[1].superseded_by, newer);
  });
});

describe("issue 15 audit: UserPromptSubmit and the MEMORY.md tier", () => {
  test("a substantive prompt (not about the past) gets what passes the floor within the hook's budget; its own capture never", () => {
    const store = newStore();
    const repo = project();
    saveMany(store, Array.from({ length: 40 }, (_, i) => ({ content: `Invoice export worker ${i}: retries use exponential backoff capped at ${i + 2} minutes ${"and the dead-letter queue keeps the failures ".repeat(4)}`, type: "fact", project: "github.com/acme/atlas" })));
    const got = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "Add a retry limit to the invoice export worker" });
    assert.match(got.ctx!, /Invoice export worker/);
    assert.ok(got.ctx!.length <= 4_000, `${got.ctx!.length}`);
    const own = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided the invoice export worker uses Temporal because retries need durable state" });
    assert.doesNotMatch(own.ctx ?? "", /Temporal/);
    assert.ok(list(store).some((m) => /Temporal/.test(m.content)), "the prompt's own decision is stored");
  });

  test("the hook's injection folds near-duplicates and puts the newer of a replaced pair first, the older marked", () => {
    const store = newStore();
    const repo = project();
    const now = Math.floor(Date.now() / 1000);
    const p = "github.com/acme/atlas";
    const [old, , , fresh] = saveMany(store, [
      { content: "Background jobs run on Sidekiq with a Ruby worker service.", type: "decision", project: p, created_at: now - 300 * 86_400, use_count: 30 },
      { content: "Never share one Redis client between the web and the worker processes", type: "decision", project: p, created_at: now - 86_400, use_count: 5 },
      { content: "never share ONE redis client between the web and the worker processes!", type: "decision", project: p, created_at: now - 2 * 86_400 },
      { content: "Background jobs moved from Sidekiq to BullMQ on Redis.", type: "decision", project: p, created_at: now - 86_400 },
    ]);
    const ctx = hook(store, "UserPromptSubmit", { cwd: repo, prompt: "add a background job for the redis worker cleanup" }).ctx!;
    assert.equal((ctx.match(/share one redis client/gi) ?? []).length, 1, ctx);
    assert.match(ctx, /\+1 similar\]/);
    assert.ok(ctx.indexOf("BullMQ") < ctx.indexOf("Ruby worker"), ctx);
    assert.match(ctx, new RegExp(`${old!.slice(-8)} superseded by ${fresh!.slice(-8)}\\]`));
  });

  test("MEMORY.md: confident preferences and global rules in, unconfident ones out; a reinforced decision rewrites nothing", () => {
    const home = tempDir();
    const store = newStore();
    const repo = project();
    const env = { HOME: home };
    const file = path.join(home, ".claude", "projects", repo.replace(/[^a-zA-Z0-9]/g, "-"), "memory", "MEMORY.md");
    const save = (fields: Record<string, unknown>) => memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify(fields) });
    save({ content: "Prefer small PRs", type: "preference", project: "github.com/acme/atlas", confidence: 0.65, decision: { what: "small PRs under 300 lines", why: null } });
    save({ content: "Maybe avoid ORMs", type: "preference", scope: "global", confidence: 0.5, decision: { what: "avoid ORMs everywhere", why: null } });
    save({ content: "Always write ADRs", type: "preference", scope: "global", confidence: 0.8, decision: { what: "write an ADR for each architecture change", why: null } });
    // a global best practice (a pattern) is one of the user's global rules; a project's pattern is not
    save({ content: "Feature flags around every risky migration worked well", type: "pattern", scope: "global", confidence: 0.9 });
    save({ content: "Pairing on incident reviews", type: "pattern", project: "github.com/acme/atlas", confidence: 0.9 });
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Valkey for sessions because Redis licensing changed" }, env);
    const text = fs.readFileSync(file, "utf8");
    assert.match(text, /\[Decision\] Valkey for sessions/);
    assert.match(text, /\[Global rule\] write an ADR/);
    assert.doesNotMatch(text, /small PRs|avoid ORMs/, "confidence below 0.7 stays out");
    assert.match(text, /\[Global pattern\] Feature flags around every risky migration/);
    assert.doesNotMatch(text, /Pairing on incident reviews/);
    fs.utimesSync(file, new Date(0), new Date(0));
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "We decided to use Valkey for sessions because Redis licensing changed" }, env);
    assert.equal(fs.statSync(file).mtimeMs, 0, "the same section: the file is not rewritten");
    hook(store, "UserPromptSubmit", { cwd: repo, prompt: "I prefer early returns over nested ifs in TypeScript" }, env);
    assert.match(fs.readFileSync(file, "utf8"), /\[Preference\] early returns/);
    const start = hook(store, "SessionStart", { cwd: repo, source: "startup" }, env).ctx!;
    assert.match(start, /\n- \[Decision\] Valkey for sessions[^\n]*\{[^}]*valkey[^}]*\}/);
    // the most confident global first
    assert.match(start, /\n## Global Best Practices\n- \[Global pattern\] Feature flags[^\n]*\n- \[Global rule\] write an ADR/);
    assert.ok(start.length <= 3_000);
  });
});

describe("issue 15 audit: extraction offline and deterministic", () => {
  test("the same text gives the same captures every run; capture's modules reach no network, process or clock", () => {
    const text = "We settled on Terraform for all infra. Builds failed on CI because NODE_OPTIONS capped the heap at 512 MB; raising it to 4096 fixed it. Bump React to 18.3 across all packages.";
    const runs = [captures(text), captures(text), captures(text)].map((c) => JSON.stringify(c));
    assert.deepEqual(JSON.parse(runs[0]!).map((c: Captured) => c.type), ["decision", "solution", "decision"]);
    assert.equal(new Set(runs).size, 1);
    const dir = path.join(path.dirname(new URL(import.meta.url).pathname), "../../src/core/capture");
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
      const src = fs.readFileSync(path.join(dir, f), "utf8");
      assert.doesNotMatch(src, /\bfetch\(|node:(?:net|http|https|dns|child_process|tls)|\bDate\.now\(|Math\.random\(/, f);
    }
  });
});
