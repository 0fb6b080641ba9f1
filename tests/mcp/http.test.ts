import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { newStore } from "../helpers/env.ts";
import { type Era, mountInProcess } from "./client.ts";

// The MCP face over Streamable HTTP (the handler `serve` mounts at /mcp/<profile>), served here by
// Bun.serve in this process: both protocol generations through the SDK's client, the profiles as
// separate endpoints, and the loopback checks (Host, Origin) with their statuses.


let server: { port: number; stop(force?: boolean): void };
let base: string;

before(async () => {
  const store = newStore();
  server = await mountInProcess(store);
  base = `http://127.0.0.1:${server.port}`;
});
after(() => server?.stop(true));

async function client(path: string, era: Era): Promise<Client> {
  const c = new Client({ name: "memsync-tests", version: "1.0.0" }, { versionNegotiation: { mode: era } });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`)));
  return c;
}

for (const era of ["legacy", "auto"] as Era[]) {
  describe(`MCP over Streamable HTTP (${era})`, () => {
    test("the memsync profile at /mcp: tools, a save and a search", async () => {
      const c = await client("/mcp", era);
      try {
        if (era === "auto") assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
        const names = (await c.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes("save") && names.includes("search"));
        const saved = (await c.callTool({ name: "save", arguments: { memory: { content: `HTTP ${era}: use cursor pagination` } } })) as any;
        assert.equal(saved.isError, undefined, JSON.stringify(saved));
        const found = (await c.callTool({ name: "search", arguments: { query: era } })) as any;
        assert.equal(found.structuredContent.hits[0].memory.id, saved.structuredContent.memory.id);
        const bad = (await c.callTool({ name: "get", arguments: { ids: ["../x"] } })) as any;
        assert.equal(bad.isError, true);
        assert.equal(JSON.parse(bad.content[0].text).error.code, "invalid_input");
      } finally {
        await c.close();
      }
    });

    test("the memory profile at /mcp/memory is its own endpoint", async () => {
      const c = await client("/mcp/memory", era);
      try {
        const names = (await c.listTools()).tools.map((t) => t.name);
        assert.deepEqual(names.sort(), ["add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations", "delete_relations", "open_nodes", "read_graph", "search_nodes"]);
        await c.callTool({ name: "create_entities", arguments: { entities: [{ name: `E-${era}`, entityType: "t", observations: ["o"] }] } });
        const g = (await c.callTool({ name: "open_nodes", arguments: { names: [`E-${era}`] } })) as any;
        assert.deepEqual(g.structuredContent.entities, [{ name: `E-${era}`, entityType: "t", observations: ["o"] }]);
      } finally {
        await c.close();
      }
    });
  });
}

describe("HTTP checks", () => {
  const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  const post = (path: string, headers: Record<string, string>, body = init) =>
    fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });

  test("a foreign Origin is 403, a foreign Host is 403, a loopback Origin passes", async () => {
    assert.equal((await post("/mcp", { origin: "https://evil.example" })).status, 403);
    assert.equal((await post("/mcp", { host: "evil.example" })).status, 403);
    assert.equal((await post("/mcp", { origin: `http://localhost:${server.port}` })).status, 200);
  });

  test("a client that accepts only application/json is answered; GET is 405; an unknown profile 404", async () => {
    const r = await post("/mcp", { accept: "application/json" });
    assert.equal(r.status, 200, await r.clone().text());
    assert.equal(JSON.parse(await r.text()).result.serverInfo.name, "memsync");
    assert.equal((await fetch(`${base}/mcp`)).status, 405);
    assert.equal((await post("/mcp/nope", {})).status, 404);
  });

  test("a notification is 202", async () => {
    const r = await post("/mcp", {}, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    assert.equal(r.status, 202);
  });
});
