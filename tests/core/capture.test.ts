import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { aliasKeysAgree, findMentions, units, vocabularyEntry } from "../../src/core/capture/entities.ts";
import { extractExplicit } from "../../src/core/capture/explicit.ts";
import { type Capture, extractCaptures, FINGERPRINT_FILLER, fingerprintOf, normalizeStatement, SHORT_FORMS } from "../../src/core/capture/extract.ts";
import { parseHookPayload } from "../../src/core/capture/hook-input.ts";
import { memoryFields, reinforceMemory } from "../../src/core/capture/record.ts";
import { vocabulary } from "../../src/core/capture/vocabulary.ts";

const VOCABULARY = vocabulary();
import { createMemory } from "../../src/core/records.ts";
import { cpuMs } from "../helpers/cpu-time.ts";

// Implicit capture, pure: the corpus in data/capture-corpus.json is the specification of what a
// prompt stores. Runs under Bun and Deno.

type Rel = [string, string, string];

interface Expected {
  type: string;
  what?: string;
  why?: string | null;
  decision?: null;
  alternatives?: string[];
  entities?: string[];
  no_entities?: string[];
  relations?: Rel[];
  no_relations?: Rel[];
  constraints?: string[];
  tradeoffs?: string[];
  scope?: string;
  category?: string;
  min_confidence?: number;
  in_content?: string[];
  not_in_content?: string[];
}

interface Case {
  tag: string;
  text: string;
  captures: Expected[];
  reason?: string;
  skipped?: string[];
}

const corpus = JSON.parse(fs.readFileSync(new URL("./data/capture-corpus.json", import.meta.url), "utf8")) as { cases: Case[] };

const hasRel = (c: Capture, [from, type, to]: Rel) => c.entity_relations.some((r) => r.from === from && r.type === type && r.to === to);

function check(c: Capture, e: Expected, where: string): void {
  assert.equal(c.type, e.type, `${where}: type`);
  if (e.decision === null) assert.equal(c.decision, null, `${where}: no decision fields`);
  if (e.what !== undefined) assert.equal(c.decision?.what, e.what, `${where}: what`);
  if (e.why !== undefined) assert.equal(c.decision?.why ?? null, e.why, `${where}: why`);
  if (e.alternatives !== undefined) assert.deepEqual(c.decision?.alternatives ?? [], e.alternatives, `${where}: alternatives`);
  for (const x of e.entities ?? []) assert.ok(c.entities.includes(x), `${where}: entity ${x} in ${JSON.stringify(c.entities)}`);
  if (e.entities?.length === 0 && e.type !== "decision") assert.deepEqual(c.entities, [], `${where}: no entities`);
  for (const x of e.no_entities ?? []) assert.ok(!c.entities.includes(x), `${where}: no entity ${x} in ${JSON.stringify(c.entities)}`);
  for (const r of e.relations ?? []) assert.ok(hasRel(c, r), `${where}: relation ${r.join(" ")} in ${JSON.stringify(c.entity_relations)}`);
  for (const r of e.no_relations ?? []) assert.ok(!hasRel(c, r), `${where}: no relation ${r.join(" ")}`);
  for (const x of e.constraints ?? []) assert.ok(c.decision?.constraints.some((k) => k.includes(x)), `${where}: constraint ${x} in ${JSON.stringify(c.decision?.constraints)}`);
  for (const x of e.tradeoffs ?? []) assert.ok(c.decision?.tradeoffs.some((k) => k.includes(x)), `${where}: tradeoff ${x} in ${JSON.stringify(c.decision?.tradeoffs)}`);
  if (e.scope !== undefined) assert.equal(c.scope, e.scope, `${where}: scope`);
  if (e.category !== undefined) assert.equal(c.category, e.category, `${where}: category`);
  if (e.min_confidence !== undefined) assert.ok(c.confidence >= e.min_confidence, `${where}: confidence ${c.confidence} >= ${e.min_confidence}`);
  for (const x of e.in_content ?? []) assert.ok(c.content.includes(x), `${where}: content has ${x}`);
  const all = JSON.stringify(c);
  for (const x of e.not_in_content ?? []) assert.ok(!all.includes(x), `${where}: ${x} is nowhere in the capture`);
  // every relation connects two of the capture's own entities: never free text
  for (const r of c.entity_relations) assert.ok(c.entities.includes(r.from) && c.entities.includes(r.to), `${where}: relation ${JSON.stringify(r)} between entities`);
  assert.ok(c.confidence >= 0 && c.confidence <= 1);
  assert.match(c.fingerprint, new RegExp(`^${c.type}:`));
}

