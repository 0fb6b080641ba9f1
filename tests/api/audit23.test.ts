import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { call, connect, serverEnv } from "../mcp/client.ts";
import { initStore, memsync, memsyncJson, snapshot } from "../helpers/env.ts";
import { post, withServer } from "../helpers/server.ts";

// What a new user's audit of the faces found (audit23): each test drives the compiled binary
// (serve over HTTP, mcp over stdio through the SDK's client, the CLI) and failed on a4c8d63's.

const skipVolatile = (rel: string) => rel.endsWith("-wal") || rel.endsWith("-shm");

/** `{"memory": {"content": ..., "meta": {"extra": [[[...]]]}}}`, the extra nested `depth` arrays deep. */
function nestedBody(depth: number): string {
  return `{"memory":{"content":"a deeply nested note","meta":{"extra":{"x":${"[".repeat(depth)}${"]".repeat(depth)}}}}}`;
}

/** The same as a value: objects nested `depth` deep (what an MCP client sends as arguments). */
function nestedValue(depth: number): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  let at = top;
  for (let i = 0; i < depth; i++) {
    const next: Record<string, unknown> = {};
    at.x = next;
    at = next;
  }
  return top;
}

describe("audit23: input nested too deep is bad input, never an internal error", () => {
  test("the API: a body nested 50,000 deep is 400 (was 500, a stack overflow), nothing written", async () => {
    const store = initStore();
    memsyncJson(["--store", store, "commit"]);
    const before = snapshot(store, skipVolatile);
    await withServer(store, async (s) => {
      for (const depth of [50_000, 100]) {
        const r = await fetch(`${s.url}/v1/save`, { method: "POST", headers: { "content-type": "application/json" }, body: nestedBody(depth) });
        const body = (await r.json()) as any;
        assert.equal(r.status, 400, `depth ${depth}: ${JSON.stringify(body).slice(0, 300)}`);
        assert.equal(body.error.code, "invalid_input");
        assert.match(body.error.message, /nests objects or arrays deeper than 64 levels/);
      }
      // an ordinary nesting still saves
      const ok = await fetch(`${s.url}/v1/save`, { method: "POST", body: nestedBody(5) });
      assert.equal(ok.status, 200, await ok.text());
      assert.doesNotMatch(s.stderr(), /internal/, "no internal error logged");
    });
    const after = snapshot(store, skipVolatile);
    const added = [...after.keys()].filter((k) => !before.has(k) && k.startsWith("memories/"));
    assert.equal(added.length, 1, `only the ordinary save wrote a record: ${added.join(", ")}`);
  });

  test("MCP: arguments nested 20,000 deep are an invalid_input error through the catalogue (was an 800 MB record text), nothing written", async () => {
    const store = initStore();
    memsyncJson(["--store", store, "commit"]);
    const before = snapshot(store, skipVolatile);
    const c = await connect(["--store", store, "mcp"], "legacy", serverEnv());
    try {
      for (const depth of [20_000, 70]) {
        const a = await call(c.client, "save", { memory: { content: "a deeply nested note", meta: { extra: nestedValue(depth) } } });
        assert.equal(a.isError, true, a.text.slice(0, 300));
        const err = JSON.parse(a.text).error;
        assert.equal(err.code, "invalid_input", a.text.slice(0, 300));
        assert.match(err.message, /^save: memory\.meta\.extra\.x\.x.*: objects and arrays nested deeper than 64 levels are not allowed$/);
        assert.ok(err.message.length < 200, "one short line");
      }
      const ok = await call(c.client, "save", { memory: { content: "a shallow note", meta: { extra: nestedValue(5) } } });
      assert.equal(ok.isError, false, ok.text);
    } finally {
      await c.close();
    }
    const added = [...snapshot(store, skipVolatile).keys()].filter((k) => !before.has(k) && k.startsWith("memories/"));
    assert.equal(added.length, 1, "only the shallow save wrote a record");
  });
});

describe("audit23: a secret in a prompt never comes back in recall's 'more matches' line", () => {
  // built at run time: no token-shaped literal in the repository
  const secret = "ghp_" + "Zq7".repeat(12);
  const parts = [secret.toLowerCase(), "ghp", "zq7zq7"];

  function storeWithTwelve(): string {
    const store = initStore();
    const records = Array.from({ length: 12 }, (_, i) => ({ content: `deploy token rotation step ${i + 1} for the ci release`, type: "fact", project: null }));
    memsyncJson(["--store", store, "save", "--input", "-"], { input: JSON.stringify(records) });
    return store;
  }
  const prompt = `what is the deploy token ${secret} for the ci release rotation`;

  test("the UserPromptSubmit hook route's answer (the agent's context) holds no part of it", async () => {
    const store = storeWithTwelve();
    await withServer(store, async (s) => {
      const r = await post(`${s.url}/v1/hooks/UserPromptSubmit`, { session_id: "s1", hook_event_name: "UserPromptSubmit", cwd: "/", prompt });
      assert.equal(r.status, 200);
      const ctx: string = r.body.hookSpecificOutput?.additionalContext ?? "";
      assert.match(ctx, /more matches: memsync search --any deploy token/, ctx);
      for (const p of parts) assert.ok(!ctx.toLowerCase().includes(p), `the context holds "${p}": ${ctx.slice(-200)}`);
    });
  });

  test("the CLI's recall and the hook command: the same", () => {
    const store = storeWithTwelve();
    const r = memsync(["--store", store, "recall", prompt]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /more matches: memsync search --any deploy token/);
    for (const p of parts) assert.ok(!r.stdout.toLowerCase().includes(p), `recall printed "${p}": ${r.stdout.slice(-200)}`);
    const h = memsync(["--store", store, "hook", "UserPromptSubmit"], { input: JSON.stringify({ session_id: "s1", hook_event_name: "UserPromptSubmit", cwd: "/", prompt }) });
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, /more matches/);
    for (const p of parts) assert.ok(!h.stdout.toLowerCase().includes(p), `the hook printed "${p}"`);
    // a prompt without a secret keeps its words in the line
    const plain = memsync(["--store", store, "recall", "what is the deploy token for the ci release rotation"]);
    assert.match(plain.stdout, /more matches: memsync search --any deploy token ci release rotation/);
  });

  test("recall's JSON answer (CLI --json, POST /v1/recall) echoes the query and its words without it", async () => {
    const store = storeWithTwelve();
    const check = (body: any, where: string) => {
      assert.ok(body.total > 0, `${where}: it still recalls`);
      assert.match(body.query, /\[REDACTED:[a-z-]+\]/, `${where}: ${body.query}`);
      assert.ok(body.words.includes("deploy") && body.words.includes("rotation"), `${where}: the other words stay: ${body.words}`);
      const echoed = JSON.stringify({ query: body.query, words: body.words, text: body.text }).toLowerCase();
      for (const p of parts) assert.ok(!echoed.includes(p), `${where} echoed "${p}": ${echoed.slice(0, 300)}`);
    };
    check(memsyncJson(["--store", store, "recall", prompt, "--json"]), "CLI");
    await withServer(store, async (s) => {
      const r = await post(`${s.url}/v1/recall`, { query: prompt });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      check(r.body, "HTTP");
    });
    // a query without a secret is echoed as given
    const plain = memsyncJson(["--store", store, "recall", "deploy token rotation", "--json"]);
    assert.equal(plain.query, "deploy token rotation");
  });
});
