import assert from "node:assert/strict";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { storedTerms } from "../../src/core/memory-terms.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory, type JsonObject, type LabelEdits, touchMemory, updateMemory } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// What a write costs the index (issue 11: the touch's tail): a rewrite that leaves a memory's
// searchable text as it was keeps its full-text row.

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
