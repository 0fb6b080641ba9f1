import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import { MEMORY_STATUSES, MEMORY_TYPES, RELATION_TYPES } from "../../src/core/model/vocab.ts";
import { createMemory, createRelation } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { INDEX_FILE, Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";

// Status reads its counts (memories by status and type, dangling relations) from a table the
// index's triggers keep (src/store/index-counts.ts). These run random operations on a real store
// (writes through memsync, files deleted and edited outside it, rebuilds, an old index upgraded)
// and after each one compare the kept counts with the same counts made from scratch.

const T0 = 1_790_000_000;
const PROVENANCE = new Set(["consolidated_from", "split_from"]);

/** The counts made from scratch, as status made them before index version 10. */
function fromScratch(file: string) {
  const db = new DatabaseSync(file);
  try {
    const by = (col: string) =>
      Object.fromEntries((db.prepare(`SELECT ${col} AS k, count(*) AS n FROM memories GROUP BY ${col} ORDER BY ${col}`).all() as { k: string; n: number }[]).map((r) => [r.k, r.n]));
    const ids = new Set((db.prepare("SELECT id FROM memories").all() as { id: string }[]).map((r) => r.id));
    const rels = db.prepare("SELECT id, from_id, to_id, type FROM relations").all() as { id: string; from_id: string; to_id: string; type: string }[];
    const dangling = rels.filter((r) => !ids.has(r.from_id) || (!PROVENANCE.has(r.type) && !ids.has(r.to_id))).length;
    return { total: ids.size, by_status: by("status"), by_type: by("type"), dangling };
  } finally {
    db.close();
  }
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

async function newStore(): Promise<{ root: string; store: Store }> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  return { root, store: await Store.open(root) };
}

function memoryFile(root: string, id: string): string | undefined {
  for (const dir of [path.join(root, "memories"), ...fs.readdirSync(path.join(root, "memories")).map((d) => path.join(root, "memories", d))]) {
    const f = path.join(dir, `${id}.json`);
    if (fs.existsSync(f)) return f;
  }
  return undefined;
}

describe("status counts kept by the index", () => {
  for (const seed of [1, 2, 3]) {
    test(`equal a from-scratch count after every random operation (seed ${seed})`, async () => {
      const rng = makeRng(seed);
      let { root, store } = await newStore();
      const file = path.join(root, INDEX_FILE);
      const ids: string[] = []; // every memory id ever made (some deleted: relations to them dangle)
      const rels: string[] = [];
      let now = T0;
      const check = (what: string) => {
        const kept = store.index.statusCounts();
        const scratch = fromScratch(file);
        assert.deepEqual(kept, scratch, `${what} (seed ${seed})`);
        // the store's size (a save's layout choice, recall and search read it) is the kept count too
        assert.equal(store.index.memoryCount(), scratch.total, what);
        // and status lists the dangling relations exactly when it counts some
        assert.equal(store.index.danglingRelations().length, kept.dangling, what);
      };
      try {
        for (let step = 0; step < 120; step++) {
          const op = rng();
          now += 1;
          if (op < 0.3 || ids.length < 2) {
            const m = createMemory({ content: `memory ${step}`, type: pick(rng, MEMORY_TYPES), status: pick(rng, MEMORY_STATUSES) }, newId(), { now, machine: "m", user: "u" });
            ids.push(m.id);
            await store.write((tx) => tx.putMemory(m));
            check(`after a save (step ${step})`);
          } else if (op < 0.5) {
            const from = pick(rng, ids);
            let to = pick(rng, ids);
            if (to === from) to = newId(); // a memory never made: dangling from the start
            const r = createRelation({ from, to, type: pick(rng, RELATION_TYPES) }, newId(), now);
            rels.push(r.id);
            await store.write((tx) => tx.putRelation(r));
            check(`after a relation (step ${step})`);
          } else if (op < 0.6) {
            const id = pick(rng, ids);
            if (store.index.memoryPath(id)) {
              await store.write((tx) => void tx.putMemory({ ...tx.memory(id), status: pick(rng, MEMORY_STATUSES), type: pick(rng, MEMORY_TYPES) } as Memory));
            }
            check(`after an edit of status and type (step ${step})`);
          } else if (op < 0.7) {
            const id = pick(rng, ids);
            await store.write((tx) => tx.removeMemory(id));
            check(`after a delete (step ${step})`);
          } else if (op < 0.75 && rels.length) {
            const id = pick(rng, rels);
            await store.write((tx) => tx.removeRelation(id));
            check(`after an unrelate (step ${step})`);
          } else if (op < 0.82) {
            // a record file deleted outside memsync, found by the next full refresh
            const f = memoryFile(root, pick(rng, ids));
            if (f) fs.unlinkSync(f);
            await store.refresh(true);
            check(`after a delete outside memsync (step ${step})`);
          } else if (op < 0.9) {
            // a record edited in place outside memsync (status and type), or a deleted one put back
            const id = pick(rng, ids);
            const f = memoryFile(root, id);
            if (f) {
              const rec = JSON.parse(fs.readFileSync(f, "utf8"));
              fs.writeFileSync(f, `${JSON.stringify({ ...rec, status: pick(rng, MEMORY_STATUSES), type: pick(rng, MEMORY_TYPES), content: `${rec.content} edited` }, null, 2)}\n`);
              const t = new Date(Date.now() + 60_000 * (step + 1));
              fs.utimesSync(f, t, t);
            }
            await store.refresh(true);
            check(`after an edit outside memsync (step ${step})`);
          } else if (op < 0.95) {
            await store.rebuildIndex();
            check(`after a rebuild (step ${step})`);
          } else {
            // the index of version 9 (no counts, no triggers): upgraded in place on the next open
            store.close();
            const db = new DatabaseSync(file);
            const triggers = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE 'files_sums%'").all() as { name: string }[]).map((r) => r.name);
            for (const t of triggers) db.exec(`DROP TRIGGER ${t}`);
            db.exec("DROP TABLE index_counts; PRAGMA user_version = 9");
            db.close();
            store = await Store.open(root);
            assert.equal(store.index.created, false, "upgraded, not rebuilt");
            check(`after an upgrade from version 9 (step ${step})`);
          }
        }
        assert.ok(fromScratch(file).dangling > 0, "the run made some dangling relations");
      } finally {
        store.close();
      }
    });
  }

  test("status reads the kept counts, not a scan of the memories or relations", async () => {
    const { root, store } = await newStore();
    const a = createMemory({ content: "kept a" }, newId(), { now: T0, machine: "m", user: "u" });
    await store.write((tx) => tx.putMemory(a));
    store.close();
    // counts made wrong on purpose in the table: status must show them (it reads nothing else)
    const db = new DatabaseSync(path.join(root, INDEX_FILE));
    db.exec("UPDATE index_counts SET n = 7 WHERE what = 'status'");
    db.close();
    const again = await Store.open(root);
    try {
      assert.deepEqual(again.index.statusCounts().by_status, { active: 7 });
    } finally {
      again.close();
    }
  });
});
