import * as v from "valibot";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { isMemsyncError } from "../../src/core/errors.ts";
import { shardOf } from "../../src/core/ids.ts";
import { newId } from "../../src/core/new-id.ts";
import { type Memory, MemorySchema, memoryToJson } from "../../src/core/model/memory.ts";
import { relationToJson } from "../../src/core/model/relation.ts";
import { createMemory, createRelation, touchMemory, updateMemory } from "../../src/core/records.ts";
import { searchTerms } from "../../src/core/search-query.ts";
import { touchMemories } from "../../src/ops/mark.ts";
import { saveMemory } from "../../src/ops/save.ts";
import { writeAtomic } from "../../src/store/atomic-write.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { candidatePaths, recordPath } from "../../src/store/layout.ts";
import { loadAll } from "../../src/store/load-all.ts";
import { type Plan, planIsEmpty } from "../../src/store/refresh.ts";
import { IndexDb } from "../../src/store/index-db.ts";
import { storedTerms } from "../../src/core/memory-terms.ts";
import { Store } from "../../src/store/store.ts";
import { memsyncJson, newStore, snapshot, tempDir } from "../helpers/env.ts";

// The in-process Store over real files in temp folders. Changes "behind the store's back" are
// made with plain fs calls, as git or an editor would make them.
//
// Determinism: the index trusts a folder or file only once it was looked at more than RACY_MS
// after its last change (src/store/refresh.ts). settle() moves the store's clock (opts.nowMs)
// forward and refreshes, so everything indexed so far is trusted and a quick refresh skips it;
// then it waits until the file system's clock has passed every recorded folder mtime, so the
// next change is guaranteed to move the mtime of the folder it touches. Each detection test
// therefore exercises the quick path (unchanged folders skipped), not a blanket rescan.

const T0 = 1_790_000_000;
let seq = 0;

/** A new valid memory; created_at increases so list order is known. */
function mem(content: string, extra: Record<string, unknown> = {}, id = newId()): Memory {
  seq += 1;
  return createMemory({ content, ...extra }, id, { now: T0 + seq, machine: "test-machine", user: "tester" });
}

/** A store made by writeStoreSkeleton (the files `memsync init` writes, without git). */
function skeletonStore(settings?: Record<string, unknown>): string {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  if (settings) editSettings(root, settings);
  return root;
}

function editSettings(root: string, settings: Record<string, unknown>): void {
  const metaPath = path.join(root, ".meta.json");
  const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
  meta.settings = { ...meta.settings, ...settings };
  fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
}

interface Clock {
  now: () => number;
  skip: (ms: number) => void;
}

function clock(): Clock {
  let offset = 0;
  return { now: () => Date.now() + offset, skip: (ms) => void (offset += ms) };
}

async function openStore(root: string, clk?: Clock): Promise<Store> {
  return Store.open(root, clk ? { nowMs: clk.now } : {});
}
const openBare = openStore;

async function save(store: Store, ...ms: Memory[]): Promise<string[]> {
  return store.write((tx) => ms.map((m) => tx.putMemory(m)));
}

async function listIds(store: Store): Promise<string[]> {
  await store.refresh(false, ["memory"]);
  return (await store.list({}, null)).memories.map((m) => m.id).sort();
}

/** Refresh (quick), then search, as `memsync search` does. */
async function searchIds(store: Store, query: string): Promise<string[]> {
  await store.refresh(false, ["memory"]);
  return (await store.search(searchTerms(query).match, {}, null)).hits.map((h) => h.memory.id).sort();
}

const sorted = (ids: string[]) => [...ids].sort();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function mtimeMs(p: string): number {
  return Number(fs.statSync(p, { bigint: true }).mtimeNs / 1_000_000n);
}

/** Every folder under memories/ and relations/ (for their mtimes). */
function recordDirs(root: string): string[] {
  const out: string[] = [];
  for (const top of ["memories", "relations"]) {
    const dir = path.join(root, top);
    if (!fs.existsSync(dir)) continue;
    out.push(dir);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) out.push(path.join(dir, e.name));
  }
  return out;
}

/** Wait until a file written now gets an mtime later than `ms` (timestamps are coarse). */
async function fsClockPast(ms: number, probeDir: string): Promise<void> {
  const probe = path.join(probeDir, "clock-probe");
  for (let i = 0; i < 2000; i++) {
    fs.writeFileSync(probe, String(i));
    if (mtimeMs(probe) > ms) return;
    await sleep(2);
  }
  throw new Error("the file system clock did not move");
}

/** Make everything indexed so far trusted, check a quick refresh then skips it all, and let the fs clock move on. */
async function settle(store: Store, clk: Clock): Promise<void> {
  clk.skip(10_000);
  await store.refresh();
  const again: Plan = await store.refresh();
  assert.ok(planIsEmpty(again), `a second refresh should find nothing to do: ${JSON.stringify(again)}`);
  await fsClockPast(Math.max(...recordDirs(store.root).map(mtimeMs)), path.dirname(store.root));
}

/** Put a record file in place the way git or a person would: plain fs calls. */
function dropFile(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** Replace a file by writing a sibling and renaming it over (what git checkout does). */
function replaceByRename(root: string, rel: string, text: string): void {
  const staging = path.join(root, "staging-file");
  fs.writeFileSync(staging, text);
  fs.renameSync(staging, path.join(root, rel));
}

function idWithShard(shard: string): string {
  for (;;) {
    const id = newId();
    if (shardOf(id) === shard) return id;
  }
}

function walk(dir: string, skip: (rel: string) => boolean = () => false, rel = ""): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (skip(r)) continue;
    if (e.isDirectory()) out.push(...walk(dir, skip, r));
    else out.push(r);
  }
  return out;
}

