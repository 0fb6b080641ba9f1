import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { withStore } from "../../src/ops/context.ts";
import { recall, type RecallOptions } from "../../src/ops/recall.ts";
import { recallSettled } from "../../src/ops/recall-settled.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { topDirs } from "../../src/store/layout.ts";
import { trusted } from "../../src/store/racy.ts";
import { memsync, newStore, saveMany, tempDir } from "../helpers/env.ts";

// A hook's recall reads a settled index without the Store (ops/recall-settled.ts). Where it
// answers, it must answer exactly as the Store's recall; wherever the Store's quick refresh would
// change the index first (a memory folder changed), it must leave the answer to it (null).

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function envOf(store: string) {
  const dir = tempDir("memsync-recall-settled-");
  return opsEnvOf({ store, vars: {}, cwd: dir, home: dir, hostName: "host", user: "tester" });
}

const MEMORIES = [
  { content: "The billing worker ran out of database connections during the nightly batch; we raised the pool size to 40", project: "billing" },
  { content: "Fixed the nightly batch timeout by streaming the export instead of loading it whole", project: "billing" },
  { content: "The billing worker retries a failed connection with exponential backoff, at most five times", project: "billing" },
  { content: "Use cursor pagination for list endpoints in the search API", project: "search" },
  { content: "We chose PostgreSQL over MySQL for the billing service", type: "decision", project: null },
  { content: "The nightly batch starts at 02:00 UTC so that it misses the European peak", project: null },
  { content: "Prefer small pull requests with one change each" },
];

// one clock for both paths (a second passing between them would change recency, not the choice)
const NOW = Math.floor(Date.now() / 1000) + 60;
const PROMPTS: RecallOptions[] = [
  { query: "Why does the billing worker run out of connections during the nightly batch, and how did we fix the timeout?", now: NOW },
  { query: "Why does the billing worker run out of connections during the nightly batch?", project: "billing", budget: 4000, countUpTo: 101, now: NOW },
  { query: "which database do we use for billing?", project: "search", now: NOW },
  { query: "what's the weather like in lisbon today?", now: NOW },
  { query: "the and of", now: NOW },
];

/**
 * Wait until every memory folder's last change is past its racy window as racy.ts draws it, so
 * the Store's next look records it trusted: 100 ms, but 2 s for an mtime on a whole second (a
 * coarse file system's, and 1 change in 1,000 on a fine one). A fixed 150 ms wait failed there
 * ("a settled store answers", once in a full suite at load ~10 and once at ~24): every look
 * within the 2 s rightly gave up, and the retries took less than 2 s.
 */
async function pastRacyWindow(store: string) {
  const folders = topDirs("memory").flatMap((top) => {
    const abs = path.join(store, top);
    if (!fs.existsSync(abs)) return [];
    return [abs, ...fs.readdirSync(abs, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(abs, e.name))];
  });
  while (!folders.every((f) => trusted(Math.floor(fs.statSync(f).mtimeMs), Date.now()))) await sleep(20);
}

/** A store whose folders the index trusts: its last changes past the racy window, recorded by a refresh. */
async function settledStore() {
  const store = newStore();
  const ids = saveMany(store, MEMORIES);
  // a newer memory replaces an older one by a relation (recall marks it from the index's relations)
  memsync(["relate", ids[1]!, ids[0]!, "--type", "supersedes"], { env: { MEMSYNC_HOME: store } });
  const env = envOf(store);
  await pastRacyWindow(store);
  await withStore(env, (s) => recall(s, PROMPTS[0]!));
  return { store, env, ids };
}

const viaStore = (env: ReturnType<typeof envOf>, opts: RecallOptions) => withStore(env, (s) => recall(s, opts));

