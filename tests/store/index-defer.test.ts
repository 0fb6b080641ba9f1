import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { IndexDb, type FileRow } from "../../src/store/index-db.ts";
import { tempDir } from "../helpers/env.ts";

// A bulk write's file rows wait (IndexDb.deferFileRows) and go in together: every statement that
// reaches the files table or its folder sums, and the commit, must see them; a rollback must not.
// A real index file in a temp folder, read back by a second connection.

const row = (n: number, dir = "memories/ab"): FileRow => ({
  path: `${dir}/${String(n).padStart(8, "0")}-0000-4000-8000-000000000000.json`,
  dir,
  kind: "memory",
  id: `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000`,
  mtime: 1_764_200_000_000 + n,
  size: 100 + n,
  ino: 1000 + n,
  indexed_at: 1_764_200_000_000,
  problem: null,
});

function open(): { db: IndexDb; file: string } {
  const file = path.join(tempDir(), "index.db");
  return { db: IndexDb.open(file, 1_000), file };
}

test("deferred file rows are seen by reads of the files and their folder sums inside the transaction", () => {
  const { db } = open();
  try {
    // the statements prepared already, as in a process that has read the index before
    assert.equal(db.file(row(1).path), undefined);
    assert.equal(db.folderSums("memory").size, 0);
    db.transaction(() => db.deleteFile(row(9).path));
    db.transaction(() => {
      db.deferFileRows();
      db.putFile(row(1));
      db.putFile(row(2));
      assert.equal(db.file(row(1).path)?.size, 101, "a read of the files table sees a row put before it");
      db.putFile(row(3));
      const sums = db.folderSums("memory").get("memories/ab");
      assert.equal(sums?.n, 3, "the folder sums (kept by triggers) count every row put before the read");
      assert.equal(sums?.size, 101 + 102 + 103);
      // a removal after a deferred put removes the row, not leaves it for a later insert
      db.putFile(row(4));
      db.deleteFile(row(4).path);
      assert.equal(db.file(row(4).path), undefined);
    });
    assert.equal(db.folderSums("memory").get("memories/ab")?.n, 3);
  } finally {
    db.close();
  }
});

test("deferred file rows are committed with the transaction (another connection reads them)", () => {
  const { db, file } = open();
  try {
    db.transaction(() => {
      db.deferFileRows();
      for (let n = 1; n <= 50; n++) db.putFile(row(n, n % 2 ? "memories/ab" : "memories/cd"));
    });
  } finally {
    db.close();
  }
  const other = IndexDb.open(file, 1_000);
  try {
    assert.equal(other.file(row(50, "memories/cd").path)?.ino, 1050);
    assert.equal(other.folderSums("memory").get("memories/ab")?.n, 25);
    assert.equal(other.folderSums("memory").get("memories/cd")?.n, 25);
    // the next transaction puts its rows at once again (deferring ends with the transaction)
    other.transaction(() => other.putFile(row(51)));
    assert.equal(other.file(row(51).path)?.size, 151);
  } finally {
    other.close();
  }
});

test("deferred file rows of a transaction that fails are not inserted", () => {
  const { db } = open();
  try {
    assert.throws(() =>
      db.transaction(() => {
        db.deferFileRows();
        db.putFile(row(1));
        throw new Error("the change failed");
      }),
    );
    assert.equal(db.file(row(1).path), undefined);
    assert.equal(db.folderSums("memory").size, 0);
  } finally {
    db.close();
  }
});

test("outside a transaction deferFileRows does nothing: a row is there at once", () => {
  const { db } = open();
  try {
    db.deferFileRows();
    db.putFile(row(7));
    assert.equal(db.file(row(7).path)?.size, 107);
  } finally {
    db.close();
  }
});
