import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import { createMemory } from "../../src/core/records.ts";
import { TEMP_SUFFIX } from "../../src/store/atomic-write.ts";
import { FolderReads } from "../../src/store/folder-snapshot.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { startEarlySnapshot, startSnapshot } from "../../src/store/parallel-snapshot.ts";
import { planIsEmpty, planRefresh, readIndexFolders, type RefreshContext, shardSettledBy } from "../../src/store/refresh.ts";
import { Store } from "../../src/store/store.ts";
import { memsync, tempDir } from "../helpers/env.ts";
import { countRowLoads } from "../helpers/row-loads.ts";

// status's full refresh of a large store reads the record folders as threads saw them
// (src/store/parallel-snapshot.ts, folder-snapshot.ts): its plan must be the one made from the
// disk, whatever the store holds, and a thread that fails must cost time, never a wrong answer.

const T0 = 1_790_000_000;
const SHARDS = ["a7", "b8", "c9", "d0", "e1"];

function mem(content: string, id: string): Memory {
  return createMemory({ content }, id, { now: T0, machine: "test-machine", user: "tester" });
}

/** A sharded store of `n` memories over five shard folders and three flat ones, settled. */
async function settledStore(n: number): Promise<{ store: Store; root: string; ms: Memory[]; skip: (ms: number) => void }> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const metaPath = path.join(root, ".meta.json");
  const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
  fs.writeFileSync(metaPath, `${JSON.stringify({ ...meta, settings: { ...meta.settings, layout: "sharded" } }, null, 2)}\n`);
  let offset = 0;
  const store = await Store.open(root, { nowMs: () => Date.now() + offset });
  const ms = Array.from({ length: n }, (_, i) => mem(`memory number ${i} about shard ${SHARDS[i % SHARDS.length]}`, `${newId().slice(0, -2)}${SHARDS[i % SHARDS.length]}`));
  await store.write((tx) => ms.map((m) => tx.putMemory(m)));
  // three in the flat top folder, written there by hand and indexed by a refresh
  for (let i = 0; i < 3; i++) {
    const m = mem(`a flat memory ${i}`, newId());
    fs.writeFileSync(path.join(root, "memories", `${m.id}.json`), `${JSON.stringify(m)}\n`);
  }
  await store.refresh(true);
  offset += 10_000;
  await store.refresh(true);
  assert.ok(planIsEmpty(await store.refresh(true)));
  return { store, root, ms, skip: (n) => void (offset += n) };
}

const ENV_KEYS = ["MEMSYNC_STAT_PARALLEL_MIN", "MEMSYNC_STAT_THREADS", "MEMSYNC_STAT_WORKER_FAULT", "MEMSYNC_STAT_WORKERS_REQUIRED"];
afterEach(() => {
  for (const k of ENV_KEYS) delete process.env[k];
});

/** The look status makes: through the threads' snapshot, and from the disk alone. */
async function bothPlans(store: Store) {
  process.env.MEMSYNC_STAT_PARALLEL_MIN = "0";
  process.env.MEMSYNC_STAT_THREADS ??= "1"; // whatever the load average (with none set, a busy machine starts no thread)
  // the threads must run (from source here), unless a test makes them fail
  if (!process.env.MEMSYNC_STAT_WORKER_FAULT) process.env.MEMSYNC_STAT_WORKERS_REQUIRED = "1";
  const ctx: RefreshContext = { fs: nodeFs, index: store.index, root: store.root, now: () => Date.now() + 10_000, codec: null };
  const pending = startSnapshot(store.root, store.index.fileCount());
  assert.ok(pending, "threads are started for the store (Bun, threshold 0)");
  // as status does its other work first (the index's folders among it): the threads start and take the folders (a few ms)
  const folders = readIndexFolders(store.index);
  await new Promise((r) => setTimeout(r, 300));
  // each shard folder judged settled or not as its read comes in, as status asks
  const seen = await pending.finish(shardSettledBy(folders));
  const now = Date.now() + 10_000;
  // the folders the plan through the threads still lists itself (a top folder whose recorded
  // listing stands is not listed again: its shard folders are the threads' listing's)
  const listed: string[] = [];
  const counting = { ...nodeFs, readdir: (p: string) => (listed.push(path.relative(store.root, p)), nodeFs.readdir(p)) };
  const viaThreads = planRefresh({ ...ctx, fs: counting, now: () => now, seen, folders }, true);
  const fromDisk = planRefresh({ ...ctx, now: () => now }, true);
  // and with no thread: each folder read whole once on this thread (status's look without threads)
  const onThisThread = planRefresh({ ...ctx, now: () => now, seen: new FolderReads(store.root), folders }, true);
  assert.deepEqual(onThisThread, fromDisk, "the look on this thread plans as the disk does");
  return { viaThreads, fromDisk, seen, listed };
}

