import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { WriteLock } from "../../src/store/write-lock.ts";
import { REPO, tempDir } from "../helpers/env.ts";

// The write lock's wait, against a real second process holding the lock: a waiter keeps waiting
// while the holder makes progress, however long in all, and gives up on a holder that makes none.

const BUN = path.join(REPO, "node_modules", ".bin", "bun");
const TIMEOUT_MS = 1_500;

// holds the lock (an IMMEDIATE transaction on the lock file) for holdMs, touching the progress
// file every 100 ms when asked to
const HOLDER = `
import { DatabaseSync } from "node:sqlite";
import fs from "node:fs";
const [lock, progress, holdMs, moving] = process.argv.slice(2);
const db = new DatabaseSync(lock);
db.exec("BEGIN IMMEDIATE");
process.stdout.write("holding\\n");
const end = Date.now() + Number(holdMs);
const timer = setInterval(() => {
  if (moving === "yes") fs.appendFileSync(progress, "x");
  if (Date.now() >= end) { clearInterval(timer); db.exec("COMMIT"); db.close(); }
}, 100);
`;

function holder(dir: string, holdMs: number, moving: boolean): Promise<ReturnType<typeof spawn>> {
  const script = path.join(dir, "holder.ts");
  fs.writeFileSync(script, HOLDER);
  const child = spawn(BUN, [script, path.join(dir, "lock"), path.join(dir, "progress"), String(holdMs), moving ? "yes" : "no"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("holding") && resolve(child));
    child.on("error", reject);
    child.on("close", (code) => reject(new Error(`the holder ended (${code}) before holding the lock`)));
  });
}

const progressOf = (dir: string) => () => String(fs.statSync(path.join(dir, "progress"), { throwIfNoEntry: false })?.size ?? -1);

describe("the write lock's wait", () => {
  test("a waiter outlasts a holder that makes progress for five times the busy timeout", { timeout: 120_000 }, async () => {
    const dir = tempDir("memsync-lock-");
    const child = await holder(dir, 5 * TIMEOUT_MS, true);
    const lock = WriteLock.open(path.join(dir, "lock"), TIMEOUT_MS, progressOf(dir));
    const t0 = Date.now();
    let ran = false;
    try {
      lock.hold(() => (ran = true)); // blocks this thread until the holder lets go
    } finally {
      lock.close();
      child.kill("SIGKILL");
    }
    const waited = Date.now() - t0;
    assert.ok(ran);
    assert.ok(waited >= 4 * TIMEOUT_MS, `the lock came after ${waited} ms, while the holder still held it`);
  });

  test("a waiter gives up on a holder that makes no progress, after the busy timeout", { timeout: 120_000 }, async () => {
    const dir = tempDir("memsync-lock-");
    const child = await holder(dir, 60_000, false);
    const lock = WriteLock.open(path.join(dir, "lock"), TIMEOUT_MS, progressOf(dir));
    const t0 = Date.now();
    try {
      assert.throws(() => lock.hold(() => assert.fail("the lock was taken while held")), /database is locked|SQLITE_BUSY/i);
    } finally {
      lock.close();
      child.kill("SIGKILL");
    }
    const waited = Date.now() - t0;
    assert.ok(waited >= TIMEOUT_MS && waited < 30_000, `gave up after ${waited} ms`);
  });
});

// holds the lock through the real WriteLock for holdMs, calling heartbeat() every 100 ms when asked
// to (what a repack, a merge or a checkout under the lock does as it goes), doing nothing else
const BEATING_HOLDER = `
import { WriteLock } from ${JSON.stringify(path.join(REPO, "src/store/write-lock.ts"))};
import { heartbeat } from ${JSON.stringify(path.join(REPO, "src/store/lock-heartbeat.ts"))};
const [lock, holdMs, beating] = process.argv.slice(2);
const l = WriteLock.open(lock, 1000);
const release = await l.take();
process.stdout.write("holding\\n");
const end = Date.now() + Number(holdMs);
const timer = setInterval(() => {
  if (beating === "yes") heartbeat();
  if (Date.now() >= end) { clearInterval(timer); release(); l.close(); }
}, 100);
`;

function beatingHolder(dir: string, holdMs: number, beating: boolean): Promise<ReturnType<typeof spawn>> {
  const script = path.join(dir, "beating-holder.ts");
  fs.writeFileSync(script, BEATING_HOLDER);
  const child = spawn(BUN, [script, path.join(dir, "lock"), String(holdMs), beating ? "yes" : "no"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("holding") && resolve(child));
    child.on("error", reject);
    child.on("close", (code) => reject(new Error(`the holder ended (${code}) before holding the lock`)));
  });
}

describe("the write lock's heartbeat and its wait without blocking", () => {
  test("a holder's heartbeat is progress: a waiter whose own signs never move outlasts a beating holder of four busy timeouts, and gives up on a silent one", { timeout: 120_000 }, async () => {
    for (const beating of [true, false]) {
      const dir = tempDir("memsync-lock-");
      const child = await beatingHolder(dir, 4 * TIMEOUT_MS, beating);
      const lock = WriteLock.open(path.join(dir, "lock"), TIMEOUT_MS, () => "unchanging");
      const t0 = Date.now();
      try {
        if (beating) {
          let ran = false;
          lock.hold(() => (ran = true));
          assert.ok(ran);
          assert.ok(Date.now() - t0 >= 3 * TIMEOUT_MS, `the lock came after ${Date.now() - t0} ms, while the holder still held it`);
        } else {
          assert.throws(() => lock.hold(() => assert.fail("the lock was taken while held")), /database is locked|SQLITE_BUSY/i);
          assert.ok(Date.now() - t0 < 3 * TIMEOUT_MS, `a silent holder was waited for ${Date.now() - t0} ms`);
        }
      } finally {
        lock.close();
        child.kill("SIGKILL");
      }
    }
  });

  test("take() waits for a lock another process holds without blocking this thread; hold() inside joins it; the lock goes with the last release", { timeout: 120_000 }, async () => {
    const dir = tempDir("memsync-lock-");
    const child = await beatingHolder(dir, 2_000, true);
    const lock = WriteLock.open(path.join(dir, "lock"), 60_000);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    try {
      const release = await lock.take();
      const waitedTicks = ticks;
      assert.ok(waitedTicks >= 10, `the thread ran ${waitedTicks} timers while it waited ~2 s`);
      assert.equal(lock.held, true);
      assert.equal(lock.hold(() => lock.held), true, "a hold inside a take joins it");
      assert.equal(lock.held, true, "the joined hold's end does not let the lock go");
      release();
      release(); // a second call lets go nothing more
      assert.equal(lock.held, false);
      // let go: another connection takes it at once
      const other = WriteLock.open(path.join(dir, "lock"), 0);
      try {
        assert.equal(other.hold(() => "taken"), "taken");
      } finally {
        other.close();
      }
    } finally {
      clearInterval(ticker);
      lock.close();
      child.kill("SIGKILL");
    }
  });
});