describe("capture corpus", () => {
  test("covers every signal and guard, with many cases", () => {
    assert.ok(corpus.cases.length >= 60, `${corpus.cases.length} cases`);
    const tags = new Set(corpus.cases.map((c) => c.tag));
    for (const t of ["decision", "preference", "problem", "solution", "rationale", "alternatives", "constraints", "tradeoff", "entities", "aliases", "relations", "negation", "question", "hypothetical", "request", "code", "log", "tool-warning", "private", "secret", "scope", "dedupe", "several"]) {
      assert.ok(tags.has(t), `a case tagged ${t}`);
    }
  });

  for (const [i, c] of corpus.cases.entries()) {
    test(`#${i} ${c.tag}: ${JSON.stringify(c.text.slice(0, 70))}`, () => {
      const x = extractCaptures(c.text);
      const got = x.captures.map((k) => `${k.type}: ${k.decision?.what ?? k.content}`);
      assert.equal(x.captures.length, c.captures.length, `captures: ${JSON.stringify(got)}; reason ${x.reason}; skipped ${JSON.stringify(x.skipped)}`);
      c.captures.forEach((e, j) => check(x.captures[j]!, e, `capture ${j}`));
      if (c.reason !== undefined) assert.ok(x.reason?.includes(c.reason), `reason ${JSON.stringify(x.reason)} mentions ${c.reason}`);
      for (const r of c.skipped ?? []) assert.ok(x.skipped.some((s) => s.reason.includes(r)), `a sentence skipped as ${r}: ${JSON.stringify(x.skipped)}`);
    });
  }
});

