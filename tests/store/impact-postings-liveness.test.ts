import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "node:test";
import { memsync, memsyncChild, newStore, type Run, saveMany } from "../helpers/env.ts";

// A build or merge of recall's impact postings (store/impact-postings.ts) runs in short steps,
// each its own transaction under the store's write lock, with the lock let go between steps: a
// writer of another process waiting meanwhile gets its turn within its busy timeout, instead of
// "store busy" after one transaction as long as the whole build (13.6 s of CPU at 50k). Real
// processes: the binary's gc as the settle (its steps made slow: MEMSYNC_SLOW_POSTINGS_MS, many
// small ones: MEMSYNC_POSTINGS_STEP_ROWS, on a small store: MEMSYNC_BOUNDED_FROM) and the binary's
// touch as the writer, with a busy timeout far shorter than the whole settle.

const SLOW_MS = 250;
const BUSY_MS = 1_500;

const ok = (args: string[], env?: Record<string, string>): Run => {
  const r = memsync(args, env ? { env } : {});
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r;
};

function state(store: string): Map<string, number> {
  const db = new DatabaseSync(`${store}/.memsync/index.db`, { readOnly: true });
  try {
    const rows = db.prepare("SELECT k, v FROM impact_state").all() as { k: string; v: number }[];
    return new Map(rows.map((r) => [r.k, r.v]));
  } finally {
    db.close();
  }
}

function count(store: string, sql: string): number {
  const db = new DatabaseSync(`${store}/.memsync/index.db`, { readOnly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Touches, one after another, from the settle's start until it ends (each with a short busy
 * timeout): their results, and how many ended while the settle still ran.
 */
async function touchesWhile(store: string, id: string, settle: { done: Promise<Run> }): Promise<{ runs: Run[]; settleRun: Run; endedBefore: number }> {
  const runs: Run[] = [];
  let settleRun: Run | undefined;
  void settle.done.then((r) => (settleRun = r));
  let endedBefore = 0;
  while (settleRun === undefined && runs.length < 40) {
    const t = memsyncChild(["--store", store, "touch", id], { env: { MEMSYNC_BUSY_TIMEOUT_MS: String(BUSY_MS) } });
    runs.push(await t.done);
    if (settleRun === undefined) endedBefore++;
    await sleep(100);
  }
  await settle.done;
  return { runs, settleRun: settleRun!, endedBefore };
}

describe("a writer while recall's impact postings are built or merged", () => {
  const records = Array.from({ length: 40 }, (_, i) => `The billing worker ${i} retries refunds for tenant ${i} after the nightly restart of cluster ${i % 7}.`);

  test("a touch during a gc's build of the postings waits less than its busy timeout and succeeds", async () => {
    const store = newStore();
    const ids = saveMany(store, records);
    // ~12 steps of SLOW_MS each: the whole build is about twice the writer's busy timeout
    const env = { MEMSYNC_BOUNDED_FROM: "10", MEMSYNC_POSTINGS_STEP_ROWS: "80", MEMSYNC_SLOW_POSTINGS_MS: String(SLOW_MS) };
    const gc = memsyncChild(["--store", store, "gc"], { env });
    const { runs, settleRun, endedBefore } = await touchesWhile(store, ids[0]!, gc);
    assert.equal(settleRun.code, 0, settleRun.stderr);
    for (const r of runs) assert.equal(r.code, 0, `a touch during the build: ${r.stderr}`);
    // touches got in between the build's steps, not only after it: one that ended while the
    // build ran did (the build outlasts a touch's busy timeout, so a touch shut out of it would
    // have failed above). Not ">= 3": at load 45 a touch's own process took long enough that only
    // two ended inside the build (brief35's suite run)
    assert.ok(endedBefore >= 1, `touches that ended while the build ran: ${endedBefore}`);
    // built, each term's count that of its postings
    const s = state(store);
    assert.equal(s.get("built"), 1);
    assert.equal(s.has("build"), false);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_docs"), 40);
    assert.equal(count(store, "SELECT count(*) AS n FROM (SELECT term, count(*) AS c FROM impact_hits GROUP BY term) h JOIN impact_terms t USING (term) WHERE t.n != h.c"), 0);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_hits WHERE term = 'refund'"), 40);
  });

  test("a touch during a gc's merge of many pending memories succeeds; every step leaves the postings right", async () => {
    const store = newStore();
    const many = Array.from({ length: 120 }, (_, i) => `The billing worker ${i} retries refunds for tenant ${i} after the nightly restart of cluster ${i % 7}.`);
    const ids = saveMany(store, many);
    ok(["--store", store, "gc"], { MEMSYNC_BOUNDED_FROM: "10" });
    assert.equal(state(store).get("built"), 1);
    // 32 more (gc merges from 32 pending, and rebuilds past a quarter of the store)
    saveMany(store, Array.from({ length: 32 }, (_, i) => `The audit exporter ${i} writes ledgers for region ${i} every hour.`));
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_pending"), 32);
    // merged 4 at a time: 8 steps of SLOW_MS
    const env = { MEMSYNC_BOUNDED_FROM: "10", MEMSYNC_POSTINGS_STEP_ROWS: "4", MEMSYNC_SLOW_POSTINGS_MS: String(SLOW_MS) };
    const gc = memsyncChild(["--store", store, "gc"], { env });
    const { runs, settleRun, endedBefore } = await touchesWhile(store, ids[1]!, gc);
    assert.equal(settleRun.code, 0, settleRun.stderr);
    for (const r of runs) assert.equal(r.code, 0, `a touch during the merge: ${r.stderr}`);
    assert.ok(endedBefore >= 1, `touches that ended while the merge ran: ${endedBefore}`);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_pending"), 0);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_docs"), 152);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_hits WHERE term = 'ledger'"), 32);
    assert.equal(count(store, "SELECT n FROM impact_terms WHERE term = 'ledger'"), 32);
    assert.equal(count(store, "SELECT count(*) AS n FROM (SELECT term, count(*) AS c FROM impact_hits GROUP BY term) h JOIN impact_terms t USING (term) WHERE t.n != h.c"), 0);
  });
});

