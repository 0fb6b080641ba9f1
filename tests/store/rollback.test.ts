import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { filesUnder, memsync, memsyncJson, newStore } from "../helpers/env.ts";

// A change that fails after it replaced a record file (its journal entry or its index row is
// refused) leaves the old file as it was: the index rolled back, and so does the file. The
// failure is real: the journal's path is made a folder, so appending to it fails (EISDIR) after
// the record was written.

const fileOf = (store: string, id: string) => fs.readFileSync(path.join(store, "memories", `${id}.json`), "utf8");
const leftovers = (store: string) => filesUnder(store).filter((f) => f.endsWith(".tmp") && !f.includes(`${path.sep}.git${path.sep}`));

test("update and touch that fail after writing the record leave the old file; once the cause is gone they work", () => {
  const store = newStore();
  const id = memsyncJson(["--store", store, "save", "the text before"]).memory.id as string;
  const other = memsyncJson(["--store", store, "save", "another memory"]).memory.id as string;
  memsyncJson(["--store", store, "commit"]);
  const journal = path.join(store, ".memsync", "journal.jsonl");
  assert.equal(fs.existsSync(journal), false, "commit emptied the journal");
  fs.mkdirSync(journal);
  const before = fileOf(store, id);
  const otherBefore = fileOf(store, other);

  for (const args of [["update", id, "--content", "the text after"], ["touch", id, other], ["update", id, "--add-tag", "x"]]) {
    const r = memsync(["--store", store, ...args]);
    assert.notEqual(r.code, 0, `${args[0]} cannot journal its change: it fails`);
    assert.equal(r.stderr.split("\n").filter(Boolean).length, 1, r.stderr);
    assert.equal(fileOf(store, id), before, `${args.join(" ")}: the old record is back, byte for byte`);
    assert.equal(fileOf(store, other), otherBefore);
    assert.deepEqual(leftovers(store), [], "no temp file or kept old version left");
  }
  // the index agrees with the files (it rolled back too)
  const got = memsyncJson(["--store", store, "get", id]).found[0].memory;
  assert.equal(got.content, "the text before");
  assert.equal(got.use_count, 0);

  fs.rmdirSync(journal);
  assert.equal(memsyncJson(["--store", store, "update", id, "--content", "the text after"]).memories[0].content, "the text after");
  assert.equal(JSON.parse(fileOf(store, id)).content, "the text after");
  assert.deepEqual(leftovers(store), []);
  const status = memsyncJson(["--store", store, "status"]);
  assert.equal(status.health, "healthy", JSON.stringify(status.reasons));
  // exactly the successful update is waiting to be committed: the failed ones left no trace
  assert.equal(status.uncommitted_changes, 1);
});