describe("Store: write and read", () => {
  test("on a store made by memsync init: put, then readMemory, list and search", { timeout: 120_000 }, async () => {
    const root = newStore();
    const a = mem("Use cursor pagination for list endpoints", { tags: ["api"], type: "decision" });
    const b = mem("PostgreSQL JSONB columns index with GIN", { tags: ["db"], entities: ["PostgreSQL"] });
    const c = mem("Prefer small pull requests", { tags: ["process"], type: "preference" });
    const store = await openStore(root);
    try {
      const paths = await save(store, a, b, c);
      assert.deepEqual(paths, [a, b, c].map((m) => `memories/${m.id}.json`));
      for (const m of [a, b, c]) {
        assert.equal(fs.readFileSync(path.join(root, `memories/${m.id}.json`), "utf8"), memoryToJson(m), "the file is the canonical JSON");
        const hit = await store.readMemory(m.id);
        assert.ok(hit?.result.ok);
        assert.deepEqual(hit.result.record, m);
      }
      const listed = (await store.list({}, null));
      assert.equal(listed.total, 3);
      assert.deepEqual(listed.memories.map((m) => m.id), [c.id, b.id, a.id], "newest first");
      assert.deepEqual((await store.list({}, 2)).memories.map((m) => m.id), [c.id, b.id]);
      assert.deepEqual((await store.list({ tags: ["db"] }, null)).memories.map((m) => m.id), [b.id]);
      assert.deepEqual((await store.list({ types: ["preference"] }, null)).memories.map((m) => m.id), [c.id]);
      assert.deepEqual(await searchIds(store, "postgres"), [b.id]);
      assert.deepEqual(await searchIds(store, "pagination endpoints"), [a.id]);
      assert.deepEqual(await searchIds(store, "pagination postgres"), []);
      assert.equal(await store.readMemory(newId()), null);
    } finally {
      store.close();
    }
    // a second process-like open sees the same
    const again = await openStore(root);
    try {
      assert.deepEqual(await listIds(again), sorted([a.id, b.id, c.id]));
      assert.deepEqual(await searchIds(again, "small requests"), [c.id]);
    } finally {
      again.close();
    }
  });

  test("a rewrite replaces the record in files and index; a remove deletes both", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    try {
      const a = mem("alpha original words");
      await save(store, a);
      const edited = updateMemory(a, { content: "alpha replacement words" }, T0 + 100).memory;
      await save(store, edited);
      assert.deepEqual(await searchIds(store, "replacement"), [a.id]);
      assert.deepEqual(await searchIds(store, "original"), []);
      const hit = await store.readMemory(a.id);
      assert.ok(hit?.result.ok);
      assert.equal(hit.result.record.content, "alpha replacement words");
      assert.equal(await store.write((tx) => tx.removeMemory(a.id)), true);
      assert.equal(fs.existsSync(path.join(root, `memories/${a.id}.json`)), false);
      assert.deepEqual(await listIds(store), []);
      assert.deepEqual(await searchIds(store, "alpha"), []);
    } finally {
      store.close();
    }
  });
});