describe("the other examples must come out right", () => {
  test("the same decision worded twice has one fingerprint (aliases, short forms, fillers)", () => {
    const a = extractCaptures("Let's use PostgreSQL for the analytics DB because we need JSONB").captures[0]!;
    const b = extractCaptures("We decided to use postgres for our analytics database").captures[0]!;
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal(a.fingerprint, "decision:postgresql for analytics database");
    assert.notEqual(a.fingerprint, extractCaptures("Let's use MySQL for the analytics DB").captures[0]!.fingerprint);
    assert.equal(normalizeStatement("K8s on GKE"), "kubernetes on gke");
  });

  test("normalizeStatement reads aliases as re-reading each window of words would (random texts of aliases, punctuation, possessives)", () => {
    // the plain definition: every window of up to 4 units looked up as text, longest first
    const reference = (text: string) => {
      const us = units(text.toLowerCase());
      const out: string[] = [];
      for (let i = 0; i < us.length; i++) {
        let matched = false;
        for (let n = Math.min(4, us.length - i); n >= 1 && !matched; n--) {
          const entry = vocabularyEntry(us.slice(i, i + n).map((u) => u.lower).join(" "));
          if (entry) {
            out.push(entry.name);
            i += n - 1;
            matched = true;
          }
        }
        if (!matched && !FINGERPRINT_FILLER.has(us[i]!.lower)) {
          const w = us[i]!.lower.replace(/['’]/g, "");
          out.push(SHORT_FORMS[w] ?? w);
        }
      }
      return out.join(" ").trim();
    };
    const aliases = VOCABULARY.flatMap((e) => e.aliases.map((a) => a.text));
    const words = [...aliases.filter((a) => /[\s/-]/.test(a)), ...aliases.slice(0, 400), "the", "our", "db", "it's", "node.js", ".NET", "c++", "ci/cd", "x.-y", "a-.b", "foo's", "k8s"];
    const seps = [" ", " ", " ", "-", "/", ", ", "'s ", ". ", "-.", "'"];
    let seed = 12345;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let t = 0; t < 300; t++) {
      let text = "";
      for (let k = 0, len = 1 + rand(12); k < len; k++) text += words[rand(words.length)]! + seps[rand(seps.length)]!;
      assert.equal(normalizeStatement(text), reference(text), text);
    }
  });

  test("a long statement keeps a bounded fingerprint that still tells texts apart", () => {
    const long = (end: string) => `${"we keep every record in one place ".repeat(20)}${end}`;
    const a = fingerprintOf("fact", long("alpha"));
    const b = fingerprintOf("fact", long("beta"));
    assert.ok(a.length < 220 && b.length < 220);
    assert.notEqual(a, b);
  });

  test("vocabulary: a few hundred entries, aliases unique, names canonical", () => {
    assert.ok(VOCABULARY.length >= 300, `${VOCABULARY.length} entries`);
    const seen = new Map<string, string>();
    for (const e of VOCABULARY) {
      assert.match(e.name, /^[a-z0-9.#+/-]+$/, e.name);
      for (const a of e.aliases) {
        assert.ok(!seen.has(a.text) || seen.get(a.text) === e.name, `alias ${a.text} of ${e.name} and ${seen.get(a.text)}`);
        seen.set(a.text, e.name);
      }
    }
  });

  test("the alias index splits every alias as the text is split", () => {
    assert.deepEqual(aliasKeysAgree(), []);
  });

  test("entities match whole words only, with aliases and capitalization rules", () => {
    const names = (t: string) => findMentions(t).map((m) => m.name);
    assert.deepEqual(names("we run postgres and k8s"), ["postgresql", "kubernetes"]);
    assert.deepEqual(names("the category of goroutines and a reactor"), [], "no entity inside a word");
    assert.deepEqual(names("let's go with it, and make sure to react to errors"), []);
    assert.deepEqual(names("Written in Go, tested with Jest"), ["go", "jest"]);
    assert.deepEqual(names("a Node.js service behind NGINX on AWS"), ["node.js", "nginx", "aws"]);
    assert.deepEqual(names("a tree node and the rest of the spa day"), [], "lowercase node, rest, spa are words");
    assert.deepEqual(names("a REST API"), ["rest"]);
    assert.deepEqual(names("see https://github.com/org/redis-tools for docs"), [], "no entities inside a URL");
    assert.deepEqual(names("Redis-backed queues with cursor-based pagination"), ["redis", "cursor-pagination"]);
  });
});

describe("the cue reading (cues.ts)", () => {
  const kept = (t: string) => extractCaptures(t).captures.map((c) => `${c.type}: ${c.decision?.what ?? c.content}`);
  test("a tool the vocabulary does not know, named after a verb of the stack, is the thing used", () => {
    assert.deepEqual(kept("The worker fleet runs on spot instances with a Spotinst autoscaler."), ["decision: The worker fleet runs on spot instances with a Spotinst autoscaler"]);
    // a name before the verb is its subject (a person), a day is no tool: nothing is kept
    assert.deepEqual(kept("Maria uses the old laptop for the demo."), []);
    assert.deepEqual(kept("The review is now on Friday."), []);
  });
  test("a heading of how the team does a thing, with its answer, is the practice; an open one is not", () => {
    assert.deepEqual(kept("How we version the SDK: semver, and breaking changes only in major releases."), ["decision: How we version the SDK: semver, and breaking changes only in major releases"]);
    assert.deepEqual(kept("What we still need to figure out: the cache layer"), []);
    assert.deepEqual(kept("What we should do next: the cache layer"), []);
  });
  test("a person's 'ok' is no test runner's line; 'said yes to' is a choice", () => {
    assert.equal(kept("ok team, we're ditching Heroku and going to Render next month").length, 1);
    assert.equal(kept("we all said yes to Storybook for the design system, so that's happening").length, 1);
    assert.deepEqual(kept("ok 1 - parses the config\nok 2 - rejects a bad port"), []);
  });
  test("a numbered list and a 'note:' are a person's, unless a tool's lines are beside them", () => {
    assert.equal(kept("1) PR #212 merged\n2) switched the image CDN to imgix\n3) still waiting on legal").length, 1);
    assert.equal(kept("note: the mobile team uses Kotlin Multiplatform for the shared logic").length, 1);
    assert.deepEqual(kept("  1) checkout applies the discount:\n     AssertionError: expected 90 to equal 85\n      at Context.<anonymous> (test/cart.spec.js:14:22)"), []);
    assert.deepEqual(kept("error[E0277]: the trait bound is not satisfied\nnote: required by a bound in `spawn`"), []);
  });
  test("quoted text is another text's words: a markdown quote, 'Quoting the ADR: ...', 'the style guide says: ...'", () => {
    assert.deepEqual(kept("> Always set a timeout on outbound HTTP calls.\nIs that in our client wrapper already?"), []);
    assert.deepEqual(kept("Quoting the ADR: We will use Kafka for all domain events. Is the billing service following it?"), []);
    assert.deepEqual(kept("The style guide says: prefer composition over inheritance. Do we follow that?"), []);
    // the user's own decision beside a quote is kept
    assert.equal(kept("> Always set a timeout on outbound HTTP calls.\nWe decided to use a 5 second timeout for every outbound call.").length, 1);
  });
  test("a build tool's summary line goes with its output", () => {
    assert.deepEqual(kept("webpack 5.90.1 compiled with 3 errors in 8123 ms\nERROR in ./src/app.tsx 12:4\nModule not found: Error: Can't resolve './Header'"), []);
  });
  test("trouble with a thing of the trade as subject is a problem; a person's state is not", () => {
    assert.deepEqual(kept("The checkout page freezes for a few seconds when the cart has more than 50 items."), ["problem: The checkout page freezes for a few seconds when the cart has more than 50 items."]);
    assert.deepEqual(kept("I keep running out of ideas for the onboarding page design"), []);
    assert.deepEqual(kept("Nobody should be running migrations from their laptop."), ["decision: Nobody should be running migrations from their laptop"]);
  });
  test("policies from a date, a plan against, a practice named by its use, a check before reporting", () => {
    assert.deepEqual(kept("starting today, hotfixes go through the same review as everything else"), ["decision: hotfixes go through the same review as everything else"]);
    assert.deepEqual(kept("The way we do it here: feature folders, not layer folders."), ["decision: feature folders, not layer folders"]);
    assert.equal(kept("we're not doing server components yet, the team isn't ready").length, 1);
    assert.deepEqual(kept("we're not doing anything on Friday"), []);
    assert.equal(kept("Redis INCR with a TTL per user is how we count API calls.").length, 1);
    assert.equal(kept("I'd like you to run the linter before telling me something is done.").length, 1);
    assert.deepEqual(kept("I'd like you to run the linter on this file"), []);
    // a status line: moving on is no move
    assert.deepEqual(kept("migrations ran fine on staging, moving on to the API changes"), []);
  });
  test("a negated choice: against it when said as one, undecided otherwise", () => {
    assert.deepEqual(kept("Not going with Firebase — vendor lock-in."), ["decision: Not going with Firebase"]);
    assert.deepEqual(kept("We haven't decided, not going with anything yet"), []);
  });
});

describe("explicit capture (remember)", () => {
  test("keeps the whole text and reads its fields; a plain statement is a fact", () => {
    const d = extractExplicit("Use JWT tokens for auth, not session cookies").capture;
    assert.equal(d.type, "decision");
    assert.equal(d.decision?.what, "JWT tokens for auth");
    assert.equal(d.content, "Use JWT tokens for auth, not session cookies");
    assert.ok(d.confidence >= 0.8);
    const f = extractExplicit("Hetzner support set up the staging cluster in Falkenstein").capture;
    assert.equal(f.type, "fact");
    assert.equal(f.decision, null);
    assert.ok(f.entities.includes("hetzner"));
    assert.equal(f.confidence, 0.8);
    // what implicit capture refuses, remember keeps: the person asked for it
    assert.equal(extractExplicit("Should we use MongoDB here?").capture.content, "Should we use MongoDB here?");
  });

  test("--success makes a pattern, --failed an anti-pattern; --type wins; --global drops the project", () => {
    const c = extractExplicit("Offset pagination caused timeouts at 1M rows").capture;
    const ctx = { project: "github.com/org/repo", source: "remember" };
    assert.equal(memoryFields(c, ctx, { outcome: "failed" }).type, "anti-pattern");
    assert.equal(memoryFields(c, ctx, { outcome: "success" }).type, "pattern");
    const typed = memoryFields(c, ctx, { outcome: "failed", type: "solution" });
    assert.equal(typed.type, "solution");
    assert.equal(typed.outcome, "failed");
    assert.match(String(typed.fingerprint), /^solution:/);
    const global = memoryFields(c, { ...ctx, global: true });
    assert.equal(global.scope, "global");
    assert.equal(global.project, null);
    assert.equal(memoryFields(c, ctx).project, "github.com/org/repo");
  });
});

describe("reinforcement", () => {
  test("the same statement again: one more use, labels unioned, reason filled in", () => {
    const now = 1_790_000_000;
    const origin = { now, machine: "m", user: "u" };
    const ctx = { project: null, source: "capture", tags: ["db"] };
    const first = extractCaptures("I chose Redis over Memcached for caching").captures[0]!;
    const m = createMemory(memoryFields(first, ctx), "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d", origin);
    const again = extractCaptures("We chose Redis over Hazelcast for caching because it is simple").captures[0]!;
    assert.equal(again.fingerprint, first.fingerprint);
    const r = reinforceMemory(m, memoryFields(again, { ...ctx, tags: ["cache"] }), now + 60, "laptop.0a1b2c3d");
    assert.equal(r.use_count, 1);
    assert.equal(r.last_used, now + 60);
    assert.deepEqual(r.meta.tags, ["db", "cache"]);
    assert.deepEqual(r.decision?.alternatives, ["Memcached", "Hazelcast"]);
    assert.equal(r.decision?.why, "it is simple");
    for (const e of ["redis", "memcached", "hazelcast"]) assert.ok(r.entities.includes(e));
    assert.equal(r.entity_relations?.length, 2);
    assert.equal(r.id, m.id);
    assert.equal(r.content, m.content, "the first wording stays");
  });
});

describe("hook payloads", () => {
  test("a UserPromptSubmit payload is told apart from free text", () => {
    const p = parseHookPayload(JSON.stringify({ session_id: "s1", transcript_path: "/t", cwd: "/repo", hook_event_name: "UserPromptSubmit", prompt: "Let's use Redis" }));
    assert.deepEqual(p, { event: "UserPromptSubmit", prompt: "Let's use Redis", sessionId: "s1", cwd: "/repo", source: null, lastAssistantMessage: null, agentType: null });
    const stop = parseHookPayload(JSON.stringify({ session_id: "s1", hook_event_name: "SubagentStop", agent_type: "Explore", last_assistant_message: "Done." }));
    assert.equal(stop?.lastAssistantMessage, "Done.");
    assert.equal(stop?.agentType, "Explore");
    assert.equal(parseHookPayload(JSON.stringify({ session_id: "s1", hook_event_name: "SessionStart", source: "compact" }))?.source, "compact");
    assert.equal(parseHookPayload("Let's use Redis"), null);
    assert.equal(parseHookPayload('{"content": "a JSON memory, not a hook"}'), null);
    assert.equal(parseHookPayload("{not json"), null);
    assert.equal(parseHookPayload(JSON.stringify({ hook_event_name: "Stop", session_id: "s" }))?.prompt, null);
  });
});

describe("linear time on adversarial input (50,000 characters)", () => {
  const N = 50_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);
  const inputs: Record<string, string> = {
    letters: fill("a"),
    dots: `${fill(".")}x`.slice(0, N),
    dashes: `a${fill("-")}`.slice(0, N),
    commas: `Fix it${fill(", and we")}`.slice(0, N),
    words: fill("let's use redis because it is fast, but not over memcached and ").slice(0, N),
    triggers: fill("we decided to use ").slice(0, N),
    "request clauses": `Refactor ${fill("a, ")}`.slice(0, N),
    musts: fill("it must be, ").slice(0, N),
    "open tags": fill("<tool-block>"),
    "closing tags": fill("</a-b><a-b>"),
    "open private": fill("<private>x "),
    pem: fill("-----BEGIN RSA PRIVATE KEY----- "),
    assignments: fill("password=password=x "),
    "url-like": fill("a://b:c"),
    "long token": fill("sk-abc"),
    jwt: fill("eyJ.eyJ."),
    fences: fill("```\n"),
    "log lines": fill("2024-01-01T00:00:00Z ERROR x\n"),
    "capital words": fill("Hazelcast Memcached "),
    "long line, no prose": fill("a.b:1:2 "),
  };
  for (const [name, text] of Object.entries(inputs)) {
    test(name, () => {
      assert.ok(text.length <= N);
      const ms = cpuMs(() => {
        extractCaptures(text);
        extractExplicit(text);
      });
      // linear work here is tens of milliseconds of CPU; a quadratic pattern takes many seconds
      assert.ok(ms < 3_000, `${name}: ${ms.toFixed(0)} ms`);
    });
  }
});

describe("entity relations merge as a set", () => {
  test("both sides' additions kept, a removal honoured, none to a dropped entity", async () => {
    const { mergeMemory } = await import("../../src/core/merge/record-merge.ts");
    const rel = (from: string, type: string, to: string) => ({ from, type, to });
    const base = { id: "x", content: "c", entities: ["redis", "memcached", "hazelcast"], entity_relations: [rel("redis", "CHOSE_OVER", "memcached"), rel("redis", "CHOSE_OVER", "hazelcast")] };
    const ours = { ...base, entities: [...base.entities, "valkey"], entity_relations: [rel("redis", "CHOSE_OVER", "memcached"), rel("redis", "CHOSE_OVER", "hazelcast"), rel("redis", "CHOSE_OVER", "valkey")] };
    const theirs = { ...base, entities: ["redis", "memcached", "sentinel"], entity_relations: [rel("redis", "CHOSE_OVER", "memcached"), rel("redis", "USES", "sentinel")] };
    const a = mergeMemory(base, ours, theirs);
    const b = mergeMemory(base, theirs, ours);
    assert.deepEqual(a.value, b.value, "symmetric");
    const got = (a.value.entity_relations as { from: string; type: string; to: string }[]).map((r) => `${r.from} ${r.type} ${r.to}`).sort();
    assert.deepEqual(got, ["redis CHOSE_OVER memcached", "redis CHOSE_OVER valkey", "redis USES sentinel"]);
    assert.deepEqual(a.conflicts.filter((c) => c.field.startsWith("entity_relations")), []);
  });
});

test("a credential handed over is not a decision; a decision about credentials, or one whose reason holds a secret, is", () => {
  const what = (t: string) => extractCaptures(t).captures.map((c) => c.decision?.what ?? null);
  assert.deepEqual(what("We chose Vault for API keys."), ["Vault for API keys"]);
  assert.equal(extractCaptures("Remember that we rotate API keys every 90 days.").captures.length, 1);
  assert.deepEqual(what("I chose Redis over Memcached for sessions since the config has password=hunter2"), ["Redis for sessions"]);
  assert.equal(extractCaptures("Use this token for the test: ghp_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ12").captures.length, 0);
  assert.equal(extractCaptures("Use password hunter2 for the local admin user.").captures.length, 0);
});
