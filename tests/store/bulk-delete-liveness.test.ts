import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { filesUnder, memsync, memsyncChild, memsyncJson, newStore, type Run, saveMany } from "../helpers/env.ts";

// gc removes the index rows of the memories it deletes in a bulk delete under the store's write
// lock (IndexDb.deleteFiles). As one statement per table it gave no sign of progress until it
// ended: 3.8 s of silence for 3,000 memories at ~25x CPU starvation, and a writer of another
// process waiting meanwhile gives up after its busy timeout of silence ("store busy"). It now runs
// in chunks, one transaction still, with a heartbeat between chunks. Real processes: the binary's
// gc whose delete is made slow (MEMSYNC_SLOW_INDEX_DELETE_MS per memory, chunks of
// MEMSYNC_INDEX_DELETE_CHUNK memories) and the binary's touch with a short busy timeout.

const FADED = 40;
const SLOW_MS = 100; // per memory: a delete of 4 s, chunks of 0.4 s
const CHUNK = 4;
const BUSY_MS = 2_000;
const DAY = 86_400;

/** A store with FADED memories gc deletes (unused for 90 days) and one it keeps; the kept one's id. */
function storeWithFaded(): { store: string; kept: string } {
  const store = newStore();
  const old = Math.floor(Date.now() / 1000) - 90 * DAY;
  saveMany(
    store,
    Array.from({ length: FADED }, (_, i) => ({ content: `The staging cache ${i} was flushed by hand after deploy ${i}.`, created_at: old, last_used: old })),
  );
  const [kept] = saveMany(store, ["The release checklist lives in docs/release.md."]);
  return { store, kept: kept! };
}

const slowGcEnv = { MEMSYNC_SLOW_INDEX_DELETE_MS: String(SLOW_MS), MEMSYNC_INDEX_DELETE_CHUNK: String(CHUNK) };

const memoryFiles = (store: string) => filesUnder(path.join(store, "memories"), ".json").length;

describe("gc's bulk delete of index rows under the write lock", () => {
  test("a touch waiting through a long delete keeps waiting (the holder beats between chunks) and succeeds; the index is right after", { timeout: 120_000 }, async () => {
    const { store, kept } = storeWithFaded();
    const gc = memsyncChild(["--store", store, "gc", "--json"], { env: slowGcEnv });
    let gcRun: Run | undefined;
    void gc.done.then((r) => (gcRun = r));
    // touches one after another until gc ends: one of them waits through the delete
    const touches: { run: Run; ms: number }[] = [];
    while (gcRun === undefined && touches.length < 40) {
      const t0 = Date.now();
      const run = await memsyncChild(["--store", store, "touch", kept], { env: { MEMSYNC_BUSY_TIMEOUT_MS: String(BUSY_MS) } }).done;
      touches.push({ run, ms: Date.now() - t0 });
    }
    const gcDone = await gc.done;
    assert.equal(gcDone.code, 0, gcDone.stderr);
    assert.equal(JSON.parse(gcDone.stdout).removed.length, FADED);
    for (const t of touches) assert.equal(t.run.code, 0, `a touch gave up after ${t.ms} ms: ${t.run.stderr}`);
    const longest = Math.max(...touches.map((t) => t.ms));
    assert.ok(longest > BUSY_MS, `no touch waited past its busy timeout (longest ${longest} ms): none waited through the delete`);
    const status = memsyncJson(["--store", store, "status"]);
    assert.equal(status.memories.total, 1, JSON.stringify(status));
    assert.equal(memoryFiles(store), 1);
  });

  test("a gc killed in the middle of its delete loses nothing: the delete is rolled back whole and the next command repairs the index", { timeout: 120_000 }, async () => {
    const { store, kept } = storeWithFaded();
    const gc = memsyncChild(["--store", store, "gc"], { env: slowGcEnv });
    // the files go before their rows: once only the kept one is left, gc is in its 4 s delete
    const t0 = Date.now();
    while (memoryFiles(store) > 1 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 1_000));
    gc.child.kill("SIGKILL");
    const killed = await gc.done;
    assert.equal(gc.child.signalCode, "SIGKILL", `gc ended before the kill (${killed.code}): ${killed.stderr}`);
    // the next command sees the files gone: the index keeps no row of them, the kept one is whole
    const listed = memsyncJson(["--store", store, "list"]);
    const ids = listed.memories.map((m: { id: string }) => m.id);
    assert.deepEqual(ids, [kept]);
    const status = memsyncJson(["--store", store, "status"]);
    assert.equal(status.memories.total, 1, JSON.stringify(status));
    assert.equal(memsync(["--store", store, "touch", kept]).code, 0);
    assert.equal(memsync(["--store", store, "commit"]).code, 0);
    assert.equal(memsyncJson(["--store", store, "gc"]).removed.length, 0);
  });
});
