import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { memsyncAsync, newStore } from "../helpers/env.ts";
import { get, post, type Server, startServer, startWithToken } from "../helpers/server.ts";

// Who may reach the store through `memsync serve`: the bearer token (checked when the server has
// one, required off loopback), Host and Origin on every request (DNS rebinding), and the body limit
// with a Content-Length and without one (chunked).

const TOKEN = "t0k3n-" + "a1b2c3d4".repeat(4);

/** A raw HTTP/1.1 request, so Host and chunked bodies are exactly as written (fetch sets its own Host). */
function raw(url: string, opts: { method?: string; path: string; headers?: Record<string, string>; chunks?: Buffer[]; body?: Buffer }): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: opts.method ?? "POST", path: opts.path, headers: opts.headers ?? {}, setHost: !opts.headers?.host }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    if (opts.chunks) for (const c of opts.chunks) req.write(c);
    req.end(opts.body);
  });
}

describe("memsync serve: auth", () => {
  let store: string;
  let s: Server;
  before(async () => {
    store = newStore();
    s = await startWithToken(store, TOKEN);
  });
  after(async () => {
    assert.equal(await s.stop(), 0);
    assert.ok(!s.stderr().includes(TOKEN));
  });

  test("with a token: missing is 401, wrong is 403, right answers; the token is never echoed", async () => {
    const none = await fetch(`${s.url}/v1/status`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.equal(((await none.json()) as any).error.code, "unauthorized");
    for (const wrong of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, "Bearer x", `Basic ${TOKEN}`, TOKEN]) {
      const r = await get(`${s.url}/v1/status`, { authorization: wrong });
      assert.ok(r.status === 401 || r.status === 403, `${wrong}: ${r.status}`);
      assert.ok(!JSON.stringify(r.body).includes(TOKEN.slice(6)), "the token is not echoed");
    }
    assert.equal((await get(`${s.url}/v1/status`, { authorization: `Bearer ${TOKEN}` })).status, 200);
    assert.equal((await post(`${s.url}/v1/save`, { memory: { content: "authorised write" } }, { authorization: `bearer ${TOKEN}` })).status, 200);
    // every route, the hook route and health included
    for (const p of ["health", "openapi.json"]) assert.equal((await get(`${s.url}/v1/${p}`)).status, 401, p);
    assert.equal((await post(`${s.url}/v1/hooks/UserPromptSubmit`, { prompt: "x" })).status, 401);
  });

  test("a non-loopback address without a token refuses to start: one line, exit 8; with one it starts", async () => {
    const r = await memsyncAsync(["--store", store, "serve", "--listen", "0.0.0.0:0"]);
    assert.equal(r.code, 8, r.stderr);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assert.match(r.stderr, /^memsync: .*without a token.*--token-file/);
    assert.equal(r.stdout, "");
    const open = await startServer(store, { args: ["--listen", "0.0.0.0:0"], env: { MEMSYNC_API_TOKEN: TOKEN } });
    try {
      const port = new URL(open.url).port;
      assert.equal((await get(`http://127.0.0.1:${port}/v1/status`)).status, 401);
      assert.equal((await get(`http://127.0.0.1:${port}/v1/status`, { authorization: `Bearer ${TOKEN}` })).status, 200);
    } finally {
      assert.equal(await open.stop(), 0);
    }
  });
});

describe("memsync serve: Host, Origin, body limit", () => {
  let s: Server;
  before(async () => {
    s = await startServer(newStore(), { args: ["--listen", "127.0.0.1:0", "--allow-host", "mem.example.com"] });
  });
  after(async () => {
    assert.equal(await s.stop(), 0);
  });

  test("Host must name this server: loopback names, the listen address, or --allow-host (DNS rebinding)", async () => {
    const port = new URL(s.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "localhost", `[::1]:${port}`, "mem.example.com"]) {
      assert.equal((await raw(s.url, { method: "GET", path: "/v1/status", headers: { host } })).status, 200, host);
    }
    for (const host of [`evil.example:${port}`, "attacker.com", "127.0.0.1.nip.io", "mem.example.com.evil.io"]) {
      const r = await raw(s.url, { method: "GET", path: "/v1/status", headers: { host } });
      assert.equal(r.status, 403, host);
      assert.equal(JSON.parse(r.body).error.code, "forbidden");
    }
  });

  test("a browser Origin that is not this server is refused; same origin and no Origin answer", async () => {
    const port = new URL(s.url).port;
    assert.equal((await post(`${s.url}/v1/list`, {}, { origin: `http://127.0.0.1:${port}` })).status, 200);
    for (const origin of ["http://evil.example", `http://localhost:${Number(port) + 1}`, "null", "https://127.0.0.1.evil.io"]) {
      const r = await post(`${s.url}/v1/save`, { memory: { content: "from a web page" } }, { origin });
      assert.equal(r.status, 403, origin);
    }
    assert.equal((await get(`${s.url}/v1/list?query=web`)).body.memories.length, 0, "nothing from a refused origin was written");
  });

  test("bodies over 1 MiB are refused with 413, with a Content-Length and chunked; one just under passes", async () => {
    const headers = { host: "localhost", "content-type": "application/json" };
    const over = Buffer.from(JSON.stringify({ memory: { content: "x".repeat(1024 * 1024) } }));
    const withLength = await raw(s.url, { path: "/v1/save", headers: { ...headers, "content-length": String(over.length) }, body: over });
    assert.equal(withLength.status, 413);
    assert.equal(JSON.parse(withLength.body).error.code, "too_large");
    const pieces = (b: Buffer) => Array.from({ length: Math.ceil(b.length / 60_000) }, (_, i) => b.subarray(i * 60_000, (i + 1) * 60_000));
    const chunked = await raw(s.url, { path: "/v1/save", headers: { ...headers, "transfer-encoding": "chunked" }, chunks: pieces(over) });
    assert.equal(chunked.status, 413, chunked.body);
    assert.equal(JSON.parse(chunked.body).error.code, "too_large");
    // far over: the runtime's own cap cuts it off (Bun: a 413 without a body)
    const huge = Buffer.alloc(3 * 1024 * 1024, 0x20);
    assert.equal((await raw(s.url, { path: "/v1/save", headers: { ...headers, "transfer-encoding": "chunked" }, chunks: pieces(huge) })).status, 413);
    const fits = Buffer.from(JSON.stringify({ memory: { content: "y".repeat(900 * 1024) } }));
    const ok = await raw(s.url, { path: "/v1/save", headers: { ...headers, "transfer-encoding": "chunked" }, chunks: [fits.subarray(0, 1000), fits.subarray(1000)] });
    assert.notEqual(ok.status, 413, ok.body);
    assert.equal((await get(`${s.url}/v1/list`)).body.memories.filter((m: any) => m.content.startsWith("x")).length, 0);
  });
});