// each twice: as a command's store sees them (its quick refresh stats the folders), and as a
// server's store kept open does, whose quick refresh is skipped while its watch saw no change
for (const watched of [false, true]) describe(`Store: the index notices changes made behind its back${watched ? " (a watched store, as a server keeps)" : ""}`, () => {
  const openStore = async (root: string, clk?: Clock): Promise<Store> => {
    const store = await openBare(root, clk);
    if (watched) await store.watchFolders();
    return store;
  };

  test("flat files: one dropped in, one replaced by rename, one deleted", async () => {
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    try {
      const a = mem("alpha apple");
      const b = mem("bravo banana");
      const c = mem("charlie cherry");
      await save(store, a, b, c);
      await settle(store, clk);

      const d = mem("delta date");
      dropFile(root, `memories/${d.id}.json`, memoryToJson(d));
      assert.deepEqual(await listIds(store), sorted([a.id, b.id, c.id, d.id]));
      assert.deepEqual(await searchIds(store, "date"), [d.id]);
      await settle(store, clk);

      const b2 = updateMemory(b, { content: "bravo blueberry" }, T0 + 500).memory;
      replaceByRename(root, `memories/${b.id}.json`, memoryToJson(b2));
      assert.deepEqual(await listIds(store), sorted([a.id, b.id, c.id, d.id]));
      assert.deepEqual(await searchIds(store, "blueberry"), [b.id]);
      assert.deepEqual(await searchIds(store, "banana"), []);
      const hit = await store.readMemory(b.id);
      assert.ok(hit?.result.ok);
      assert.equal(hit.result.record.content, "bravo blueberry");
      await settle(store, clk);

      fs.unlinkSync(path.join(root, `memories/${c.id}.json`));
      assert.deepEqual(await listIds(store), sorted([a.id, b.id, d.id]));
      assert.deepEqual(await searchIds(store, "cherry"), []);
      assert.equal(await store.readMemory(c.id), null);
      assert.deepEqual(store.index.problems(), []);
    } finally {
      store.close();
    }
    // what the index holds is what a load of the files finds
    const loaded = loadAll(nodeFs, root);
    const fresh = await openStore(root);
    try {
      assert.deepEqual(await listIds(fresh), [...loaded.memories.keys()].sort());
    } finally {
      fresh.close();
    }
  });

  test("shard folders: files dropped in a new and an existing shard, one replaced, a whole shard removed", async () => {
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    try {
      const a = mem("alpha flat");
      await save(store, a);
      await settle(store, clk);

      const x = mem("xray xylophone");
      const xs = shardOf(x.id);
      dropFile(root, `memories/${xs}/${x.id}.json`, memoryToJson(x));
      assert.deepEqual(await listIds(store), sorted([a.id, x.id]));
      assert.deepEqual(await searchIds(store, "xylophone"), [x.id]);
      await settle(store, clk);

      const y = mem("yankee yoghurt", {}, idWithShard(xs));
      dropFile(root, `memories/${xs}/${y.id}.json`, memoryToJson(y));
      assert.deepEqual(await listIds(store), sorted([a.id, x.id, y.id]));
      assert.deepEqual(await searchIds(store, "yoghurt"), [y.id]);
      await settle(store, clk);

      const x2 = updateMemory(x, { content: "xray xenon" }, T0 + 900).memory;
      replaceByRename(root, `memories/${xs}/${x.id}.json`, memoryToJson(x2));
      assert.deepEqual(await searchIds(store, "xenon"), [x.id]);
      assert.deepEqual(await searchIds(store, "xylophone"), []);
      await settle(store, clk);

      let z = mem("zulu zebra");
      while (shardOf(z.id) === xs) z = mem("zulu zebra");
      dropFile(root, `memories/${shardOf(z.id)}/${z.id}.json`, memoryToJson(z));
      assert.deepEqual(await listIds(store), sorted([a.id, x.id, y.id, z.id]));
      await settle(store, clk);

      fs.rmSync(path.join(root, "memories", xs), { recursive: true });
      assert.deepEqual(await listIds(store), sorted([a.id, z.id]));
      assert.deepEqual(await searchIds(store, "xray"), []);
      assert.deepEqual(await searchIds(store, "yankee"), []);
      assert.deepEqual(await searchIds(store, "zebra"), [z.id]);
      assert.equal(await store.readMemory(x.id), null);
      assert.deepEqual(store.index.problems(), []);
    } finally {
      store.close();
    }
  });

  test("a relation file dropped in shows up in relationsOf", async () => {
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    try {
      const a = mem("alpha");
      const b = mem("bravo");
      await save(store, a, b);
      await settle(store, clk);
      const r = createRelation({ from: a.id, to: b.id, type: "supports" }, newId(), T0);
      dropFile(root, `relations/${r.id}.json`, relationToJson(r));
      await store.refresh();
      assert.deepEqual((await store.relationsOf(a.id)).outgoing, [r]);
      assert.deepEqual((await store.relationsOf(b.id)).incoming, [r]);
      await settle(store, clk);
      fs.unlinkSync(path.join(root, `relations/${r.id}.json`));
      await store.refresh();
      assert.deepEqual((await store.relationsOf(a.id)).outgoing, []);
    } finally {
      store.close();
    }
  });

  test("changes within the same timestamp tick as the last indexed state are still found (racy-clean guard)", async () => {
    // Coarse timestamps: a change made in the same tick leaves a folder's (or file's) mtime as the
    // index recorded it. utimes puts the old mtime back to make that happen every time.
    const root = skeletonStore();
    // a clock stopped before the writes: nothing this test indexes is ever past its racy window,
    // whatever the machine's load (with the real one, a save descheduled for over RACY_MS between
    // its file and its index row left the row trusted, and the rewrite below unseen)
    const stopped = Date.now();
    const store = await openStore(root, { now: () => stopped, skip: () => {} });
    const sameTick = (p: string, ms: number) => fs.utimesSync(p, new Date(), (ms + 0.5) / 1000);
    try {
      const a = mem("alpha first");
      await save(store, a);
      const dir = path.join(root, "memories");
      const recorded = store.index.dir("memories");
      assert.ok(recorded, "the write recorded the folder");
      const b = mem("bravo slipped in");
      dropFile(root, `memories/${b.id}.json`, memoryToJson(b));
      sameTick(dir, recorded.mtime);
      assert.equal(mtimeMs(dir), recorded.mtime);
      assert.deepEqual(await listIds(store), sorted([a.id, b.id]));

      // a file rewritten in place, same size, same mtime, same inode: read from the file, not the index
      const file = path.join(root, `memories/${a.id}.json`);
      const row = store.index.file(`memories/${a.id}.json`);
      assert.ok(row);
      const text = fs.readFileSync(file, "utf8");
      const swapped = text.replace("alpha first", "alpha FIRST");
      assert.equal(swapped.length, text.length);
      fs.writeFileSync(file, swapped);
      sameTick(file, row.mtime);
      assert.equal(fs.statSync(file).ino, row.ino);
      assert.equal(fs.statSync(file).size, row.size);
      const hit = await store.readMemory(a.id);
      assert.ok(hit?.result.ok);
      assert.equal(hit.result.record.content, "alpha FIRST");
    } finally {
      store.close();
    }
  });

  test("a write into a folder too freshly changed to trust skips listing it, and the next read still finds what changed outside in the same tick", async () => {
    const root = skeletonStore();
    const store = await openStore(root); // the real clock: each write leaves its folder untrusted
    const sameTick = (p: string, ms: number) => fs.utimesSync(p, new Date(), (ms + 0.5) / 1000);
    const read = (p: string) => fs.readFileSync(path.join(root, p), "utf8");
    try {
      const a = mem("alpha first");
      const b = mem("bravo second");
      await save(store, a, b);
      const dir = path.join(root, "memories");
      const written = store.index.dir("memories");
      assert.ok(written);
      // as the write left it, whatever the machine's load: listed a moment after its last change
      store.index.setDir("memories", written.mtime, written.mtime + 1);
      const recorded = store.index.dir("memories")!;
      // behind the store's back, in the folder's recorded tick: a file added, another replaced
      const c = mem("charlie slipped in");
      dropFile(root, `memories/${c.id}.json`, memoryToJson(c));
      const bEdited = updateMemory(b, { content: "bravo edited by hand" }, T0 + 60).memory;
      fs.writeFileSync(path.join(root, "staging-file"), memoryToJson(bEdited));
      fs.renameSync(path.join(root, "staging-file"), path.join(dir, `${b.id}.json`));
      sameTick(dir, recorded.mtime);
      const journalBefore = fs.readFileSync(path.join(root, ".memsync/journal.jsonl"), "utf8");
      // a touch writes into that folder without listing it; its own change is indexed
      await touchMemories(store, { storeRoot: root, hostName: "test-host", user: "tester" }, [a.id], false);
      const after = store.index.dir("memories");
      assert.ok(after && after.checked_at === recorded.checked_at, "recorded with its last listing's time, so still untrusted");
      // the next read lists the folder whole: the added file and the replaced one are found, and
      // journaled as changed outside memsync, with the text found
      assert.deepEqual(await listIds(store), sorted([a.id, b.id, c.id]));
      const bRead = await store.readMemory(b.id);
      assert.ok(bRead?.result.ok);
      assert.equal(bRead.result.record.content, "bravo edited by hand");
      const entries = fs.readFileSync(path.join(root, ".memsync/journal.jsonl"), "utf8").slice(journalBefore.length).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(entries.map((e) => e.op), ["touch", "edit"]);
      assert.deepEqual(entries[1].paths, sorted([`memories/${b.id}.json`, `memories/${c.id}.json`]));
      assert.equal(entries[1].files[`memories/${b.id}.json`], read(`memories/${b.id}.json`));
      assert.equal(store.index.file(`memories/${a.id}.json`)?.problem, null);
    } finally {
      store.close();
    }
  });

  test("an edit made in place (same inode) is read from the file and found by a full refresh", async () => {
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    try {
      const a = mem("alpha before");
      await save(store, a);
      await settle(store, clk);
      const edited = updateMemory(a, { content: "alpha after the editor saved it" }, T0 + 50).memory;
      const file = path.join(root, `memories/${a.id}.json`);
      const ino = fs.statSync(file).ino;
      fs.writeFileSync(file, memoryToJson(edited));
      assert.equal(fs.statSync(file).ino, ino);
      const hit = await store.readMemory(a.id);
      assert.ok(hit?.result.ok);
      assert.equal(hit.result.record.content, "alpha after the editor saved it", "readMemory does not serve a stale index row");
      await store.refresh(true);
      assert.deepEqual(await searchIds(store, "editor"), [a.id]);
      assert.deepEqual(await searchIds(store, "before"), []);
    } finally {
      store.close();
    }
  });
});

