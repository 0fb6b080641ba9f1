import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { INDEX_VERSION } from "../../src/store/fixed-paths.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { readJournal } from "../../src/store/journal.ts";
import { memsyncJson, newStore, saveMany } from "../helpers/env.ts";

// A corrupt record file has no indexed bytes to settle it by: a status that found it inside the
// racy window journaled its edit, and the next status (the stat still untrusted) journaled the
// same edit again. The index keeps a hash of the bytes it saw, so a corrupt state is journaled
// once, and other corrupt bytes under the very same stat are still a new edit.

const status = (store: string) => memsyncJson(["--store", store, "status"]) as { uncommitted_changes: number };
const edits = (store: string, rel: string) => readJournal(nodeFs, store).filter((e) => e.op === "edit" && e.paths?.includes(rel)).length;

/** Write `text` in place and put its mtime a minute ahead: every look in this test sees it inside its racy window, whatever the load. */
function writeRacy(file: string, text: string, mtime: Date) {
  fs.writeFileSync(file, text);
  fs.utimesSync(file, mtime, mtime);
}

test("a corrupt record file inside the racy window is journaled once per corrupt state", () => {
  const store = newStore();
  const [id] = saveMany(store, ["the corrupt racy record", "a second record beside it"]);
  memsyncJson(["--store", store, "commit"]);
  assert.equal(status(store).uncommitted_changes, 0);
  const rel = `memories/${id}.json`;
  const file = path.join(store, rel);
  const original = fs.readFileSync(file, "utf8");
  const ahead = new Date(Date.now() + 60_000);
  writeRacy(file, '{"id": "not a record', ahead);
  assert.equal(status(store).uncommitted_changes, 1);
  assert.equal(status(store).uncommitted_changes, 1, "the same corrupt bytes: no second edit");
  memsyncJson(["--store", store, "list"]);
  assert.equal(status(store).uncommitted_changes, 1);
  assert.equal(edits(store, rel), 1);
  // other corrupt bytes of the same size under the same stat (in place: same inode, same mtime): a new edit
  writeRacy(file, '{"id": "not a recorD', ahead);
  assert.equal(status(store).uncommitted_changes, 2);
  assert.equal(status(store).uncommitted_changes, 2);
  assert.equal(edits(store, rel), 2);
  // the record's own bytes back: an edit again, once (settled by its indexed bytes, as before)
  writeRacy(file, original, ahead);
  assert.equal(status(store).uncommitted_changes, 3);
  assert.equal(status(store).uncommitted_changes, 3);
  assert.equal(edits(store, rel), 3);
  assert.equal((memsyncJson(["--store", store, "get", id!]) as { found: { memory: { id: string } }[] }).found[0]?.memory.id, id, "the record is served again");
});

test("an index of version 10 gets the column in place: a corrupt file it indexed is journaled once more at most", async () => {
  const store = newStore();
  const [id] = saveMany(store, ["the record an old index saw corrupt"]);
  memsyncJson(["--store", store, "commit"]);
  const rel = `memories/${id}.json`;
  writeRacy(path.join(store, rel), "{ truncated", new Date(Date.now() + 60_000));
  assert.equal(status(store).uncommitted_changes, 1);
  const { DatabaseSync } = await import("node:sqlite");
  const file = path.join(store, ".memsync/index.db");
  const db = new DatabaseSync(file);
  db.exec("ALTER TABLE files DROP COLUMN seen; PRAGMA user_version = 10");
  db.close();
  // upgraded, not rebuilt (a new index journals nothing): its row without a hash is read again,
  // and found to be what the journal's last entry for it already holds (store/journaled.ts)
  assert.equal(status(store).uncommitted_changes, 1);
  assert.equal(status(store).uncommitted_changes, 1);
  const check = new DatabaseSync(file);
  assert.equal((check.prepare("PRAGMA user_version").get() as { user_version: number }).user_version, INDEX_VERSION, "upgraded to the current version");
  assert.ok((check.prepare("SELECT seen FROM files WHERE path = ?").get(rel) as { seen: string | null }).seen, "the hash is kept now");
  check.close();
});
