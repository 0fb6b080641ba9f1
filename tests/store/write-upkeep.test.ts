import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { storedTerms } from "../../src/core/memory-terms.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory, type JsonObject, type LabelEdits, touchMemory, updateMemory } from "../../src/core/records.ts";
import { keepIndexMerged } from "../../src/ops/index-upkeep.ts";
import { WAL_BOUND_PAGES } from "../../src/ops/kept-store.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// What a write costs the index, and what a long-running process does after it (issue 11: the
// touch's tail): a rewrite that leaves a memory's searchable text as it was keeps its full-text
// row; the kept store's commits leave the WAL checkpoint to the upkeep, which takes it once the
// index is left alone; its writes remove the replaced records' backups without waiting.

const T0 = 1_790_000_000;

function skeleton(): string {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  return root;
}

const mem = (content: string, extra: Record<string, unknown> = {}) => createMemory({ content, ...extra }, newId(), { now: T0, machine: "m", user: null });

/** Another connection's look at the index (as another process would see it). */
function peek<T>(root: string, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path.join(root, ".memsync/index.db"));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** FTS5's own rows (segments and their structure): every write of a full-text row changes them. */
const ftsState = (root: string) => peek(root, (db) => JSON.stringify(db.prepare("SELECT CAST(id AS TEXT) AS id, hex(block) AS block FROM memory_fts_data ORDER BY id").all()));
const termsOf = (root: string, id: string) => peek(root, (db) => (db.prepare("SELECT d.terms AS t FROM memory_docs d JOIN memories m ON m.rid = d.rid WHERE m.id = ?").get(id) as { t: string }).t);
const idsOf = (hits: { memory: { id: string } }[]) => hits.map((h) => h.memory.id);
const listed = (found: { memories: { id: string }[] }) => found.memories.map((m) => m.id);

test("a rewrite that keeps the searchable text keeps the full-text row; a change of content, gist, tags or entities replaces it", async () => {
  const root = skeleton();
  const store = await Store.open(root);
  try {
    const m = mem("alpha bravo nightly batch", { gist: "alpha gist", tags: ["t-one"], entities: ["Postgres"] });
    await store.write((tx) => tx.putMemory(m));
    const before = ftsState(root);
    for (let i = 1; i <= 5; i++) await store.write((tx) => tx.putMemory(touchMemory(tx.memory(m.id), T0 + i, false, "m.00000000")));
    assert.equal(ftsState(root), before, "five touches wrote no full-text row");
    const touched = (await store.search("alpha", {}, null)).hits;
    assert.deepEqual(idsOf(touched), [m.id]);
    assert.equal(touched[0]!.memory.use_count, 5, "the indexed record is the touched one");
    assert.deepEqual(listed(await store.list({ tags: ["t-one"] }, null)), [m.id]);
    assert.deepEqual(idsOf((await store.search("postgres", { entities: ["postgres"] }, null)).hits), [m.id]);

    // each searchable field changed alone: the row, the tag and entity rows and the terms follow
    const change = async (what: string, patch: JsonObject, edits: LabelEdits = {}) => {
      const state = ftsState(root);
      await store.write((tx) => tx.putMemory(updateMemory(tx.memory(m.id), patch, T0 + 10, edits).memory));
      assert.notEqual(ftsState(root), state, `${what}: the full-text row was written again`);
      const now = (await store.memoriesByIds([m.id]))[0]!;
      assert.equal(termsOf(root, m.id), storedTerms(now), "the recall terms are the new text's");
    };
    await change("content", { content: "charlie delta" });
    assert.deepEqual(idsOf((await store.search("bravo", {}, null)).hits), []);
    assert.deepEqual(idsOf((await store.search("charlie", {}, null)).hits), [m.id]);
    await change("gist", { gist: "echo summary" });
    assert.deepEqual(idsOf((await store.search("echo", {}, null)).hits), [m.id]);
    await change("tags", {}, { addTags: ["t-two"], removeTags: ["t-one"] });
    assert.deepEqual(listed(await store.list({ tags: ["t-one"] }, null)), []);
    assert.deepEqual(listed(await store.list({ tags: ["t-two"] }, null)), [m.id]);
    await change("entities", {}, { addEntities: ["Redis"], removeEntities: ["Postgres"] });
    assert.deepEqual(listed(await store.list({ entities: ["postgres"] }, null)), []);
    assert.deepEqual(listed(await store.list({ entities: ["redis"] }, null)), [m.id]);
    assert.deepEqual(idsOf((await store.search("redis", {}, null)).hits), [m.id]);
  } finally {
    store.close();
  }
});

