import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { memsync, memsyncJson, newStore } from "../helpers/env.ts";
import { withHttpRemote } from "../helpers/http-remote.ts";
import { hub } from "../helpers/hub.ts";
import { get, post, startServer, withServer } from "../helpers/server.ts";

// The server's syncs: --sync-every in the background (backing off after failures), and SIGTERM
// letting a running sync finish.

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (const t = Date.now(); ; ) {
    const v = await probe();
    if (v !== undefined) return v;
    assert.ok(Date.now() - t < 40_000, `${what}: not within 40 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("memsync serve: syncs", () => {
  test("--sync-every pushes in the background; a remote that fails makes it wait twice as long each time", async () => {
    const store = newStore();
    const { bare } = hub();
    assert.equal(memsync(["--store", store, "remote", "set", bare]).code, 0);
    await withServer(
      store,
      async (s) => {
        await post(`${s.url}/v1/save`, { memory: { content: "pushed by the background sync" } });
        const h = await until("a background sync", async () => {
          const b = (await get(`${s.url}/v1/health`)).body;
          return b.sync.last?.ok && b.unpushed_commits === 0 ? b : undefined;
        });
        assert.equal(h.sync.every_s, 1);
        assert.equal(h.sync.failures, 0);
      },
      { args: ["--listen", "127.0.0.1:0", "--sync-every", "1s"] },
    );
    const log = memsync(["--store", store, "status", "--json"]);
    assert.equal(JSON.parse(log.stdout).unpushed_commits, 0);

    const broken = newStore();
    const gone = hub();
    assert.equal(memsync(["--store", broken, "remote", "set", gone.bare]).code, 0);
    fs.rmSync(gone.bare, { recursive: true });
    await withServer(
      broken,
      async (s) => {
        const h = await until("two failed syncs", async () => {
          const b = (await get(`${s.url}/v1/health`)).body;
          return b.sync.failures >= 2 ? b : undefined;
        });
        assert.equal(h.sync.last.ok, false);
        assert.equal(typeof h.sync.last.error.message, "string");
        // after n failures the next one waits 2^n intervals
        const wait = Date.parse(h.sync.next_at) - Date.parse(h.sync.last.finished_at);
        assert.ok(wait >= 2 ** h.sync.failures * 1000 - 500, `waits ${wait} ms after ${h.sync.failures} failures`);
      },
      { args: ["--listen", "127.0.0.1:0", "--sync-every", "1s"] },
    );
  });

  test("SIGTERM during a sync: the sync finishes and is answered, then the server exits 0", async () => {
    // the remote holds the sync's requests until the server has its SIGTERM: a sync against a
    // local hub could finish before a probe saw it running (a quiet machine did, at stop 37)
    await withHttpRemote(async (store, remote) => {
      const s = await startServer(store);
      await post(`${s.url}/v1/save`, { memory: { content: "synced while stopping" } });
      const release = remote.hold();
      const syncing = post(`${s.url}/v1/sync`, {});
      await until("the sync to start", async () => ((await get(`${s.url}/v1/health`)).body.sync.running ? true : undefined));
      const stopped = s.stop("SIGTERM");
      // the signal is handled while the sync still waits on the remote
      await new Promise((r) => setTimeout(r, 300));
      release();
      const answer = await syncing;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(await stopped, 0, s.stderr());
      assert.equal(JSON.parse(memsync(["--store", store, "status", "--json"]).stdout).unpushed_commits, 0);
    });
  });
});

describe("memsync serve: a clean stop during a sync answers every write it took", () => {
  test("SIGTERM while a sync holds the store and writes wait behind it: each write sent before the stop is answered, and the files hold exactly the answered ones", async () => {
    await withHttpRemote(async (store, remote) => {
      const s = await startServer(store);
      const id: string = (await post(`${s.url}/v1/save`, { memory: { content: "touched while a sync runs" } })).body.memory.id;
      const release = remote.hold();
      const syncing = post(`${s.url}/v1/sync`, {});
      await until("the sync to start", async () => ((await get(`${s.url}/v1/health`)).body.sync.running ? true : undefined));
      const sent = Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? post(`${s.url}/v1/touch`, { ids: [id] }) : post(`${s.url}/v1/save`, { memory: { content: `saved behind the sync ${i}` } })).then(
          (r) => ({ i, status: r.status, error: "" }),
          (e: unknown) => ({ i, status: 0, error: e instanceof Error ? e.message : String(e) }),
        ),
      );
      await new Promise((r) => setTimeout(r, 300));
      const stopped = s.stop("SIGTERM");
      await new Promise((r) => setTimeout(r, 300));
      release();
      const results = await Promise.all(sent);
      assert.equal((await syncing).status, 200);
      assert.equal(await stopped, 0, s.stderr());
      assert.deepEqual(results.filter((r) => r.status !== 200), [], "every write sent before the stop is answered");
      const fresh = memsyncJson(["--store", store, "get", id]);
      assert.equal((fresh.found?.[0]?.memory ?? fresh.memories?.[0] ?? fresh).use_count, 6);
      assert.equal(memsyncJson(["--store", store, "list", "--limit", "0"]).memories.length, 7);
    });
  });
});
