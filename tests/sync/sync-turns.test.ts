import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memsync, memsyncChild, type Run } from "../helpers/env.ts";
import { withHttpRemote } from "../helpers/http-remote.ts";

// Syncs of one store take turns; one that waited while another began after it was asked and
// succeeded takes that one's outcome (`joined`) instead of running again (sync/sync-turns.ts).
// Each case holds the remote (a real smart-HTTP server) to order the processes.

const json = (r: Run) => {
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { joined?: true; commit: { commits: unknown[] }; push?: { pushed: boolean } };
};

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  for (const t = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 20))) assert.ok(Date.now() - t < ms, `timed out waiting for ${what}`);
}

const save = (store: string, text: string) => assert.equal(memsync(["--store", store, "save", text]).code, 0);

describe("sync turns", () => {
  test("two syncs queued behind a running one: the first to get the lock syncs, the other takes its outcome", async () => {
    await withHttpRemote(async (store, remote) => {
      save(store, "The billing service keeps invoices for seven years.");
      const release = remote.hold();
      const a = memsyncChild(["--store", store, "sync", "--json"]);
      await until("the first sync at the remote", () => remote.heldCount() > 0);
      // asked while the first one runs: it began before them, so neither may take its outcome
      const b = memsyncChild(["--store", store, "sync", "--json"]);
      const c = memsyncChild(["--store", store, "sync", "--json"]);
      await new Promise((r) => setTimeout(r, 600));
      release();
      const [ra, rb, rc] = (await Promise.all([a.done, b.done, c.done])).map(json);
      assert.equal(ra!.joined, undefined);
      const joined = [rb!, rc!].filter((r) => r.joined);
      assert.equal(joined.length, 1, JSON.stringify([rb, rc]));
      const ran = [rb!, rc!].find((r) => !r.joined)!;
      assert.deepEqual(joined[0], { ...ran, joined: true });
    });
  });

  test("a sync asked after another took its turn never takes that one's outcome (a save made in between is pushed)", async () => {
    await withHttpRemote(async (store, remote) => {
      save(store, "Staging deploys run from the release branch.");
      // the first sync is held at its push: its commit is made, a save after it is not in it
      const release = remote.hold(/receive-pack/);
      const a = memsyncChild(["--store", store, "sync", "--json"]);
      await until("the first sync at its push", () => remote.heldCount() > 0);
      save(store, "Production deploys need two approvals.");
      const b = memsyncChild(["--store", store, "sync", "--json"]);
      await new Promise((r) => setTimeout(r, 600));
      release();
      const [ra, rb] = (await Promise.all([a.done, b.done])).map(json);
      assert.equal(ra!.joined, undefined);
      assert.equal(rb!.joined, undefined, JSON.stringify(rb));
      assert.ok(rb!.commit.commits.length >= 1 && rb!.push?.pushed, JSON.stringify(rb));
    });
  });

  test("a sync killed in its turn gives no outcome: the one waiting runs its own", async () => {
    await withHttpRemote(async (store, remote) => {
      save(store, "Feature flags live in LaunchDarkly.");
      const release = remote.hold();
      const a = memsyncChild(["--store", store, "sync", "--json"]);
      await until("the first sync at the remote", () => remote.heldCount() > 0);
      const b = memsyncChild(["--store", store, "sync", "--json"]);
      await new Promise((r) => setTimeout(r, 400));
      a.child.kill("SIGKILL");
      assert.equal((await a.done).code, -1);
      release();
      const rb = json(await b.done);
      assert.equal(rb.joined, undefined);
      assert.ok(rb.push?.pushed, JSON.stringify(rb));
    });
  });
});
