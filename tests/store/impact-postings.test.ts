import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory, updateMemory } from "../../src/core/records.ts";
import { recall } from "../../src/ops/recall.ts";
import { INDEX_VERSION } from "../../src/store/fixed-paths.ts";
import { IndexDb } from "../../src/store/index-db.ts";
import { Store } from "../../src/store/store.ts";
import { storeWith } from "../helpers/memory-store.ts";

// recall's impact postings (store/impact-postings.ts) are never written by a save: a memory saved,
// edited or deleted since they were settled is pending, scored from its text, and its old
// postings are never read. Checked on a real index: pending memories are answered, a deleted
// memory and an edited memory's old words never are (before and after the merge, and through a
// read-only connection as the cold hook opens it), the merged postings equal a rebuild's, and an
// index of the previous version upgrades to empty postings that the next settle builds.

const T0 = 1_790_000_000;
const DAY = 86_400;
const ZEBRA = "The zebrafish exporter writes the audit trail to cold storage every night.";
const TOPICS = ["invoices", "refunds", "ledgers", "receipts", "payouts", "coupons", "taxes", "disputes"];

function memory(i: number, content: string): Memory {
  return { ...createMemory({ content }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

function corpus(): Memory[] {
  const out: Memory[] = [];
  for (let i = 0; i < 60; i++) out.push(memory(i, `The billing worker handles ${TOPICS[i % TOPICS.length]} for tenant ${i} after a restart.`));
  out.push(memory(100, "The quokka importer reads the partner feed every night."));
  out.push(memory(101, "The narwhal cache keeps rendered invoices for an hour."));
  return out;
}

/** Run fn with the bounded search on from `from` memories (the default keeps small stores on FTS5). */
async function boundedFrom<T>(from: number, fn: () => Promise<T>): Promise<T> {
  const was = process.env.MEMSYNC_BOUNDED_FROM;
  process.env.MEMSYNC_BOUNDED_FROM = String(from);
  try {
    return await fn();
  } finally {
    if (was === undefined) delete process.env.MEMSYNC_BOUNDED_FROM;
    else process.env.MEMSYNC_BOUNDED_FROM = was;
  }
}

const contents = async (store: Store, query: string) => (await recall(store, { query, now: T0 + 30 * DAY })).items.map((i) => i.text);
const found = async (store: Store, match: string) =>
  (await store.searchWithTerms(match, { statuses: ["active", "promoted"] }, 25)).map((h) => h.memory.content);

function indexFile(store: Store): string {
  return `${store.root}/.memsync/index.db`;
}

function byContentNow(store: Store, content: string): string {
  const r = rows(store, "SELECT m.id, json_extract(d.json, '$.content') AS c FROM memories m JOIN memory_docs d ON d.rid = m.rid").find((x) => x.c === content);
  return r!.id as string;
}

function rows(store: Store, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(indexFile(store), { readOnly: true });
  try {
    return (db.prepare(sql).all() as Record<string, unknown>[]).map((r) => ({ ...r }));
  } finally {
    db.close();
  }
}

test("pending memories are answered; a deleted memory and an edited memory's old words never are, before and after the merge", async () => {
  await boundedFrom(10, async () => {
    const store = await storeWith(corpus(), T0);
    try {
      assert.equal(await store.boundedSearchReady(), false, "not built before a settle");
      await store.settleBoundedSearch(1);
      assert.equal(await store.boundedSearchReady(), true);
      assert.deepEqual(rows(store, "SELECT count(*) AS n FROM impact_pending"), [{ n: 0 }]);

      const quokka = (await store.write((tx) => tx.scoringRows(["active"]))).length;
      assert.ok(quokka > 0);
      const all = corpus();
      const byContent = new Map<string, string>();
      for (const r of rows(store, "SELECT m.id, json_extract(d.json, '$.content') AS c FROM memories m JOIN memory_docs d ON d.rid = m.rid")) byContent.set(r.c as string, r.id as string);
      const quokkaId = byContent.get(all[60]!.content)!;
      const narwhalId = byContent.get(all[61]!.content)!;

      // a new memory (pending), a deleted one and an edited one, none merged yet
      await store.write((tx) => {
        tx.putMemory(memory(200, "The zebrafish exporter writes the audit trail to cold storage."));
        tx.removeMany("memory", [quokkaId]);
        tx.putMemory(updateMemory(tx.memoryQuick(narwhalId), { content: "The walrus cache keeps rendered invoices for an hour." }, T0 + 300).memory);
      });
      // a pending memory written again before the merge (an upsert of its text: the trigger must not refuse it)
      await store.write((tx) => {
        const id = byContentNow(store, "The zebrafish exporter writes the audit trail to cold storage.");
        tx.putMemory(updateMemory(tx.memoryQuick(id), { content: ZEBRA }, T0 + 301).memory);
      });
      assert.deepEqual(rows(store, "SELECT count(*) AS n FROM impact_pending"), [{ n: 3 }]);
      // the old postings are still there: only the pending set keeps them from being read
      assert.ok((rows(store, "SELECT count(*) AS n FROM impact_hits WHERE term IN ('quokka', 'narwhal')")[0]!.n as number) >= 2);

      const check = async (when: string) => {
        assert.equal(await store.boundedSearchReady(), true, when);
        assert.deepEqual(await found(store, '"zebrafish"'), [ZEBRA], `${when}: the new memory`);
        assert.deepEqual(await found(store, '"quokka"'), [], `${when}: the deleted memory`);
        assert.deepEqual(await found(store, '"narwhal"'), [], `${when}: the edited memory's old word`);
        assert.deepEqual(await found(store, '"walrus"'), ["The walrus cache keeps rendered invoices for an hour."], `${when}: its new word`);
        assert.deepEqual(await contents(store, "zebrafish exporter"), [ZEBRA], `${when}: recall`);
        assert.deepEqual(await contents(store, "quokka importer"), [], `${when}: recall of the deleted memory`);
        // the cold hook's connection: read-only, the scratch table in its temp schema
        const ro = new DatabaseSync(indexFile(store), { readOnly: true });
        try {
          const index = IndexDb.reading(ro);
          assert.equal(index.boundedSearchReady(), true);
          assert.deepEqual(index.searchWithTerms('"zebrafish" OR "quokka" OR "narwhal"', { statuses: ["active"] }, 10).map((h) => h.memory.content), [
            ZEBRA,
          ]);
        } finally {
          ro.close();
        }
      };
      await check("pending");
      await store.settleBoundedSearch(1);
      assert.deepEqual(rows(store, "SELECT count(*) AS n FROM impact_pending"), [{ n: 0 }]);
      assert.deepEqual(rows(store, "SELECT count(*) AS n FROM impact_hits WHERE term IN ('quokka', 'narwhal')"), [{ n: 0 }]);
      await check("merged");
    } finally {
      store.close();
    }
  });
});

/** The postings by memory id: each (term, id) with its weight, each term's count, each memory's length. */
function snapshot(store: Store): { hits: Map<string, number>; terms: string; docs: string } {
  const hits = new Map(
    rows(store, "SELECT h.term, m.id, h.w FROM impact_hits h JOIN memories m ON m.rid = h.rid").map((r) => [`${r.term as string} ${r.id as string}`, r.w as number]),
  );
  const terms = JSON.stringify(rows(store, "SELECT term, n FROM impact_terms ORDER BY term"));
  const docs = JSON.stringify(rows(store, "SELECT m.id, d.len FROM impact_docs d JOIN memories m ON m.rid = d.rid ORDER BY m.id"));
  return { hits, terms, docs };
}

test("postings merged save by save equal a rebuild's (weights within the average length's drift)", async () => {
  await boundedFrom(10, async () => {
    const store = await storeWith(corpus(), T0);
    try {
      await store.settleBoundedSearch(1);
      const ids = rows(store, "SELECT id FROM memories ORDER BY id").map((r) => r.id as string);
      for (let round = 0; round < 4; round++) {
        await store.write((tx) => {
          tx.putMemory(memory(300 + round, `Round ${round}: the refunds ledger reconciles payouts with the bank statement ${round}.`));
          tx.putMemory(updateMemory(tx.memoryQuick(ids[round * 3]!), { content: `Edited ${round}: tenant invoices are archived after ninety days.` }, T0 + 400 + round).memory);
          tx.removeMany("memory", [ids[round * 3 + 1]!]);
        });
        await store.settleBoundedSearch(1);
      }
      const merged = snapshot(store);
      await store.rebuildIndex();
      await store.settleBoundedSearch(1);
      const rebuilt = snapshot(store);
      assert.equal(merged.terms, rebuilt.terms);
      assert.equal(merged.docs, rebuilt.docs);
      assert.deepEqual([...merged.hits.keys()].sort(), [...rebuilt.hits.keys()].sort());
      for (const [k, w] of merged.hits) assert.ok(Math.abs(w - rebuilt.hits.get(k)!) <= 0.05 * rebuilt.hits.get(k)!, `${k}: ${w} against ${rebuilt.hits.get(k)}`);
    } finally {
      store.close();
    }
  });
});

test("an index of the previous version upgrades to empty postings, answered by FTS5 until a settle builds them", async () => {
  await boundedFrom(10, async () => {
    const first = await storeWith(corpus(), T0);
    const root = first.root;
    first.close();
    // the previous version's schema: this one's without the postings' tables and triggers
    const db = new DatabaseSync(`${root}/.memsync/index.db`);
    db.exec(`DROP TRIGGER impact_pending_insert; DROP TRIGGER impact_pending_text; DROP TRIGGER impact_pending_delete;
      DROP TABLE impact_hits; DROP TABLE impact_terms; DROP TABLE impact_docs; DROP TABLE impact_pending; DROP TABLE impact_state;
      PRAGMA user_version = ${INDEX_VERSION - 1};`);
    db.close();
    const store = await Store.open(root);
    try {
      assert.deepEqual(rows(store, "PRAGMA user_version"), [{ user_version: INDEX_VERSION }]);
      assert.equal(await store.boundedSearchReady(), false);
      assert.equal((await contents(store, "narwhal cache")).length, 1, "FTS5 answers meanwhile");
      await store.write((tx) => tx.putMemory(memory(500, "The okapi scheduler rotates the on-call roster.")));
      await store.settleBoundedSearch();
      assert.equal(await store.boundedSearchReady(), true);
      assert.deepEqual(await found(store, '"okapi"'), ["The okapi scheduler rotates the on-call roster."]);
      assert.deepEqual(await found(store, '"narwhal"'), ["The narwhal cache keeps rendered invoices for an hour."]);
    } finally {
      store.close();
    }
  });
});

// The previous version's binary, opening an index of this version, drops and makes its own
// tables again (a version it does not know) and leaves the postings' tables it does not know of,
// built, their rids now another memory's: upgraded again, they must not be believed.
test("postings left behind by an older binary's rebuild of the index are dropped when it is upgraded again", async () => {
  await boundedFrom(10, async () => {
    const first = await storeWith(corpus(), T0);
    const root = first.root;
    await first.settleBoundedSearch(1);
    assert.equal(await first.boundedSearchReady(), true);
    first.close();
    // what the older binary leaves: its own schema again (its DROP knows no impact_* table or their triggers' table content), version 11
    const db = new DatabaseSync(`${root}/.memsync/index.db`);
    db.exec(`DROP TRIGGER impact_pending_insert; DROP TRIGGER impact_pending_text; DROP TRIGGER impact_pending_delete; PRAGMA user_version = ${INDEX_VERSION - 1};`);
    db.close();
    const store = await Store.open(root);
    try {
      assert.deepEqual(rows(store, "PRAGMA user_version"), [{ user_version: INDEX_VERSION }]);
      assert.deepEqual(rows(store, "SELECT count(*) AS n FROM impact_hits"), [{ n: 0 }]);
      assert.equal(await store.boundedSearchReady(), false);
    } finally {
      store.close();
    }
  });
});
