import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { EDGE_BIN, newStore, readMemoryFile, REPO } from "../helpers/env.ts";
import { get, post, type Server, startServer, withServer } from "../helpers/server.ts";

// The same app in the edge binary (no maintenance routes) and from source under Deno (Deno.serve
// instead of Bun.serve): the same requests, the same answers.

const DENO = [path.join(REPO, "node_modules/.bin/deno"), "run", "-A", path.join(REPO, "src/main.ts")];

/** Requests every runtime must answer alike. */
async function sameAnswers(s: Server, store: string): Promise<void> {
  const saved = await post(`${s.url}/v1/save`, { memory: { content: "Use Deno and Bun with one app", type: "decision", tags: ["runtime"] } });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const id: string = saved.body.memory.id;
  assert.equal((await post(`${s.url}/v1/touch`, { ids: [id.slice(-8)] })).status, 200);
  assert.equal(readMemoryFile(store, id).use_count, 1);
  // health counts the journal's entries from its bytes (node:buffer, in both runtimes)
  const health = await get(`${s.url}/v1/health`);
  assert.equal(health.status, 200, JSON.stringify(health.body));
  assert.equal(health.body.uncommitted_changes, 2);
  const found = await get(`${s.url}/v1/search?query=app&tag=runtime&limit=3`);
  assert.deepEqual(found.body.hits.map((h: any) => h.memory.id), [id]);
  const bad = await post(`${s.url}/v1/touch`, { ids: ["../x"] });
  assert.deepEqual([bad.status, bad.body.error.code], [400, "invalid_input"]);
  assert.equal((await fetch(`${s.url}/v1/touch`)).status, 405);
  assert.equal((await post(`${s.url}/v1/save`, { memory: { content: "x" } }, { origin: "http://evil.example" })).status, 403);
  // over the limit without a Content-Length: the app's own limit (Deno has no other)
  const body = new ReadableStream({
    start(c) {
      for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
      c.close();
    },
  });
  const big = await fetch(`${s.url}/v1/save`, { method: "POST", body, duplex: "half" } as RequestInit);
  assert.equal(big.status, 413);
  assert.equal(((await big.json()) as any).error.code, "too_large");
  assert.equal((await get(`${s.url}/v1/health`)).body.health, "healthy");
  const doc = (await get(`${s.url}/v1/openapi.json`)).body;
  assert.ok(doc.paths["/v1/recall"].get);
  // the web page (faces/web) with its embedded htmx (a text import) and its CSP
  const pageRes = await fetch(`${s.url}/ui?q=app`);
  assert.equal(pageRes.status, 200);
  assert.match(pageRes.headers.get("content-security-policy") ?? "", /script-src 'self'/);
  assert.ok((await pageRes.text()).includes(`/ui/m/${id}`));
  const htmx = await fetch(`${s.url}/ui/static/htmx.js`);
  assert.match(await htmx.text(), /htmx/);
  assert.equal((await fetch(`${s.url}/ui/sync`, { method: "POST" })).status, 403, "a change with no same-origin sign is refused");
}

describe("memsync serve in other builds and runtimes", () => {
  test("the edge build: maintenance routes answer 404 naming the edge build; everyday routes work", async () => {
    const store = newStore();
    await withServer(
      store,
      async (s) => {
        await sameAnswers(s, store);
        for (const name of ["gc", "promote"]) {
          const r = await post(`${s.url}/v1/${name}`, { dry_run: true });
          assert.equal(r.status, 404, name);
          assert.equal(r.body.error.code, "not_found");
          assert.match(r.body.error.message, /edge build \(memsync-edge\)/);
        }
        const doc = (await get(`${s.url}/v1/openapi.json`)).body;
        assert.equal(doc.paths["/v1/gc"], undefined);
        assert.equal(doc.paths["/v1/promote"], undefined);
        assert.ok(Object.values(doc.paths).every((p: any) => !p.post?.["x-memsync"]?.maintenance));
      },
      { bin: EDGE_BIN },
    );
  });

  test("under Deno, from source: the same app answers the same requests, and SIGTERM exits 0", async () => {
    const store = newStore();
    const s = await startServer(store, { command: DENO });
    try {
      await sameAnswers(s, store);
      assert.equal((await post(`${s.url}/v1/gc`, { dry_run: true })).status, 200, "the source is the main build");
    } finally {
      assert.equal(await s.stop("SIGTERM"), 0, s.stderr());
    }
  });
});
