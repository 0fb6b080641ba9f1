import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsync, memsyncChild, newStore, REPO, type Run, tempDir } from "../helpers/env.ts";

// The queue behind a store's sync lock (ops/sync.ts, sync/sync-turns.ts) ends for every waiter:
// by MEMSYNC_SYNC_WAIT_MS counted from when it was asked, however busy the holder is; or by the
// success of a sync that took its turn after it was asked (joined). Real processes: the binary, a
// second process holding the sync lock.

const BUN = path.join(REPO, "node_modules", ".bin", "bun");

// holds the store's sync lock (an IMMEDIATE transaction on .memsync/sync.lock) and beats as a busy
// sync does (the lock file's mtime every 200 ms: store/lock-heartbeat.ts) until a line comes on
// its standard input
const HOLDER = `
import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
const file = process.argv[2];
const db = new DatabaseSync(file);
db.exec("BEGIN IMMEDIATE");
const beat = setInterval(() => { const t = Date.now() / 1000; fs.utimesSync(file, t, t); }, 200);
process.stdout.write("holding\\n");
process.stdin.once("data", () => { clearInterval(beat); db.exec("COMMIT"); db.close(); process.exit(0); });
`;

async function holdSyncLock(store: string): Promise<{ child: ChildProcess; release(): Promise<void> }> {
  const script = path.join(tempDir(), "sync-holder.ts");
  fs.writeFileSync(script, HOLDER);
  const child = spawn(BUN, [script, path.join(store, ".memsync", "sync.lock")], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("holding") && resolve());
    child.on("close", (code) => reject(new Error(`the sync lock holder ended (${code}) before holding it`)));
  });
  const ended = new Promise<void>((r) => child.on("close", () => r()));
  return {
    child,
    release: () => {
      child.stdin!.write("go\n");
      return ended;
    },
  };
}

/** The run's end, or a failed assertion when it has not ended within `ms` (the process is killed). */
async function endsWithin(p: { child: ChildProcess; done: Promise<Run> }, ms: number, what: string): Promise<Run> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms)));
  const r = await Promise.race([p.done, late]);
  clearTimeout(timer);
  if (r === "late") {
    p.child.kill("SIGKILL");
    await p.done;
    assert.fail(`${what} was still running after ${ms} ms`);
  }
  return r;
}

const ok = (args: string[], env?: Record<string, string>) => {
  const r = memsync(args, env ? { env } : {});
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r;
};

/** A store synced once to a bare repository on a local path. */
function storeWithPathRemote(): { store: string; hub: string } {
  const root = tempDir();
  assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
  const hub = path.join(root, "hub.git");
  const store = newStore();
  ok(["--store", store, "remote", "set", hub]);
  ok(["--store", store, "save", "The staging cluster runs in eu-west-1."]);
  ok(["--store", store, "sync"]);
  return { store, hub };
}

const remoteHas = (hub: string, text: string) => git(hub, "grep", "-q", "-F", text, "main", "--").status === 0;

describe("the queue behind a store's sync lock", () => {
  test("a sync waits at most MEMSYNC_SYNC_WAIT_MS from when it was asked, however busy the holder; it exits 6, changes nothing, and the next sync pushes its writes", async () => {
    const { store, hub } = storeWithPathRemote();
    ok(["--store", store, "save", "Invoices are archived after seven years (queue-wait-marker)."]);
    const head = git(store, "rev-parse", "HEAD").stdout.trim();
    const holder = await holdSyncLock(store);
    try {
      const waiter = memsyncChild(["--store", store, "sync", "--json"], { env: { MEMSYNC_SYNC_WAIT_MS: "1500" } });
      // the holder beats all the time: a wait bounded only by a lack of progress never ends
      const r = await endsWithin(waiter, 20_000, "a sync queued behind a busy holder");
      assert.equal(r.code, 6, `${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, /this sync waited \d+ s for other syncs of this store .* and gave up: nothing is lost.*run sync again later/);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout).error.code, "unavailable");
      assert.equal(git(store, "rev-parse", "HEAD").stdout.trim(), head, "the waiter changed nothing");
    } finally {
      await holder.release();
    }
    assert.ok(!remoteHas(hub, "queue-wait-marker"));
    ok(["--store", store, "sync"]);
    assert.ok(remoteHas(hub, "queue-wait-marker"), "the next sync pushed the write the waiter left");
  });

  test("a bad MEMSYNC_PUSH_RETRY_BUDGET_MS or MEMSYNC_SYNC_WAIT_MS is refused (exit 2, one line), as MEMSYNC_STOP_GRACE_MS is, and the sync changes nothing", () => {
    const { store, hub } = storeWithPathRemote();
    ok(["--store", store, "save", "Backups are tested every quarter (bad-knob-marker)."]);
    const head = git(store, "rev-parse", "HEAD").stdout.trim();
    for (const [name, value] of [["MEMSYNC_PUSH_RETRY_BUDGET_MS", "soon"], ["MEMSYNC_PUSH_RETRY_BUDGET_MS", "-5"], ["MEMSYNC_SYNC_WAIT_MS", "1.5"]] as const) {
      for (const cmd of ["sync", "push", "pull"]) {
        const r = memsync(["--store", store, cmd], { env: { [name]: value } });
        assert.equal(r.code, 2, `${cmd} with ${name}=${value}: ${r.stderr}`);
        assert.equal(r.stderr.trim(), `memsync: ${name} takes a whole number of milliseconds, not ${JSON.stringify(value)}`);
      }
    }
    assert.equal(git(store, "rev-parse", "HEAD").stdout.trim(), head);
    assert.ok(!remoteHas(hub, "bad-knob-marker"));
    // empty is unset: the default
    ok(["--store", store, "sync"], { MEMSYNC_PUSH_RETRY_BUDGET_MS: "", MEMSYNC_SYNC_WAIT_MS: "" });
    assert.ok(remoteHas(hub, "bad-knob-marker"));
  });
});