describe("Store: a watched store (a server's) skips the quick refresh only when nothing changed", () => {
  test("no change: no stat at all; a file dropped in, or another connection's change to the index, and the next refresh looks", async (t) => {
    if (process.platform !== "linux") return t.skip("inotify is Linux's");
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    await store.watchFolders();
    const stat = nodeFs.stat;
    let stats = 0;
    nodeFs.stat = (p) => (stats++, stat(p));
    try {
      const a = mem("alpha watched");
      await save(store, a);
      await settle(store, clk);
      stats = 0;
      assert.deepEqual(await listIds(store), [a.id]);
      assert.equal(stats, 0, "an unchanged store is not looked at");

      const b = mem("bravo dropped");
      dropFile(root, `memories/${b.id}.json`, memoryToJson(b));
      assert.deepEqual(await listIds(store), sorted([a.id, b.id]));
      assert.ok(stats > 0);
      await settle(store, clk);

      // another process empties the index in place (no file changes): the next refresh rebuilds
      const other = await openBare(root);
      try {
        other.index.transaction(() => other.index.clear());
      } finally {
        other.close();
      }
      assert.deepEqual(await listIds(store), sorted([a.id, b.id]));
    } finally {
      nodeFs.stat = stat;
      store.close();
    }
  });
});

describe("Store: bad files are reported, left untouched, and do not stop the rest", () => {
  function badStore() {
    const root = skeletonStore();
    const good = [mem("good one alpha"), mem("good two bravo")];
    const sharded = mem("good sharded charlie");
    for (const m of good) dropFile(root, `memories/${m.id}.json`, memoryToJson(m));
    dropFile(root, `memories/${shardOf(sharded.id)}/${sharded.id}.json`, memoryToJson(sharded));
    const corruptId = newId();
    const invalidId = newId();
    const mismatchId = newId();
    const shardCorruptId = newId();
    const other = mem("i claim another id");
    const bad: Record<string, string> = {
      [`memories/${corruptId}.json`]: `{"id": "${corruptId}", "content": "cut off in the mid`,
      [`memories/${invalidId}.json`]: `${JSON.stringify({ id: invalidId, content: "", created_at: 1, last_used: 1, status: "bogus" }, null, 2)}\n`,
      [`memories/${mismatchId}.json`]: memoryToJson(other),
      [`memories/${shardOf(shardCorruptId)}/${shardCorruptId}.json`]: "\u0000\u0001 not json at all",
      "memories/notes.json": memoryToJson(mem("a note under a name that is not an id")),
    };
    for (const [rel, text] of Object.entries(bad)) dropFile(root, rel, text);
    return { root, goodIds: [...good, sharded].map((m) => m.id), bad, corruptId, invalidId, mismatchId, otherId: other.id, sharded };
  }

  function assertUntouched(root: string, bad: Record<string, string>): void {
    for (const [rel, text] of Object.entries(bad)) {
      const p = path.join(root, rel);
      assert.ok(fs.existsSync(p), `${rel} was deleted`);
      assert.equal(fs.readFileSync(p, "utf8"), text, `${rel} was changed`);
    }
  }

  test("index.problems() names each one; list and search carry the good ones", async () => {
    const { root, goodIds, bad, corruptId, mismatchId, otherId, invalidId } = badStore();
    const store = await openStore(root);
    try {
      assert.deepEqual(await listIds(store), sorted(goodIds));
      assert.deepEqual(await searchIds(store, "charlie"), [goodIds[2]!]);
      assert.deepEqual(await searchIds(store, "claim"), [], "a record under the wrong name is not indexed");
      const problems = new Map(store.index.problems().map((p) => [p.path, p.problem ?? ""]));
      assert.deepEqual([...problems.keys()].sort(), Object.keys(bad).sort());
      assert.match(problems.get(`memories/${corruptId}.json`)!, /malformed JSON/);
      assert.match(problems.get(`memories/${invalidId}.json`)!, /^invalid memory: .*content/);
      assert.match(problems.get(`memories/${mismatchId}.json`)!, new RegExp(`id ${otherId} does not match the file name`));
      assert.match(problems.get("memories/notes.json")!, /file name is not <uuid>\.json/);
      assert.equal(store.index.memoryCount(), goodIds.length);
      const read = await store.readMemory(corruptId);
      assert.ok(read && !read.result.ok);
      assert.match(read.result.problem, /malformed JSON/);
      const mis = await store.readMemory(mismatchId);
      assert.ok(mis && !mis.result.ok);
    } finally {
      store.close();
    }
    assertUntouched(root, bad);
  });

  test("writes refuse to use them and never overwrite them; other writes go on", async () => {
    const { root, bad, corruptId, mismatchId, invalidId } = badStore();
    const store = await openStore(root);
    const env = { storeRoot: root, hostName: "host", user: "tester", machineOverride: "test-machine" };
    const expectCode = async (p: Promise<unknown>, code: string) => {
      await assert.rejects(p, (e: unknown) => isMemsyncError(e) && e.code === code);
    };
    try {
      await expectCode(store.write((tx) => tx.memory(corruptId)), "corrupt");
      await expectCode(touchMemories(store, env, [corruptId], false), "corrupt");
      await expectCode(touchMemories(store, env, [mismatchId], false), "corrupt");
      await expectCode(touchMemories(store, env, [invalidId], false), "corrupt");
      await expectCode(saveMemory(store, env, { id: corruptId, content: "overwrite me" }), "conflict");
      const fresh = await saveMemory(store, env, { content: "a new good one delta" });
      assert.deepEqual(await searchIds(store, "delta"), [fresh.memory.id]);
      await store.rebuildIndex();
      assert.equal(store.index.problems().length, Object.keys(bad).length);
    } finally {
      store.close();
    }
    assertUntouched(root, bad);
  });

  test("memsync status reports them (degraded) and leaves them byte for byte", { timeout: 120_000 }, async () => {
    const { root, goodIds, bad } = badStore();
    const before = snapshot(root, (rel) => rel === ".memsync");
    const status = memsyncJson(["status", "--store", root]);
    assert.equal(status.health, "degraded");
    assert.deepEqual(status.problems.map((p: { path: string }) => p.path).sort(), Object.keys(bad).sort());
    assert.equal(status.memories.total, goodIds.length);
    assert.deepEqual(status.temp_files, []);
    const listed = memsyncJson(["list", "--store", root, "--limit", "0"]);
    assert.equal(listed.total, goodIds.length);
    assert.deepEqual(snapshot(root, (rel) => rel === ".memsync"), before, "status and list changed files");
  });

  test("a bad file that is fixed (replaced by a valid record) is loaded", async () => {
    const { root, corruptId } = badStore();
    const store = await openStore(root);
    try {
      await store.refresh();
      const fixed = mem("repaired echo", {}, corruptId);
      replaceByRename(root, `memories/${corruptId}.json`, memoryToJson(fixed));
      await store.refresh();
      assert.deepEqual(await searchIds(store, "repaired"), [corruptId]);
      assert.ok(!store.index.problems().some((p) => p.path === `memories/${corruptId}.json`));
    } finally {
      store.close();
    }
  });

  test("loadAll loads every good record and reports each bad file once", () => {
    const { root, goodIds, bad, sharded } = badStore();
    const a = goodIds[0]!;
    const rel = createRelation({ from: a, to: goodIds[1]!, type: "related" }, newId(), T0);
    dropFile(root, `relations/${rel.id}.json`, relationToJson(rel));
    dropFile(root, `relations/${newId()}.json`, "{ broken");
    // the same memory twice (flat and sharded): the second copy is a problem, not a second record
    dropFile(root, `memories/${sharded.id}.json`, memoryToJson(sharded));
    // a temp file of an interrupted write is not a record and not a problem
    dropFile(root, `memories/.${a}.json.abc123.tmp`, "{ half");
    const snap = snapshot(root);
    const loaded = loadAll(nodeFs, root);
    assert.deepEqual([...loaded.memories.keys()].sort(), sorted(goodIds));
    for (const m of loaded.memories.values()) assert.ok(v.safeParse(MemorySchema, m).success);
    assert.deepEqual([...loaded.relations.keys()], [rel.id]);
    assert.deepEqual(loaded.relations.get(rel.id), rel);
    const problemPaths = loaded.problems.map((p) => p.path).sort();
    const expected = [...Object.keys(bad), `memories/${shardOf(sharded.id)}/${sharded.id}.json`, ...walk(root).filter((r) => r.startsWith("relations/") && !r.includes(rel.id))];
    assert.deepEqual(problemPaths, expected.sort());
    assert.match(loaded.problems.find((p) => p.path.includes(`/${shardOf(sharded.id)}/`))!.problem, /duplicate/);
    assert.deepEqual(snapshot(root), snap, "loadAll only reads");
  });
});

