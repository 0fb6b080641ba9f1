import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import type { Memory } from "../../src/core/model/memory.ts";
import { createMemory } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { INDEX_FILE, Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";

// Each term's count of memories (src/store/term-docs.ts) is kept on every write of the full-text
// index and answers recall's unfiltered counts in place of FTS5. These run random operations on a
// real store (writes, edits and deletes through memsync and outside it, rebuilds, an index of
// version 11 upgraded) and after each one compare the kept counts with FTS5's own (its vocabulary
// of the index), and every count the table answers with the count FTS5 gives.

const T0 = 1_790_000_000;
const WORDS = (
  "connection connections connected pool pooling pooler timeout timeouts billing bill bills billion nightly night batch batches " +
  "worker workers work working run running runs fix fixed fixes database databases cache cached caching retry retries generalization " +
  "happy happiness e-mail don't v2.0 node.js 3.14"
).split(" ");
/** Texts FTS5 itself tokenizes for the counts (fts-tokens.ts does not tell them), and separators it does tell. */
const ODD = ["café", "naïve", "東京", "ﬁle", "🤔", "—", "→", "“quoted”", "résumé"];

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const text = (rng: Rng, n: number) => Array.from({ length: n }, () => (rng() < 0.08 ? pick(rng, ODD) : pick(rng, WORDS))).join(" ");

function fields(rng: Rng) {
  return {
    content: text(rng, 1 + Math.floor(rng() * 12)),
    ...(rng() < 0.3 ? { gist: text(rng, 3) } : {}),
    ...(rng() < 0.3 ? { tags: [pick(rng, ["db-choice", "ops", "billing"])] } : {}),
    ...(rng() < 0.3 ? { entities: [pick(rng, ["PostgreSQL", "Redis", "Café-Bar"])] } : {}),
  };
}

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

/** The kept counts and FTS5's own (the number of rows of the full-text index holding each term). */
function keptAndFts5(file: string): { kept: Record<string, number>; fts5: Record<string, number> } {
  const db = new DatabaseSync(file);
  try {
    db.exec("CREATE VIRTUAL TABLE temp.rows USING fts5vocab(main, memory_fts, row)");
    const of = (sql: string) => Object.fromEntries((db.prepare(sql).all() as { term: string; n: number }[]).map((r) => [r.term, r.n]));
    return { kept: of("SELECT term, n FROM term_docs ORDER BY term"), fts5: of("SELECT term, doc AS n FROM temp.rows ORDER BY term") };
  } finally {
    db.close();
  }
}

/** FTS5's count of an expression up to a bound, asked of the full-text index itself. */
function fts5Count(file: string, match: string, upTo: number): number {
  const db = new DatabaseSync(file);
  try {
    return (db.prepare("SELECT count(*) AS n FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)").get(match, upTo) as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("each term's count of memories, kept by the index", () => {
  for (const seed of [1, 2]) {
    test(`equals FTS5's after every random operation (seed ${seed})`, async () => {
      const rng = makeRng(seed);
      let { root, store } = await newStore();
      const file = path.join(root, INDEX_FILE);
      const ids: string[] = [];
      let now = T0;
      const check = (what: string) => {
        const { kept, fts5 } = keptAndFts5(file);
        assert.deepEqual(kept, fts5, `${what} (seed ${seed})`);
      };
      try {
        for (let step = 0; step < 100; step++) {
          const op = rng();
          now += 1;
          if (op < 0.35 || ids.length < 2) {
            const m = createMemory(fields(rng), newId(), { now, machine: "m", user: "u" });
            ids.push(m.id);
            await store.write((tx) => tx.putMemory(m));
            check(`after a save (step ${step})`);
          } else if (op < 0.5) {
            const id = pick(rng, ids);
            if (store.index.memoryPath(id)) await store.write((tx) => void tx.putMemory({ ...tx.memory(id), content: text(rng, 5) } as Memory));
            check(`after an edit of the text (step ${step})`);
          } else if (op < 0.58) {
            const id = pick(rng, ids);
            if (store.index.memoryPath(id)) await store.write((tx) => void tx.putMemory({ ...tx.memory(id), status: "archived" } as Memory));
            check(`after an edit that keeps the text (step ${step})`);
          } else if (op < 0.7) {
            await store.write((tx) => tx.removeMemory(pick(rng, ids)));
            check(`after a delete (step ${step})`);
          } else if (op < 0.78) {
            const f = memoryFile(root, pick(rng, ids));
            if (f) fs.unlinkSync(f);
            await store.refresh(true);
            check(`after a delete outside memsync (step ${step})`);
          } else if (op < 0.88) {
            const f = memoryFile(root, pick(rng, ids));
            if (f) {
              const rec = JSON.parse(fs.readFileSync(f, "utf8"));
              fs.writeFileSync(f, `${JSON.stringify({ ...rec, content: `${rec.content} ${text(rng, 3)}` }, null, 2)}\n`);
              const t = new Date(Date.now() + 60_000 * (step + 1));
              fs.utimesSync(f, t, t);
            }
            await store.refresh(true);
            check(`after an edit outside memsync (step ${step})`);
          } else if (op < 0.94) {
            await store.rebuildIndex();
            check(`after a rebuild (step ${step})`);
          } else {
            // the index of version 11 (no counts): upgraded in place on the next open
            store.close();
            const db = new DatabaseSync(file);
            db.exec("DROP TABLE term_docs; PRAGMA user_version = 11");
            db.close();
            store = await Store.open(root);
            assert.equal(store.index.created, false, "upgraded, not rebuilt");
            check(`after an upgrade from version 11 (step ${step})`);
          }
        }
        // every count the table answers is FTS5's, on both sides of each bound
        const asked: string[] = [];
        for (const w of [...WORDS, "conn", "connect", "bil", "work", "absentword", "pool", "e", "x"]) asked.push(`"${w}"`, `"${w}"*`);
        for (let i = 0; i < 60; i++) asked.push(`"${pick(rng, WORDS)} ${pick(rng, WORDS)}"`, `"${pick(rng, WORDS)} ${pick(rng, WORDS)}"*`, `"${pick(rng, WORDS)} absentword"`);
        const total = store.index.memoryCount();
        let told = 0;
        for (const match of asked) {
          for (const upTo of [1, 2, 5, Math.max(1, Math.floor(total / 3)), total + 1]) {
            assert.equal(store.index.countMatches(match, {}, upTo), fts5Count(file, match, upTo), `${match} up to ${upTo}`);
          }
          assert.equal(store.index.countMatches(match), fts5Count(file, match, total + 1), `${match}, every match`);
          told++;
        }
        assert.ok(told > 0 && total > 10, `${total} memories`);
      } finally {
        store.close();
      }
    });
  }

  test("recall's unfiltered counts read the kept counts, not FTS5", async () => {
    const { root, store } = await newStore();
    const m = createMemory({ content: "the billing worker timed out" }, newId(), { now: T0, machine: "m", user: "u" });
    await store.write((tx) => tx.putMemory(m));
    store.close();
    // a count made wrong on purpose in the table: the unfiltered count of a word and of its
    // prefix must show it (they read nothing else); a filtered count is still FTS5's
    const db = new DatabaseSync(path.join(root, INDEX_FILE));
    db.exec("UPDATE term_docs SET n = 7 WHERE term = 'bill'");
    db.close();
    const again = await Store.open(root);
    try {
      assert.equal(again.index.countMatches('"billing"', {}, 100), 7);
      assert.equal(again.index.countMatches('"billing"*', {}, 100), 7);
      assert.equal(again.index.countMatches('"billing"', { statuses: ["active"], project: "none-such" }, 100), 0);
      assert.equal(again.index.countMatches('"billing worker"', {}, 100), 1, "a phrase of present words: FTS5's");
    } finally {
      again.close();
    }
  });
});
