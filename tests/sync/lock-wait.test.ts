import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncChild, newStore, readMemoryFile, type Run, saveMany, tempDir } from "../helpers/env.ts";
import { post, withServer } from "../helpers/server.ts";

// A write waiting for the store's lock while a sync holds it for long (the chaos runs' serve clone
// answered 503 "store busy" while a CLI sync's merge ran past the busy timeout under load, writing
// neither the index nor the journal): a holder that is working shows it (heartbeats in every loop
// under the lock), so the waiter keeps waiting and then succeeds; a holder that shows nothing for
// the busy timeout is still given up on, and the error says what it was doing. Real processes:
// the binary as holder (a pull whose commit and merge write their git objects slowly:
// MEMSYNC_SLOW_OBJECT_MS) and as waiter (a touch with a short MEMSYNC_BUSY_TIMEOUT_MS).

const ok = (args: string[], env?: Record<string, string>): Run => {
  const r = memsync(args, env ? { env } : {});
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r;
};

const N = 30;

/**
 * Two clones of one store of N memories, each of which touched all N since their last sync (B's
 * touches not yet committed): B's pull commits N changed files, then merges N files changed on
 * both sides, every one a new git object, under one hold of the store's write lock.
 */
function clonesThatBothTouched(): { b: string; ids: string[] } {
  const root = tempDir();
  assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
  const hub = path.join(root, "hub.git");
  const a = newStore();
  ok(["--store", a, "remote", "set", hub]);
  const ids = saveMany(a, Array.from({ length: N }, (_, i) => `Service ${i} of the staging cluster restarts nightly at ${i}:00.`));
  ok(["--store", a, "sync"]);
  const b = path.join(root, "b");
  ok(["clone", hub, b]);
  ok(["--store", a, "touch", ...ids]);
  ok(["--store", a, "sync"]);
  ok(["--store", b, "touch", "--boost", ...ids]);
  return { b, ids };
}

/** B's pull, its objects made `slowMs` each; resolves once it holds the store's write lock. */
async function slowPull(b: string, slowMs: number) {
  const run = memsyncChild(["--store", b, "pull"], { env: { MEMSYNC_SLOW_OBJECT_MS: String(slowMs), MEMSYNC_SYNC_TRACE: "1" } });
  let err = "";
  await new Promise<void>((resolve, reject) => {
    run.child.stderr!.on("data", (d) => {
      err += d;
      // (the fetch runs outside the write lock, the commit and merge inside: the trace's
      // pull.lock-wait line is written once the lock is taken. Waiting only for the fetch's line
      // let a waiter take the lock first in the gap between: CI's run answered 200, not 503)
      if (/sync-trace: pull\.lock-wait /.test(err)) resolve();
    });
    run.done.then((r) => reject(new Error(`the pull ended (${r.code}) before its merge: ${r.stderr}`)), reject);
  });
  return run;
}