describe("a build of recall's impact postings killed midway", () => {
  test("leaves them unbuilt (recall asks FTS5), is not restarted while it could still be alive, and is built again after", async () => {
    const store = newStore();
    saveMany(store, [...Array.from({ length: 39 }, (_, i) => `The billing worker ${i} retries refunds for tenant ${i} after the nightly restart of cluster ${i % 7}.`), "The quokka importer retries refunds from the partner feed every night."]);
    const env = { MEMSYNC_BOUNDED_FROM: "10", MEMSYNC_POSTINGS_STEP_ROWS: "80", MEMSYNC_SLOW_POSTINGS_MS: String(SLOW_MS) };
    const gc = memsyncChild(["--store", store, "gc"], { env });
    for (let i = 0; i < 400 && count(store, "SELECT count(*) AS n FROM impact_hits") === 0; i++) await sleep(25);
    gc.child.kill("SIGKILL");
    await gc.done;
    const s = state(store);
    assert.equal(s.get("built"), 0);
    assert.ok(s.has("build"));
    // recall meanwhile: FTS5's answer
    assert.match(ok(["--store", store, "recall", "quokka importer"], { MEMSYNC_BOUNDED_FROM: "10" }).stdout, /The quokka importer/);
    // a settle right after leaves it (the build could be another process's, still running)
    ok(["--store", store, "gc"], { MEMSYNC_BOUNDED_FROM: "10" });
    assert.equal(state(store).get("built"), 0);
    // its sign of life aged past BUILD_SILENT_S: built again
    const db = new DatabaseSync(`${store}/.memsync/index.db`);
    db.prepare("UPDATE impact_state SET v = v - 120 WHERE k = 'build_at'").run();
    db.close();
    ok(["--store", store, "gc"], { MEMSYNC_BOUNDED_FROM: "10" });
    assert.equal(state(store).get("built"), 1);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_docs"), 40);
    assert.equal(count(store, "SELECT count(*) AS n FROM impact_hits WHERE term = 'refund'"), 40);
  });
});
