import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { newStore, readMemoryFile } from "../helpers/env.ts";
import { post, type Server, startWithToken } from "../helpers/server.ts";

// MCP as `memsync serve` mounts it (/mcp, /mcp/<profile>): behind the server's own guard (its
// bearer token, Host and Origin rules), and writes through both faces at once all land (the API's
// routes and the MCP tools share one writer at a time, ops/gate.ts).

const TOKEN = "mcp-mount-token-0123456789";
let s: Server;
let store: string;

before(async () => {
  store = newStore();
  s = await startWithToken(store, TOKEN);
});
after(async () => {
  await s?.stop();
});

const auth = { authorization: `Bearer ${TOKEN}` };

async function client(p: string, headers: Record<string, string>): Promise<Client> {
  const c = new Client({ name: "memsync-tests", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${s.url}${p}`), { requestInit: { headers } }));
  return c;
}

describe("MCP mounted by memsync serve", () => {
  test("the server's token guards /mcp: none is 401, a wrong one 403, the right one lists the tools", async () => {
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    const send = (headers: Record<string, string>) => fetch(`${s.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: init });
    assert.equal((await send({})).status, 401);
    assert.equal((await send({ authorization: "Bearer wrong-token-wrong-token" })).status, 403);
    assert.equal((await send({ ...auth, origin: "https://evil.example" })).status, 403);
    const c = await client("/mcp", auth);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("touch") && names.includes("recall"), names.join(","));
    } finally {
      await c.close();
    }
    const m = await client("/mcp/memory", auth);
    try {
      assert.equal((await m.listTools()).tools.length, 9);
    } finally {
      await m.close();
    }
  });

  test("touches through MCP and through the API at once, on one memory: every one counted", async () => {
    const saved = await post(`${s.url}/v1/save`, { memory: { content: "Both faces touch this memory" } }, auth);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const id = saved.body.memory.id as string;
    const c = await client("/mcp", auth);
    try {
      const viaMcp = Array.from({ length: 10 }, () => c.callTool({ name: "touch", arguments: { ids: [id] } }));
      const viaApi = Array.from({ length: 10 }, () => post(`${s.url}/v1/touch`, { ids: [id] }, auth));
      const results = await Promise.all([...viaMcp, ...viaApi]);
      for (const r of results.slice(0, 10) as any[]) assert.notEqual(r.isError, true, JSON.stringify(r));
      for (const r of results.slice(10) as { status: number }[]) assert.equal(r.status, 200);
    } finally {
      await c.close();
    }
    assert.equal(readMemoryFile(store, id).use_count, 20);
  });
});
