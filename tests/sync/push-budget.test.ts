import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncChild, newStore, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";

// A push's retry budget (sync/exchange.ts, PUSH_RETRY_BUDGET_MS, shortened here through
// MEMSYNC_PUSH_RETRY_BUDGET_MS) counts from when the sync was asked, not from when its push began:
// a sync that spent the budget waiting (for another sync of the store, for its pull) makes one
// push attempt, and when the remote moved under it, says so (exit 6) instead of retrying on. The
// remote is a real smart-HTTP server whose requests the test holds; another clone reaches the same
// bare repository by its path, so it pushes while the first sync is held.

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  for (const t = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 20))) assert.ok(Date.now() - t < ms, `timed out waiting for ${what}`);
}

const ok = (args: string[]) => {
  const r = memsync(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
};

/** A run that talks to the HTTP server, which lives in this process: asynchronous, so it keeps answering. */
const okAsync = async (args: string[]) => {
  const r = await memsyncChild(args).done;
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
};

describe("the push retry budget", () => {
  test("counts from when the sync was asked: a sync whose pull outlasted it makes one attempt, exits 6, and loses nothing", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const hub = path.join(root, "hub.git");
    const server = await startGitHttpServer(root);
    try {
      const store = newStore();
      ok(["--store", store, "remote", "set", server.url("hub.git"), "--insecure-http"]);
      ok(["--store", store, "save", "The audit log is kept for ninety days."]);
      await okAsync(["--store", store, "sync"]);
      const other = path.join(root, "other");
      ok(["clone", hub, other]);
      ok(["--store", other, "save", "Rollbacks go through the deploy bot."]);
      ok(["--store", store, "save", "Quarterly keys rotate on the first Monday (budget-marker)."]);

      // the sync's pull is held past the budget
      const releaseFetch = server.hold(/upload-pack/);
      const sync = memsyncChild(["--store", store, "sync", "--json"], { env: { MEMSYNC_PUSH_RETRY_BUDGET_MS: "1500" } });
      await until("the sync's fetch at the remote", () => server.heldCount() > 0);
      await new Promise((r) => setTimeout(r, 2_000));
      // then its push is held while the other clone pushes: the remote moves under it
      const releasePush = server.hold(/receive-pack/);
      releaseFetch();
      await until("the sync's push at the remote", () => server.heldCount() > 0);
      ok(["--store", other, "sync"]);
      releasePush();
      const r = await sync.done;
      assert.equal(r.code, 6, `expected exit 6; got ${r.code}: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, /push gave up after 1 attempt in \d+ s \(the sync had run \d+ s before its push.*nothing is lost/);

      // nothing lost: the next sync pushes the save
      await okAsync(["--store", store, "sync"]);
      assert.equal(git(root, "--git-dir", hub, "grep", "-q", "budget-marker", "main").status, 0);
    } finally {
      await server.close();
    }
  });
});
