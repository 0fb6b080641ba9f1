import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memsyncAsync, memsyncJson, newStore, readMemoryFile } from "../helpers/env.ts";
import { post, startServer, withServer } from "../helpers/server.ts";

// Many clients at once never lose a write: the server runs its writes one at a time, the store's
// own lock keeps a CLI writer beside it safe, and SIGTERM lets the writes in progress finish.

describe("memsync serve: concurrency", () => {
  test("50 concurrent touches of one memory: use_count goes up by exactly 50", async () => {
    const store = newStore();
    const id: string = memsyncJson(["--store", store, "save", "one memory touched by many"]).memory.id;
    await withServer(store, async (s) => {
      const answers = await Promise.all(Array.from({ length: 50 }, () => post(`${s.url}/v1/touch`, { ids: [id] })));
      assert.deepEqual(answers.filter((a) => a.status !== 200), []);
    });
    assert.equal(readMemoryFile(store, id).use_count, 50);
  });

  test("a CLI writer and the server on one store at once: nothing lost", async () => {
    const store = newStore();
    await withServer(store, async (s) => {
      const http = Promise.all(Array.from({ length: 30 }, (_, i) => post(`${s.url}/v1/save`, { memory: { content: `saved over HTTP number ${i}` } })));
      const cli = Promise.all(Array.from({ length: 2 }, async (_, w) => {
        for (let i = 0; i < 3; i++) {
          const r = await memsyncAsync(["--store", store, "save", `saved by CLI writer ${w} number ${i}`]);
          assert.equal(r.code, 0, r.stderr);
        }
      }));
      const [answers] = await Promise.all([http, cli]);
      assert.deepEqual(answers.filter((a) => a.status !== 200), []);
      const all = await post(`${s.url}/v1/list`, { limit: 0 });
      assert.equal(all.body.memories.length, 36);
    });
    assert.equal(memsyncJson(["--store", store, "list", "--limit", "0"]).memories.length, 36);
  });

  test("SIGTERM mid-write: every answered write is on disk, the server exits 0 and accepts nothing more", async () => {
    const store = newStore();
    const s = await startServer(store);
    const sent = Array.from({ length: 40 }, (_, i) =>
      post(`${s.url}/v1/save`, { memory: { content: `written while stopping, number ${i}` } }).then(
        (r) => ({ i, ok: r.status === 200, id: r.body?.memory?.id as string | undefined }),
        () => ({ i, ok: false, id: undefined }),
      ),
    );
    // stop once the first answer is back: the rest are in progress or queued
    await Promise.race(sent);
    const code = await s.stop("SIGTERM");
    const results = await Promise.all(sent);
    assert.equal(code, 0, s.stderr());
    const answered = results.filter((r) => r.ok);
    assert.ok(answered.length >= 1);
    for (const r of answered) assert.equal(readMemoryFile(store, r.id!).content, `written while stopping, number ${r.i}`);
    await assert.rejects(fetch(`${s.url}/v1/status`));
    const listed = memsyncJson(["--store", store, "list", "--limit", "0"]).memories.length;
    assert.ok(listed >= answered.length && listed <= 40, `${listed} listed, ${answered.length} answered`);
    assert.equal(memsyncJson(["--store", store, "status"]).health, "healthy");
  });
});

describe("memsync serve: a clean stop answers what it took", () => {
  test("SIGTERM with writes queued behind one another: every request sent before the stop gets its answer, and the files hold exactly the answered writes", async () => {
    const store = newStore();
    const id: string = memsyncJson(["--store", store, "save", "touched while stopping"]).memory.id;
    const s = await startServer(store);
    // keep-alive connections, several requests in flight at once (writes run one at a time)
    const sent = Array.from({ length: 24 }, (_, i) =>
      (i % 2 ? post(`${s.url}/v1/touch`, { ids: [id] }) : post(`${s.url}/v1/save`, { memory: { content: `saved while stopping ${i}` } })).then(
        (r) => ({ i, status: r.status, error: "" }),
        (e: unknown) => ({ i, status: 0, error: e instanceof Error ? e.message : String(e) }),
      ),
    );
    await Promise.race(sent);
    await new Promise((r) => setTimeout(r, 5));
    const code = await s.stop("SIGTERM");
    const results = await Promise.all(sent);
    assert.equal(code, 0, s.stderr());
    // refused before it was taken (the listener closed) is fine; taken and then dropped is not
    const dropped = results.filter((r) => r.status === 0 && !/ECONNREFUSED|Unable to connect/i.test(r.error));
    assert.deepEqual(dropped, [], `answers lost: ${JSON.stringify(dropped.slice(0, 3))}`);
    const touches = results.filter((r) => r.i % 2 && r.status === 200).length;
    const saves = results.filter((r) => r.i % 2 === 0 && r.status === 200).length;
    assert.equal(readMemoryFile(store, id).use_count, touches);
    assert.equal(memsyncJson(["--store", store, "list", "--limit", "0"]).memories.length, saves + 1);
  });
});
