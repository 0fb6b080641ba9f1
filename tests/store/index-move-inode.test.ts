import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { IndexDb } from "../../src/store/index-db.ts";
import { tempDir } from "../helpers/env.ts";

// IndexDb.moveFileInode heals a copied store's row from a read's compare (Store.readMemory): it
// must change only the row that was compared, and never wait behind another process's write.

const ROW = { path: "memories/x.json", dir: "memories", kind: "memory" as const, id: "x", mtime: 1_000_123, size: 40, ino: 7, indexed_at: 1_005_000, problem: null };

function indexWithRow(): { file: string; db: IndexDb } {
  const file = path.join(tempDir("memsync-move-ino-"), "index.db");
  const db = IndexDb.open(file, 1_000);
  db.transaction(() => db.putFile(ROW));
  return { file, db };
}

describe("moving a file row to a new inode", () => {
  test("the row compared takes the new inode and the compare's time", () => {
    const { db } = indexWithRow();
    assert.equal(db.moveFileInode(ROW, 99, 2_000_000, 1_000), true);
    const row = db.file(ROW.path)!;
    assert.deepEqual([row.ino, row.indexed_at, row.mtime, row.size], [99, 2_000_000, ROW.mtime, ROW.size]);
    db.close();
  });

  test("a row another writer changed since the compare is kept as that writer left it", () => {
    const { db } = indexWithRow();
    db.transaction(() => db.putFile({ ...ROW, ino: 8, mtime: 1_100_000, indexed_at: 1_200_000 }));
    assert.equal(db.moveFileInode(ROW, 99, 2_000_000, 1_000), false);
    assert.deepEqual([db.file(ROW.path)!.ino, db.file(ROW.path)!.indexed_at], [8, 1_200_000]);
    db.close();
  });

  test("busy with another connection's write: refused at once, the row unchanged", () => {
    const { file, db } = indexWithRow();
    const writer = IndexDb.open(file, 1_000);
    const started = Date.now();
    writer.transaction(() => {
      assert.throws(() => db.moveFileInode(ROW, 99, 2_000_000, 5_000));
    });
    assert.ok(Date.now() - started < 1_000, "did not wait for the busy timeout");
    assert.equal(db.file(ROW.path)!.ino, ROW.ino);
    assert.equal(db.moveFileInode(ROW, 99, 2_000_000, 5_000), true, "and done once the writer is gone");
    writer.close();
    db.close();
  });
});