/** The record folders a full refresh reads: the top folders there are and their shard folders. */
function recordDirs(root: string): string[] {
  const out: string[] = [];
  for (const top of ["memories", "relations", ".memsync/local/memories", ".memsync/local/relations"]) {
    const dir = path.join(root, top);
    if (!fs.existsSync(dir)) continue;
    out.push(dir);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory() && /^[0-9a-f]{2}$/.test(e.name)) out.push(path.join(dir, e.name));
  }
  return out;
}

describe("status's folders stat'ed by threads", () => {
  test("a settled store: every folder settled by the threads' sums, no row loaded, the plan the disk's", async () => {
    const { store } = await settledStore(40);
    try {
      const loads = countRowLoads(store);
      const { viaThreads, fromDisk, seen, listed } = await bothPlans(store);
      assert.equal(loads.n, 0, "the threads' sums are the index's: no folder compared row by row");
      loads.restore();
      assert.deepEqual(viaThreads, fromDisk);
      assert.deepEqual(listed, [], "no folder listed again: the threads' listing of the top folders stands");
      assert.ok(planIsEmpty(viaThreads));
      // the top folders and the five shard folders, each read whole
      assert.ok(seen.size >= 6);
      for (const shard of SHARDS) assert.ok(seen.get(`memories/${shard}`)?.sums, shard);
      assert.equal(seen.get("memories")?.shardsSettled, true, "every shard folder judged settled during the look: none visited after it");
    } finally {
      store.close();
    }
  });

  test("edits in place, a delete, a new file, temp files, links, a racy file, a file where a folder was: the same plan as from the disk", async () => {
    const { store, root, ms, skip } = await settledStore(40);
    try {
      const file = (m: Memory) => path.join(root, "memories", m.id.slice(-2), `${m.id}.json`);
      // an edit in place, same size, its mtime moved back (cp -p): only the stat's sums tell
      const a = file(ms[0]!);
      fs.writeFileSync(a, fs.readFileSync(a, "utf8").replace("memory number 0", "MEMORY NUMBER 0"));
      fs.utimesSync(a, new Date(), (store.index.file(path.relative(root, a))!.mtime - 60_000) / 1000);
      // an edit in place that grows the file
      fs.appendFileSync(file(ms[1]!), " ");
      // a delete and a new record file (their folders' mtimes move: listed whole)
      fs.rmSync(file(ms[2]!));
      const extra = mem("a new one", `${newId().slice(0, -2)}c9`);
      fs.writeFileSync(path.join(root, "memories", "c9", `${extra.id}.json`), `${JSON.stringify(extra)}\n`);
      // temp files, links (to a folder, and a record name linking to a record file), a stray folder
      fs.writeFileSync(path.join(root, "memories", "d0", `.${newId()}.json.abc123${TEMP_SUFFIX}`), "{");
      fs.symlinkSync(tempDir(), path.join(root, "memories", "e1", "elsewhere"));
      fs.symlinkSync(file(ms[4]!), path.join(root, "memories", "a7", `${newId().slice(0, -2)}a7.json`));
      // and in the top folder: a link to a folder (it stays; later plans take it from the threads' listing)
      fs.symlinkSync(tempDir(), path.join(root, "memories", "top-link"));
      fs.mkdirSync(path.join(root, "memories", "ff"));
      fs.writeFileSync(path.join(root, "memories", "f0"), "a file named like a shard folder");
      const first = await bothPlans(store);
      assert.deepEqual(first.viaThreads, first.fromDisk);
      assert.equal(first.seen.get("memories")?.shardsSettled, false);
      assert.ok(first.viaThreads.upserts.length >= 3, "the edits and the new file are found");
      assert.ok(first.viaThreads.links.length >= 2 && first.viaThreads.temps.length === 1 && first.viaThreads.deletes.length === 1);

      // applied (the folders' new state trusted later), then a racily clean rewrite of one file
      await store.refresh(true);
      skip(10_000);
      await store.refresh(true);
      const b = file(ms[5]!);
      fs.writeFileSync(b, fs.readFileSync(b, "utf8").replace("memory number 5", "MEMORY NUMBER 5"));
      await store.refresh(true); // indexed right after its write: racily clean
      const racy = await bothPlans(store);
      assert.deepEqual(racy.viaThreads, racy.fromDisk);
      // and a temp file in a settled folder, found while its folder is compared by its sums
      const second = await bothPlans(store);
      assert.deepEqual(second.viaThreads, second.fromDisk);
      assert.equal(second.viaThreads.temps.length, 1);
      assert.ok(second.viaThreads.links.includes("memories/top-link"), "the top folder's link, from the threads' listing");
      assert.ok(!second.listed.includes("memories"), "the top folder was not listed again");
    } finally {
      store.close();
    }
  });

  test("threads started before the store is opened: stopped for a small store, taken for the store they read (an edit made before they started found)", async () => {
    const { store, root, ms } = await settledStore(40);
    try {
      const a = path.join(root, "memories", ms[0]!.id.slice(-2), `${ms[0]!.id}.json`);
      fs.appendFileSync(a, " ");
      process.env.MEMSYNC_STAT_THREADS = "1";
      process.env.MEMSYNC_STAT_PARALLEL_MIN = "1000";
      startEarlySnapshot(root);
      assert.equal(startSnapshot(root, store.index.fileCount()), null, "below the threshold: no threads, the early ones stopped");
      process.env.MEMSYNC_STAT_PARALLEL_MIN = "0";
      process.env.MEMSYNC_STAT_WORKERS_REQUIRED = "1";
      startEarlySnapshot(root);
      const { viaThreads, fromDisk } = await bothPlans(store);
      assert.deepEqual(viaThreads, fromDisk);
      assert.equal(viaThreads.upserts.length, 1, "the edit is found");
    } finally {
      store.close();
    }
  });

  test("a shard folder renamed by hand (as many shard folders as recorded, one of them new) or removed: the same plan as from the disk", async () => {
    const { store, root, skip } = await settledStore(40);
    try {
      fs.renameSync(path.join(root, "memories", "e1"), path.join(root, "memories", "ee"));
      skip(10_000);
      const renamed = await bothPlans(store);
      assert.deepEqual(renamed.viaThreads, renamed.fromDisk);
      assert.ok(renamed.viaThreads.upserts.length >= 8 && renamed.viaThreads.deletes.length >= 8, "the moved records found at their new place, gone from the old");
      await store.refresh(true);
      skip(10_000);
      await store.refresh(true);
      assert.equal((await bothPlans(store)).seen.get("memories")?.shardsSettled, true, "settled again once applied");
      // a recorded shard folder gone, its files with it, and the top folder's mtime put back (as
      // a copy that keeps times would leave it): its recorded listing seems to stand
      const top = path.join(root, "memories");
      const before = fs.statSync(top);
      fs.rmSync(path.join(top, "a7"), { recursive: true });
      fs.utimesSync(top, before.atime, before.mtime);
      skip(10_000);
      const removed = await bothPlans(store);
      assert.deepEqual(removed.viaThreads, removed.fromDisk);
      assert.ok(removed.viaThreads.deletes.length >= 8);
    } finally {
      store.close();
    }
  });

  for (const fault of ["start", "midway", "hang"]) {
    test(`a thread that fails (${fault}): its folders are taken again, the plan is the disk's`, async () => {
      const { store, root, ms } = await settledStore(40);
      try {
        fs.appendFileSync(path.join(root, "memories", ms[3]!.id.slice(-2), `${ms[3]!.id}.json`), " ");
        process.env.MEMSYNC_STAT_WORKER_FAULT = fault;
        process.env.MEMSYNC_STAT_THREADS = "2";
        const { viaThreads, fromDisk, seen } = await bothPlans(store);
        assert.deepEqual(viaThreads, fromDisk);
        assert.equal(viaThreads.upserts.length, 1);
        // every folder read whole, those the failed thread took included
        const dirs = recordDirs(root);
        assert.ok(dirs.length >= 7);
        for (const d of dirs) assert.ok(seen.get(path.relative(root, d))?.sums, d);
      } finally {
        store.close();
      }
    });
  }

  test("the compiled binary's threads run, and its status is the single thread's, on a store with problems", async () => {
    const { store, root, ms } = await settledStore(40);
    store.close();
    // a corrupt record file, a relation to nothing would need the API: a link and a temp file will do
    fs.writeFileSync(path.join(root, "memories", "b8", `${newId().slice(0, -2)}b8.json`), "{ not json");
    fs.writeFileSync(path.join(root, "memories", "d0", `.${newId()}.json.abc123${TEMP_SUFFIX}`), "{");
    fs.symlinkSync(tempDir(), path.join(root, "memories", "e1", "elsewhere"));
    fs.appendFileSync(path.join(root, "memories", ms[6]!.id.slice(-2), `${ms[6]!.id}.json`), " ");
    // past the racy window first: a status right after an edit that left a file unlike its
    // canonical text finds it again on its next run, so the two stores' journals would depend on
    // how soon after the edit each first ran
    await new Promise((r) => setTimeout(r, 2200));
    const copy = path.join(tempDir(), "store");
    fs.cpSync(root, copy, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    // both stores' changes applied by a first status, then compared
    const run = (dir: string, env: Record<string, string>) => {
      const r = memsync(["--store", dir, "status", "--json"], { env });
      assert.equal(r.code === 0 || r.code === 1, true, r.stderr);
      return JSON.parse(r.stdout.replaceAll(dir, "<store>"));
    };
    const threads = { MEMSYNC_STAT_PARALLEL_MIN: "0", MEMSYNC_STAT_THREADS: "1", MEMSYNC_STAT_WORKERS_REQUIRED: "1" };
    const single = { MEMSYNC_STAT_THREADS: "0" };
    const a1 = run(root, threads);
    const b1 = run(copy, single);
    assert.deepEqual(a1, b1);
    assert.equal(a1.health, "degraded");
    assert.equal(a1.problems.length, 1);
    assert.equal(a1.temp_files.length, 1);
    assert.equal(a1.links.length, 1);
    await new Promise((r) => setTimeout(r, 2200)); // what the first status indexed trusted: the next look settles by sums
    assert.deepEqual(run(root, threads), run(copy, single));
    assert.deepEqual(run(root, threads), run(root, single));
  });
});

describe("status's threads and a flat top folder", () => {
  test("no shard name under a folder without subfolders is read; a shard folder made there, before or while the threads read, is found as from the disk", async () => {
    const { store, root } = await settledStore(40);
    try {
      const localTop = path.join(root, ".memsync/local/memories");
      fs.mkdirSync(localTop, { recursive: true });
      const flat = mem("a local memory, flat", newId());
      fs.writeFileSync(path.join(localTop, `${flat.id}.json`), `${JSON.stringify(flat)}\n`);
      await store.refresh(true);
      const first = await bothPlans(store);
      assert.deepEqual(first.viaThreads, first.fromDisk);
      assert.deepEqual([...first.seen.keys()].filter((p) => p.startsWith(".memsync/local/memories/")), [], "the flat folder's 256 shard names are not read");
      assert.ok(first.seen.get("memories/a7")?.sums, "a sharded top folder's are");
      // a shard folder made by hand: the next snapshot reads its names again
      const sharded = mem("a local memory in a shard folder", `${newId().slice(0, -2)}5c`);
      fs.mkdirSync(path.join(localTop, "5c"));
      fs.writeFileSync(path.join(localTop, "5c", `${sharded.id}.json`), `${JSON.stringify(sharded)}\n`);
      const second = await bothPlans(store);
      assert.deepEqual(second.viaThreads, second.fromDisk);
      assert.ok(second.viaThreads.upserts.some((u) => u.row.path === `.memsync/local/memories/5c/${sharded.id}.json`));
      assert.ok(second.seen.get(".memsync/local/memories/5c")?.sums);
      // made while the threads read a folder whose names they were not given
      await store.refresh(true);
      const relTop = path.join(root, ".memsync/local/relations");
      fs.mkdirSync(relTop, { recursive: true });
      process.env.MEMSYNC_STAT_PARALLEL_MIN = "0";
      process.env.MEMSYNC_STAT_THREADS = "1";
      process.env.MEMSYNC_STAT_WORKERS_REQUIRED = "1";
      const pending = startSnapshot(store.root, store.index.fileCount());
      assert.ok(pending);
      const late = mem("made while the threads read", `${newId().slice(0, -2)}6d`);
      fs.mkdirSync(path.join(localTop, "6d"));
      fs.writeFileSync(path.join(localTop, "6d", `${late.id}.json`), `${JSON.stringify(late)}\n`);
      const folders = readIndexFolders(store.index);
      const seen = await pending.finish(shardSettledBy(folders));
      const now = Date.now() + 10_000;
      const ctx: RefreshContext = { fs: nodeFs, index: store.index, root: store.root, now: () => now, codec: null };
      const viaThreads = planRefresh({ ...ctx, seen, folders }, true);
      assert.deepEqual(viaThreads, planRefresh(ctx, true));
      assert.ok(viaThreads.upserts.some((u) => u.row.path === `.memsync/local/memories/6d/${late.id}.json`));
    } finally {
      store.close();
    }
  });
});