describe("a write waiting for the lock a long sync holds", () => {
  test("keeps waiting while the holder works (a commit and merge of 2N objects, 100 ms each, past the waiter's busy timeout), then succeeds", { timeout: 180_000 }, async () => {
    const { b, ids } = clonesThatBothTouched();
    const pull = await slowPull(b, 100);
    const t0 = Date.now();
    const touch = await memsyncChild(["--store", b, "touch", ids[0]!], { env: { MEMSYNC_BUSY_TIMEOUT_MS: "2500" } }).done;
    const waited = Date.now() - t0;
    const pulled = await pull.done;
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(touch.code, 0, `the touch gave up after ${waited} ms: ${touch.stderr}`);
    assert.ok(waited >= 2500, `the touch ended after ${waited} ms: it did not wait for the pull`);
  });

  test("the same for a server's write: answered once the pull ends, not 503 'store busy'", { timeout: 180_000 }, async () => {
    const { b, ids } = clonesThatBothTouched();
    await withServer(
      b,
      async (server) => {
        const pull = await slowPull(b, 100);
        const t0 = Date.now();
        const touched = await post(`${server.url}/v1/touch`, { ids: [ids[0]] });
        const waited = Date.now() - t0;
        const pulled = await pull.done;
        assert.equal(pulled.code, 0, pulled.stderr);
        assert.equal(touched.status, 200, `answered ${touched.status} after ${waited} ms: ${JSON.stringify(touched.body)}`);
        assert.ok(waited >= 2500, `answered after ${waited} ms: it did not wait for the pull`);
        // and one that waits on a silent holder is told what the holder was doing
        const stuck = await slowPull(b, 6_000);
        try {
          const refused = await post(`${server.url}/v1/touch`, { ids: [ids[1]] });
          assert.equal(refused.status, 503, JSON.stringify(refused.body));
          assert.match(refused.body.error.message, new RegExp(`store is busy.*held by memsync pull \\(pid ${stuck.child.pid}\\) for \\d+ s, in pull\\.commit`));
        } finally {
          stuck.child.kill("SIGKILL");
          await stuck.done;
        }
      },
      { env: { MEMSYNC_BUSY_TIMEOUT_MS: "2500" } },
    );
  });

  test("a server's request waits at most --lock-wait for a holder that keeps working: 503 with the holder's note and Retry-After, nothing changed; the same request succeeds once the pull ends", { timeout: 180_000 }, async () => {
    const { b, ids } = clonesThatBothTouched();
    await withServer(
      b,
      async (server) => {
        // ~2N objects of 200 ms each: a pull that works (and beats) for over 12 s
        const pull = await slowPull(b, 200);
        const t0 = Date.now();
        const res = await fetch(`${server.url}/v1/touch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids: [ids[0]] }) });
        const waited = Date.now() - t0;
        const body = (await res.json()) as { error: { code: string; message: string } };
        assert.equal(res.status, 503, `answered ${res.status} after ${waited} ms: ${JSON.stringify(body)}`);
        assert.ok(waited >= 3_000 && waited < 9_000, `answered after ${waited} ms, its limit 3 s`);
        assert.equal(res.headers.get("retry-after"), "5");
        assert.equal(body.error.code, "unavailable");
        assert.match(body.error.message, new RegExp(`store is busy: this request waited 3 s, its limit, .*held by memsync pull \\(pid ${pull.child.pid}\\) for \\d+ s, in pull\\.`));
        const pulled = await pull.done;
        assert.equal(pulled.code, 0, pulled.stderr);
        // sent again once the pull is done, it is made
        const merged = readMemoryFile(b, ids[0]!).use_count;
        const again = await post(`${server.url}/v1/touch`, { ids: [ids[0]] });
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(readMemoryFile(b, ids[0]!).use_count, merged + 1);
      },
      // the busy timeout alone would let the request wait as long as the pull beats
      { env: { MEMSYNC_BUSY_TIMEOUT_MS: "2500" }, args: ["--listen", "127.0.0.1:0", "--lock-wait", "3s"] },
    );
  });

  test("gives up on a holder that shows no progress for the busy timeout, naming the holder and what it was doing; a killed holder's lock is taken", { timeout: 180_000 }, async () => {
    const { b, ids } = clonesThatBothTouched();
    const pull = await slowPull(b, 6_000);
    let touch: Run;
    try {
      const t0 = Date.now();
      touch = await memsyncChild(["--store", b, "touch", ids[0]!], { env: { MEMSYNC_BUSY_TIMEOUT_MS: "1500" } }).done;
      const waited = Date.now() - t0;
      assert.equal(touch.code, 6, touch.stderr);
      assert.ok(waited < 5_500, `gave up after ${waited} ms, though the holder was silent after 1.5 s`);
      assert.match(touch.stderr, /the store is busy/);
      assert.match(touch.stderr, new RegExp(`held by memsync pull \\(pid ${pull.child.pid}\\) for \\d+ s, in pull\\.commit for \\d+ s, last heard from \\d+ s ago`));
    } finally {
      pull.child.kill("SIGKILL");
      await pull.done;
    }
    // the dead holder's note is left behind, and not believed; its lock went with it
    assert.ok(fs.existsSync(path.join(b, ".memsync", "lock-holder")));
    const after = memsync(["--store", b, "touch", ids[0]!], { env: { MEMSYNC_BUSY_TIMEOUT_MS: "1500" } });
    assert.equal(after.code, 0, after.stderr);
  });
});