describe("Store: layout and paths", () => {
  test("auto layout: past shard_threshold new records go to memories/<xx>/; older flat ones stay and are updated in place", { timeout: 120_000 }, async () => {
    const root = skeletonStore({ layout: "auto", shard_threshold: 3 });
    const ms = [mem("one"), mem("two"), mem("three"), mem("four"), mem("five")];
    const store = await openStore(root);
    const paths: string[] = [];
    try {
      for (const m of ms) {
        paths.push(...(await save(store, m)));
      }
      assert.deepEqual(paths.slice(0, 3), ms.slice(0, 3).map((m) => `memories/${m.id}.json`));
      assert.deepEqual(paths.slice(3), ms.slice(3).map((m) => `memories/${shardOf(m.id)}/${m.id}.json`));
      for (const p of paths) assert.ok(fs.statSync(path.join(root, p)).isFile(), p);
      for (const m of ms.slice(3)) assert.equal(fs.existsSync(path.join(root, `memories/${m.id}.json`)), false);
      assert.equal(store.shardsNewRecords(), true);

      // an old flat record is rewritten where it is, a sharded one too
      const [p1] = await store.write((tx) => [tx.putMemory(updateMemory(tx.memory(ms[0]!.id), { content: "one edited" }, tx.now).memory)]);
      assert.equal(p1, `memories/${ms[0]!.id}.json`);
      assert.equal(fs.existsSync(path.join(root, `memories/${shardOf(ms[0]!.id)}/${ms[0]!.id}.json`)), false, "no second copy in a shard");
      const [p4] = await store.write((tx) => [tx.putMemory(touchMemory(tx.memory(ms[3]!.id), tx.now, true, "test.00000000"))]);
      assert.equal(p4, paths[3]);
      const one = await store.readMemory(ms[0]!.id);
      assert.ok(one?.result.ok);
      assert.equal(one.result.record.content, "one edited");
    } finally {
      store.close();
    }
    const loaded = loadAll(nodeFs, root);
    assert.equal(loaded.memories.size, 5);
    assert.deepEqual(loaded.problems, []);
    assert.equal(loaded.memories.get(ms[0]!.id)!.content, "one edited");
    assert.equal(loaded.memories.get(ms[3]!.id)!.use_count, 1);
    const again = await openStore(root);
    try {
      assert.deepEqual(await listIds(again), sorted(ms.map((m) => m.id)));
    } finally {
      again.close();
    }
    const status = memsyncJson(["status", "--store", root]);
    assert.deepEqual(status.layout, { setting: "auto", shard_threshold: 3, new_records_sharded: true });
    assert.equal(status.health, "healthy");
  });

  test("below the threshold nothing is sharded", async () => {
    const root = skeletonStore({ shard_threshold: 10 });
    const store = await openStore(root);
    try {
      const paths = await save(store, mem("a"), mem("b"), mem("c"));
      for (const p of paths) assert.match(p, /^memories\/[0-9a-f-]{36}\.json$/);
      assert.equal(store.shardsNewRecords(), false);
    } finally {
      store.close();
    }
  });

  test("layout sharded shards from the first record; layout flat keeps a sharded record in its shard", async () => {
    const root = skeletonStore({ layout: "sharded" });
    const first = mem("first");
    let store = await openStore(root);
    try {
      assert.deepEqual(await save(store, first), [`memories/${shardOf(first.id)}/${first.id}.json`]);
    } finally {
      store.close();
    }
    editSettings(root, { layout: "flat", shard_threshold: 0 });
    store = await openStore(root);
    try {
      const second = mem("second");
      assert.deepEqual(await save(store, second), [`memories/${second.id}.json`]);
      const [p] = await store.write((tx) => [tx.putMemory(touchMemory(tx.memory(first.id), tx.now, false, "test.00000000"))]);
      assert.equal(p, `memories/${shardOf(first.id)}/${first.id}.json`, "a record keeps the path it has");
      assert.equal(fs.existsSync(path.join(root, `memories/${first.id}.json`)), false);
    } finally {
      store.close();
    }
  });

  test("an id never becomes a path unvalidated", async () => {
    const good = "0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d";
    assert.equal(recordPath("memory", good, false), `memories/${good}.json`);
    assert.equal(recordPath("memory", good, true), `memories/7d/${good}.json`);
    assert.equal(recordPath("relation", good, true), `relations/7d/${good}.json`);
    for (const bad of ["../x", "", "../../etc/passwd", good.toUpperCase(), `${good}/../../x`, `../${good}`]) {
      assert.throws(() => recordPath("memory", bad, false), /invalid id/);
      assert.throws(() => recordPath("memory", bad, true), /invalid id/);
      assert.throws(() => candidatePaths("relation", bad), /invalid id/);
    }
    const parent = tempDir();
    const root = path.join(parent, "store");
    writeStoreSkeleton(nodeFs, root, T0);
    const store = await openStore(root);
    try {
      const before = snapshot(parent, (rel) => rel.endsWith(".memsync"));
      await assert.rejects(store.readMemory("../x"));
      const forged = { ...mem("forged"), id: "../../evil" } as Memory;
      await assert.rejects(store.write((tx) => tx.putMemory(forged)), /invalid id/);
      await assert.rejects(store.write((tx) => tx.removeMemory("../.meta")), /invalid id/);
      assert.deepEqual(snapshot(parent, (rel) => rel.endsWith(".memsync")), before, "nothing was written or removed");
      assert.ok(fs.existsSync(path.join(root, ".meta.json")));
    } finally {
      store.close();
    }
  });

  test("atomic writes leave no temp files behind on success", async () => {
    const root = skeletonStore({ shard_threshold: 5 });
    const store = await openStore(root);
    try {
      const ms = Array.from({ length: 10 }, (_, i) => mem(`memory number ${i}`));
      for (const m of ms) await save(store, m);
      for (const m of ms) await store.write((tx) => tx.putMemory(touchMemory(tx.memory(m.id), tx.now, true, "test.00000000")));
      await store.write((tx) => tx.putRelation(createRelation({ from: ms[0]!.id, to: ms[9]!.id, type: "related" }, newId(), tx.now)));
      const files = walk(root, (rel) => rel === ".git");
      const temps = files.filter((f) => f.endsWith(".tmp") || (path.basename(f).startsWith(".") && f.includes("/")));
      assert.deepEqual(temps.filter((f) => !f.startsWith(".memsync/")), []);
      assert.equal(files.filter((f) => f.startsWith("memories/")).length, 10);
      const plan = await store.refresh(true);
      assert.deepEqual(plan.temps, []);
    } finally {
      store.close();
    }
    // writeAtomic itself: the target holds exactly the text, nothing else in the folder
    const dir = tempDir();
    writeAtomic(nodeFs, dir, "x.json", "first\n");
    writeAtomic(nodeFs, dir, "x.json", "second ✓\n");
    assert.deepEqual(fs.readdirSync(dir), ["x.json"]);
    assert.equal(fs.readFileSync(path.join(dir, "x.json"), "utf8"), "second ✓\n");
  });
});

