import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { memsyncAsync, memsyncJson, newStore, tempDir } from "../helpers/env.ts";
import { type Connected, connect, type Era, mountInProcess, serverEnv } from "./client.ts";

// Resource subscriptions over stdio: a client of `memsync mcp --tools memory` subscribed to
// memory://knowledge-graph (resources/subscribe on the 2025 handshake, subscriptions/listen on
// 2026-07-28) is told the resource changed when another process (the command line) writes the
// store; nothing is sent for a resource no one subscribed to. Over HTTP the 2026-07-28 listen
// stream (the 2025 stateless mode has no session to notify).

const URI = "memory://knowledge-graph";


/** The next notifications/resources/updated, or null after ms. */
function nextUpdate(c: Client, ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    c.setNotificationHandler("notifications/resources/updated", (n) => {
      clearTimeout(timer);
      resolve(n.params.uri);
    });
  });
}

for (const era of ["legacy", "auto"] as Era[]) {
  describe(`memory://knowledge-graph subscriptions over stdio (${era})`, () => {
    let c: Connected;
    let store: string;
    before(async () => {
      store = path.join(tempDir(), "store");
      memsyncJson(["init", store]);
      c = await connect(["mcp", "--tools", "memory"], era, serverEnv({ MEMSYNC_HOME: store }));
    });
    after(async () => c?.close());

    test("the server says it offers subscriptions", () => {
      assert.equal(c.client.getServerCapabilities()?.resources?.subscribe, true);
    });

    test("a write by the command line is notified to a subscribed client, and only then", async () => {
      const env = { MEMSYNC_HOME: store };
      if (era === "legacy") {
        // not subscribed yet: a write sends nothing
        const quiet = nextUpdate(c.client, 1000);
        assert.equal((await memsyncAsync(["save", "Not subscribed yet: nothing is sent"], { env })).code, 0);
        assert.equal(await quiet, null);
        await c.client.subscribeResource({ uri: URI });
      } else {
        const sub = await c.client.listen({ resourceSubscriptions: [URI] });
        assert.deepEqual(sub.honoredFilter.resourceSubscriptions, [URI]);
      }
      const updated = nextUpdate(c.client, 10_000);
      const saved = await memsyncAsync(["save", `Subscribed (${era}): use cursor pagination`], { env });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(await updated, URI);
      if (era === "legacy") {
        await c.client.unsubscribeResource({ uri: URI });
        const after = nextUpdate(c.client, 1000);
        assert.equal((await memsyncAsync(["save", "Unsubscribed: nothing is sent"], { env })).code, 0);
        assert.equal(await after, null);
      }
    });
  });
}

describe("memory://knowledge-graph over HTTP (2026-07-28 subscriptions/listen)", () => {
  test("a listening client is told of a write by the command line", async () => {
    const store = newStore();
    const server = await mountInProcess(store);
    const c = new Client({ name: "memsync-tests", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    try {
      await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp/memory`)));
      assert.equal(c.getServerCapabilities()?.resources?.subscribe, true);
      const sub = await c.listen({ resourceSubscriptions: [URI] });
      const updated = nextUpdate(c, 10_000);
      const saved = await memsyncAsync(["save", "Over HTTP: a listen stream is told"], { env: { MEMSYNC_HOME: store } });
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(await updated, URI);
      await sub.close();
      // a 2025 client over HTTP is served statelessly: nothing could reach it, so nothing is offered
      const legacy = new Client({ name: "memsync-tests", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
      await legacy.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp/memory`)));
      assert.equal(legacy.getServerCapabilities()?.resources?.subscribe, undefined);
      await legacy.close();
    } finally {
      await c.close();
      server.stop(true);
    }
  });
});