/** Big records, one bulk write: WAL pages enough for SQLite's automatic checkpoint (at 1,000). */
async function writeMany(store: Store): Promise<void> {
  const words = "billing worker connections nightly batch timeout retry cache deploy queue postgres".split(" ");
  const text = (i: number) => Array.from({ length: 3000 }, (_, k) => `${words[(i + k) % 11]}${(i * 31 + k) % 997}`).join(" ");
  await store.write((tx) => {
    for (let i = 0; i < 30; i++) tx.putMemory(mem(`note ${i} ${text(i)}`));
  }, [], { bulk: true });
}

const indexFile = (root: string) => fs.readFileSync(path.join(root, ".memsync/index.db"));

test("a kept store's commits leave the WAL to the upkeep, which checkpoints it once the index is left alone", async () => {
  const root = skeleton();
  const store = await Store.open(root);
  try {
    store.deferCheckpoints(WAL_BOUND_PAGES);
    const before = indexFile(root);
    await writeMany(store);
    const walPages = fs.statSync(path.join(root, ".memsync/index.db-wal")).size / (4096 + 24);
    assert.ok(walPages > 1_000, `the write filled ${walPages} WAL pages: SQLite alone would have checkpointed in it`);
    assert.deepEqual(indexFile(root), before, "no checkpoint in the write: every page still in the WAL");
    const found = idsOf((await store.search("note", {}, 5, false)).hits);
    assert.equal(found.length, 5);

    const upkeep = keepIndexMerged({ use: (fn) => Promise.resolve(fn(store)) }, () => true, { quietMs: 60_000, checkpointQuietMs: 20 });
    try {
      const deadline = Date.now() + 3_000;
      while (indexFile(root).equals(before)) {
        assert.ok(Date.now() < deadline, "the upkeep checkpointed within 3 s");
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      upkeep.stop();
    }
    // all of it: another connection finds nothing left to copy, and reads the same
    const left = peek(root, (db) => db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number });
    assert.equal(left.busy, 0);
    assert.equal(left.log, left.checkpointed);
    assert.deepEqual(idsOf((await store.search("note", {}, 5, false)).hits), found);
  } finally {
    store.close();
  }
  const again = await Store.open(root);
  try {
    assert.equal(await again.countMatches(null), 30, "a fresh open reads every memory");
  } finally {
    again.close();
  }
});

const leftovers = (root: string) => fs.readdirSync(path.join(root, ".memsync")).filter((n) => n.endsWith(".tmp"));

test("a kept store's writes remove their backups without waiting; a write that fails still gets its old file back", async () => {
  const root = skeleton();
  const store = await Store.open(root);
  try {
    store.removeBackupsLater();
    const m = mem("the text before");
    const rel = await store.write((tx) => tx.putMemory(m));
    const file = path.join(root, rel);
    const old = fs.readFileSync(file, "utf8");
    // the journal's path made a folder: the touch's append fails after its record was replaced
    const journal = path.join(root, ".memsync/journal.jsonl");
    fs.renameSync(journal, `${journal}.aside`);
    fs.mkdirSync(journal);
    await assert.rejects(store.write((tx) => tx.putMemory(touchMemory(tx.memory(m.id), T0 + 1, false, "m.00000000"))));
    assert.equal(fs.readFileSync(file, "utf8"), old, "the old record is back, byte for byte");
    assert.deepEqual(leftovers(root), [], "its backup went back into place");
    fs.rmdirSync(journal);
    fs.renameSync(`${journal}.aside`, journal);

    for (let i = 2; i <= 4; i++) await store.write((tx) => tx.putMemory(touchMemory(tx.memory(m.id), T0 + i, false, "m.00000000")));
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).use_count, 3);
    const deadline = Date.now() + 5_000;
    while (leftovers(root).length) {
      assert.ok(Date.now() < deadline, `backups removed: ${leftovers(root).join(", ")}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    store.close();
  }
});