describe("Store: the index is derived", () => {
  async function populated() {
    const root = skeletonStore({ shard_threshold: 3 });
    const store = await openStore(root);
    const ms = [
      mem("PostgreSQL JSONB indexing with GIN", { tags: ["db"] }),
      mem("Redis for session caching", { tags: ["db", "cache"] }),
      mem("Cursor pagination for list endpoints", { type: "decision" }),
      mem("Postgres vacuum settings for big tables", { tags: ["db"] }),
      mem("Small pull requests review faster", { type: "preference" }),
    ];
    for (const m of ms) await save(store, m);
    const rel = createRelation({ from: ms[0]!.id, to: ms[3]!.id, type: "supports" }, newId(), T0);
    await store.write((tx) => tx.putRelation(rel));
    return { root, store, ms, rel };
  }

  async function view(store: Store, ms: Memory[]) {
    return {
      list: (await store.list({}, null)),
      db: (await store.list({ tags: ["db"] }, null)).memories.map((m) => m.id),
      search: (await store.search(searchTerms("postgres").match, {}, null)).hits.map((h) => h.memory.id),
      searchAny: (await store.search(searchTerms("redis cursor", "any").match, {}, null)).hits.map((h) => h.memory.id).sort(),
      relations: (await store.relationsOf(ms[0]!.id)),
    };
  }

  test("rebuildIndex after deleting index.db gives the same list and search results", async () => {
    const { root, store, ms } = await populated();
    const before = await view(store, ms);
    store.close();
    assert.equal(before.list.total, 5);
    assert.equal(before.search.length, 2);
    for (const f of fs.readdirSync(path.join(root, ".memsync"))) if (f.startsWith("index.db")) fs.rmSync(path.join(root, ".memsync", f));
    const reopened = await openStore(root);
    try {
      assert.equal((await reopened.list({}, null)).total, 0, "a new index starts empty");
      await reopened.rebuildIndex();
      assert.deepEqual(await view(reopened, ms), before);
    } finally {
      reopened.close();
    }
  });

  for (const [name, bytes] of [
    ["a few garbage bytes", Buffer.from("garbage!")],
    ["8 KiB of garbage", Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) & 0xff))],
  ] as const) {
    test(`a damaged index.db (${name}) is moved aside and rebuilt on open`, async () => {
      const { root, store, ms } = await populated();
      const before = await view(store, ms);
      store.close();
      const records = snapshot(root, (rel) => rel === ".memsync" || rel === ".git");
      const dbPath = path.join(root, ".memsync", "index.db");
      fs.writeFileSync(dbPath, bytes);
      const reopened = await openStore(root);
      try {
        await reopened.refresh();
        assert.deepEqual(await view(reopened, ms), before);
      } finally {
        reopened.close();
      }
      const aside = fs.readdirSync(path.join(root, ".memsync")).filter((f) => /^index\.db\.damaged-\d+$/.test(f));
      assert.equal(aside.length, 1, "the damaged file is kept aside for a look");
      assert.deepEqual(fs.readFileSync(path.join(root, ".memsync", aside[0]!)), bytes);
      assert.deepEqual(snapshot(root, (rel) => rel === ".memsync" || rel === ".git"), records, "the record files are untouched");
    });
  }

  test("a damaged index.db whose header survives is rebuilt too", async () => {
    const { root, store, ms } = await populated();
    const before = await view(store, ms);
    store.close();
    const dbPath = path.join(root, ".memsync", "index.db");
    const buf = fs.readFileSync(dbPath);
    assert.ok(buf.length > 8192);
    for (let i = 4096; i < buf.length; i++) buf[i] = (i * 7919 + 13) & 0xff;
    fs.writeFileSync(dbPath, buf);
    const reopened = await openStore(root);
    try {
      await reopened.rebuildIndex();
      assert.deepEqual(await view(reopened, ms), before);
    } finally {
      reopened.close();
    }
  });

  test("a store whose index another process replaced writes into the new one, not the old", async () => {
    const { root, store, ms } = await populated();
    const before = await view(store, ms);
    const other = await openStore(root);
    try {
      // the other process rebuilds: a new file takes the index's path, the old one is kept aside
      await other.rebuildIndex();
      const m = mem("written after the index was replaced");
      await save(store, m);
      // the write went into the file at the path (read by a connection that refreshes nothing)
      const now = IndexDb.open(path.join(root, ".memsync", "index.db"), 1_000);
      try {
        assert.ok(now.memoryPath(m.id), "the write landed in the index other processes read");
      } finally {
        now.close();
      }
      await other.refresh();
      assert.ok((await other.list({}, null)).memories.some((x) => x.id === m.id), "the rebuilding process sees it too");
      const after = await view(store, ms);
      assert.equal(after.list.total, before.list.total + 1);
      assert.deepEqual(after.search, before.search);
    } finally {
      other.close();
      store.close();
    }
  });

  test("deleting one copy of a duplicated memory leaves the other indexed", async () => {
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    try {
      const m = mem("duplicated foxtrot");
      await save(store, m);
      dropFile(root, `memories/${shardOf(m.id)}/${m.id}.json`, memoryToJson(m));
      await settle(store, clk);
      assert.deepEqual(await listIds(store), [m.id]);
      fs.unlinkSync(path.join(root, `memories/${m.id}.json`));
      assert.deepEqual(await listIds(store), [m.id]);
      assert.deepEqual(await searchIds(store, "foxtrot"), [m.id]);
      assert.deepEqual(store.index.problems(), []);
    } finally {
      store.close();
    }
  });
});