describe("recall without the Store", () => {
  test("answers every prompt as the Store's recall does", async () => {
    const { env, ids } = await settledStore();
    let shown = 0;
    for (const opts of PROMPTS) {
      const settled = await recallSettled(env, opts);
      assert.ok(settled, `${opts.query}: a settled store answers`);
      assert.deepEqual(settled, await viaStore(env, opts));
      shown += settled.items.length;
    }
    assert.ok(shown > 0, "some prompt recalls memories (the comparison can fail)");
    const first = (await recallSettled(env, PROMPTS[0]!))!;
    assert.ok(first.items.some((i) => i.superseded_by === ids[1]), "the supersedes relation is read from the index");
  });

  test("a memory file added by hand is left to the Store's path, which finds it", async () => {
    const { store, env } = await settledStore();
    const folder = path.join(store, "memories");
    const [name] = fs.readdirSync(folder).filter((n) => n.endsWith(".json"));
    const record = JSON.parse(fs.readFileSync(path.join(folder, name!), "utf8"));
    const id = `${record.id.slice(0, -4)}${record.id.slice(-4) === "abcd" ? "abce" : "abcd"}`;
    fs.writeFileSync(path.join(folder, `${id}.json`), `${JSON.stringify({ ...record, id, content: "The kestrel codename was the billing worker's nightly rewrite" }, null, 2)}\n`);
    const opts = { query: "what was the kestrel codename about?", now: NOW };
    assert.equal(await recallSettled(env, opts), null);
    const found = await viaStore(env, opts);
    assert.deepEqual(found.items.map((i) => i.id), [id]);
    await pastRacyWindow(store);
    await viaStore(env, opts);
    assert.deepEqual(await recallSettled(env, opts), found, "settled again once the index took it");
  });

  test("a memory file put into a new shard folder is seen (the top folder's mtime is what moves)", async () => {
    const { store, env } = await settledStore();
    const top = path.join(store, "memories");
    const [name] = fs.readdirSync(top).filter((n) => n.endsWith(".json"));
    const record = JSON.parse(fs.readFileSync(path.join(top, name!), "utf8"));
    fs.mkdirSync(path.join(top, record.id.slice(-2)));
    fs.renameSync(path.join(top, name!), path.join(top, record.id.slice(-2), name!));
    await pastRacyWindow(store);
    await viaStore(env, PROMPTS[0]!); // records the shard folder, trusted
    assert.ok(await recallSettled(env, PROMPTS[0]!), "settled again");
    // a second record into the shard: its mtime moves, the top folder's does not
    const topBefore = fs.statSync(top).mtimeMs;
    const id = `${record.id.slice(0, -4)}${record.id.slice(-4, -2) === "ff" ? "fe" : "ff"}${record.id.slice(-2)}`;
    fs.writeFileSync(path.join(top, record.id.slice(-2), `${id}.json`), `${JSON.stringify({ ...record, id, content: "The kestrel codename was the nightly rewrite" }, null, 2)}\n`);
    assert.equal(fs.statSync(top).mtimeMs, topBefore);
    const opts = { query: "what was the kestrel codename about?", now: NOW };
    assert.equal(await recallSettled(env, opts), null);
    assert.deepEqual((await viaStore(env, opts)).items.map((i) => i.id), [id]);
  });

  test("a memory folder changed on a whole second is trusted only past the 2 s window, then answered", async () => {
    const { store, env } = await settledStore();
    // a whole second a second or two ahead: every look until pastRacyWindow is inside its window, whatever the load
    const whole = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
    fs.utimesSync(path.join(store, "memories"), whole, whole);
    await viaStore(env, PROMPTS[0]!); // records the new mtime, not trusted yet
    assert.equal(await recallSettled(env, PROMPTS[0]!), null, "inside the 2 s window: the Store's path");
    await pastRacyWindow(store);
    assert.ok(Date.now() - whole.getTime() > 2000, "the wait is the 2 s window, not the 100 ms one");
    await viaStore(env, PROMPTS[0]!);
    const settled = await recallSettled(env, PROMPTS[0]!);
    assert.ok(settled, "settled once recorded past the window");
    assert.deepEqual(settled, await viaStore(env, PROMPTS[0]!));
  });

  test("leaves a store kept open, a test's clock, a missing store and an index of another version to the Store's path", async () => {
    const { store, env } = await settledStore();
    const opts = PROMPTS[0]!;
    assert.equal(await recallSettled({ ...env, open: { nowMs: Date.now } }, opts), null);
    assert.equal(await recallSettled(envOf(path.join(tempDir(), "none")), opts), null);
    assert.ok(await recallSettled(env, opts), "and answers the plain one");
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path.join(store, ".memsync", "index.db"));
    const version = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    db.exec(`PRAGMA user_version = ${version - 1}`);
    db.close();
    assert.equal(await recallSettled(env, opts), null);
  });
});