describe("Store: scoring fields in the index", () => {
  test("scoringRows has use_count and strength of every memory with the statuses asked, kept current by writes", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    const a = mem("used often", { use_count: 7, strength: 1.5 });
    const b = mem("archived one", { status: "archived" });
    await save(store, a, b);
    const rows = await store.scoringRows(["active"]);
    assert.deepEqual(rows.map((r) => [r.id, r.use_count, r.strength, r.last_used, r.created_at, r.status]), [[a.id, 7, 1.5, a.last_used, a.created_at, "active"]]);
    // later than any created_at of this file's memories (T0 + the count made so far)
    await store.write((tx) => tx.putMemory(touchMemory(tx.memory(a.id), a.created_at + 100, true, "test.00000000")));
    const [after] = await store.scoringRows(["active"]);
    assert.deepEqual([after!.use_count, after!.strength, after!.last_used], [8, 1.6, a.created_at + 100]);
    assert.equal((await store.scoringRows(["active", "archived"])).length, 2);
    store.close();
  });

  test("an index of the previous version gets the columns in place, filled from its records, without a rebuild", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    const a = mem("from before the upgrade", { use_count: 4, strength: 0.5, fingerprint: "decision:use postgresql" });
    await save(store, a);
    store.close();
    // make the index what version 2 was: no scoring columns, no fingerprint, no conflicts column
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path.join(root, ".memsync/index.db"));
    db.exec(
      "DROP TABLE memory_fts; CREATE VIRTUAL TABLE memory_fts USING fts5(content, gist, tags, entities, tokenize = 'porter unicode61 remove_diacritics 2'); DROP INDEX memories_fingerprint; ALTER TABLE memories DROP COLUMN use_count; ALTER TABLE memories DROP COLUMN strength; ALTER TABLE memories DROP COLUMN fingerprint; DROP INDEX memories_conflicts; ALTER TABLE memories DROP COLUMN conflicts; PRAGMA user_version = 2",
    );
    db.close();
    const journal = path.join(root, ".memsync/journal.jsonl");
    const journalBefore = fs.existsSync(journal) ? fs.readFileSync(journal, "utf8") : "";
    const again = await openStore(root);
    assert.equal(again.index.created, false, "not rebuilt");
    assert.deepEqual((await again.scoringRows(["active"])).map((r) => [r.id, r.use_count, r.strength]), [[a.id, 4, 0.5]]);
    assert.equal(again.index.findByFingerprint("decision:use postgresql", null), a.id, "fingerprints filled in place too");
    assert.equal(await again.countMatches("upgrade"), 1, "the full-text rows are made again from the records");
    assert.equal(await again.countMatches("nothingLikeThis"), 0);
    assert.equal(fs.existsSync(journal) ? fs.readFileSync(journal, "utf8") : "", journalBefore, "no rescan was asked for");
    again.close();
  });

  test("an index of version 5 gets the conflicts column in place, counted from its records", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    const a = mem("kept both texts", { content_conflicts: [{ content: "the other text", updated_at: T0, machine: "laptop" }] });
    const b = mem("no conflict here");
    await save(store, a, b);
    assert.equal(store.index.contentConflictCount(), 1);
    store.close();
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path.join(root, ".memsync/index.db"));
    db.exec("DROP INDEX memories_conflicts; ALTER TABLE memories DROP COLUMN conflicts; PRAGMA user_version = 5");
    db.close();
    const again = await openStore(root);
    assert.equal(again.index.created, false, "not rebuilt");
    assert.equal(again.index.contentConflictCount(), 1);
    assert.deepEqual((await again.withContentConflicts()).map((m) => m.id), [a.id]);
    // resolved: the column follows the record
    await again.write((tx) => tx.putMemory({ ...tx.memory(a.id)!, content_conflicts: [] }));
    assert.equal(again.index.contentConflictCount(), 0);
    assert.deepEqual(await again.withContentConflicts(), []);
    again.close();
  });

  test("an index of version 6 gets each memory's recall terms in place, made from its records", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    await save(store, mem("We retried the flaky checkout tests nightly", { entities: ["PostgreSQL"] }));
    store.close();
    const termsOf = (db: { prepare(sql: string): { get(): unknown } }) => (db.prepare("SELECT terms FROM memory_docs").get() as { terms: string | null }).terms;
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path.join(root, ".memsync/index.db"));
    const written = termsOf(db);
    // words, their stems, the entities
    assert.ok(written?.includes(" retried ") && written.includes(" retri ") && written.includes("postgresql"), String(written));
    db.exec("ALTER TABLE memory_docs DROP COLUMN terms; PRAGMA user_version = 6");
    db.close();
    const again = await openStore(root);
    assert.equal(again.index.created, false, "not rebuilt");
    again.close();
    const db2 = new DatabaseSync(path.join(root, ".memsync/index.db"));
    assert.equal(termsOf(db2), written, "made again as a write makes them");
    db2.close();
  });

  test("the terms of an upgraded index are made for every memory, past the first page of 1,000", async () => {
    const file = path.join(tempDir(), "index.db");
    IndexDb.open(file, 1_000).close();
    const ms = Array.from({ length: 1_003 }, (_, i) => mem(`memory number ${i} about retries`, { gist: i % 2 ? `gist ${i}` : null, entities: [`e${i}`] }));
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(file);
    // the records alone, as an index of version 6 holds them (no terms)
    db.exec("BEGIN");
    const put = db.prepare("INSERT INTO memory_docs(rid, json) VALUES (?, ?)");
    ms.forEach((m, i) => put.run(i + 1, memoryToJson(m)));
    db.exec("COMMIT; PRAGMA user_version = 6");
    db.close();
    IndexDb.open(file, 1_000).close();
    const db2 = new DatabaseSync(file);
    const after = (db2.prepare("SELECT terms FROM memory_docs ORDER BY rid").all() as { terms: string | null }[]).map((r) => r.terms);
    db2.close();
    assert.deepEqual(after, ms.map(storedTerms));
  });

  test("an index of version 6 gets the relations' path index in place", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    const [a, b] = [mem("one end"), mem("the other end")];
    await save(store, a, b);
    const rel = createRelation({ from: a.id, to: b.id, type: "related" }, newId(), T0);
    const relPath = await store.write((tx) => tx.putRelation(rel));
    store.close();
    const { DatabaseSync } = await import("node:sqlite");
    const file = path.join(root, ".memsync/index.db");
    const db = new DatabaseSync(file);
    db.exec("DROP INDEX relations_path; PRAGMA user_version = 6");
    db.close();
    const again = await openStore(root);
    assert.equal(again.index.created, false, "not rebuilt");
    assert.equal(again.index.recordJsonsAt("relation", [relPath]).size, 1);
    again.close();
    const check = new DatabaseSync(file);
    assert.equal((check.prepare("EXPLAIN QUERY PLAN SELECT json FROM relations WHERE path = ?").all("x") as { detail: string }[]).some((r) => r.detail.includes("relations_path")), true);
    check.close();
  });

  test("an index of version 8 gets scope and confidence in place, from its records, and the session start's indexes", async () => {
    const root = skeletonStore();
    const store = await openStore(root);
    const rule = mem("Never log secrets", { type: "preference", scope: "global", confidence: 0.9 });
    const team = mem("Tabs in Go files", { type: "preference", scope: "team", confidence: 1 });
    const plain = mem("Billing uses Postgres", { type: "decision", project: "billing" });
    await save(store, rule, team, plain);
    store.close();
    const { DatabaseSync } = await import("node:sqlite");
    const file = path.join(root, ".memsync/index.db");
    const db = new DatabaseSync(file);
    db.exec("DROP INDEX memories_project_type; DROP INDEX memories_global; ALTER TABLE memories DROP COLUMN scope; ALTER TABLE memories DROP COLUMN confidence; PRAGMA user_version = 8");
    db.close();
    const again = await openStore(root);
    assert.equal(again.index.created, false, "not rebuilt");
    assert.deepEqual((await again.globalRules(["active"], ["decision", "preference", "pattern"], 5)).map((m) => m.id), [rule.id]);
    assert.equal((await again.list({ statuses: ["active"], types: ["decision"], project: "billing" }, 5)).total, 1);
    // a write keeps the columns: the team preference made global joins the rules, the more confident first
    await again.write((tx) => tx.putMemory({ ...tx.memory(team.id)!, scope: "global" }));
    assert.deepEqual((await again.globalRules(["active"], ["decision", "preference", "pattern"], 5)).map((m) => m.id), [team.id, rule.id]);
    again.close();
    const check = new DatabaseSync(file);
    const plan = (sql: string) => (check.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
    assert.match(plan("SELECT count(*) FROM memories m WHERE m.status IN ('active') AND m.type IN ('decision') AND m.project = 'billing'"), /COVERING INDEX memories_project_type/);
    assert.deepEqual(check.prepare("SELECT scope, confidence FROM memories ORDER BY scope, confidence").all().map((r) => ({ ...(r as object) })), [
      { scope: "global", confidence: 0.9 },
      { scope: "global", confidence: 1 },
      { scope: "team", confidence: null },
    ]);
    check.close();
  });
});

describe("absorb (a pull's checkout wrote these files)", () => {
  test("only the written files are taken; the folder is left for the next refresh, which finds an edit made in place beside them", async () => {
    const root = skeletonStore();
    const clk = clock();
    const store = await openStore(root, clk);
    try {
      const [a, b, c] = [mem("alpha as committed"), mem("bravo as committed"), mem("charlie as committed")];
      await save(store, a, b, c);
      await settle(store, clk);
      const recorded = store.index.dir("memories")!;
      const journalBefore = fs.readFileSync(path.join(root, ".memsync/journal.jsonl"), "utf8");
      // the checkout: a's new version renamed over it, c removed; meanwhile b edited in place by hand
      replaceByRename(root, `memories/${a.id}.json`, memoryToJson(updateMemory(a, { content: "alpha as pulled" }, T0 + 60).memory));
      fs.rmSync(path.join(root, `memories/${c.id}.json`));
      fs.writeFileSync(path.join(root, `memories/${b.id}.json`), memoryToJson(updateMemory(b, { content: "bravo edited in place" }, T0 + 61).memory));
      // absorbed long after the writes (a loaded machine): nothing may trust the folder now
      clk.skip(10_000);
      await store.absorb([`memories/${a.id}.json`, `memories/${c.id}.json`]);
      const aRead = await store.readMemory(a.id);
      assert.ok(aRead?.result.ok);
      assert.equal(aRead.result.record.content, "alpha as pulled");
      assert.equal(await store.readMemory(c.id), null);
      assert.equal(fs.readFileSync(path.join(root, ".memsync/journal.jsonl"), "utf8"), journalBefore, "the checkout's own files are not outside edits");
      assert.deepEqual(store.index.dir("memories"), recorded, "the folder's row as it was: its new mtime is not vouched for");
      // the next quick refresh lists the folder: b's edit is found and journaled
      await store.refresh(false, ["memory"]);
      const bRead = await store.readMemory(b.id);
      assert.ok(bRead?.result.ok);
      assert.equal(bRead.result.record.content, "bravo edited in place");
      const entries = fs.readFileSync(path.join(root, ".memsync/journal.jsonl"), "utf8").slice(journalBefore.length).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(entries.map((e) => [e.op, e.paths]), [["edit", [`memories/${b.id}.json`]]]);
    } finally {
      store.close();
    }
  });
});
