import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { nodeFs } from "../../src/store/fs-port.ts";
import { appendJournal, readJournal } from "../../src/store/journal.ts";
import { memsync, memsyncJson, newStore } from "../helpers/env.ts";

// A write may journal its record file and leave the file's index row to the next refresh
// (ops/save-unindexed.ts). That refresh finds the file new in a folder it knew: it must not
// journal it again as an edit made outside memsync (history would show an "edit" over the save),
// yet a file changed after its entry is still such an edit, whatever the journal says of it.

const status = (store: string) => memsyncJson<{ uncommitted_changes: number }>(["--store", store, "status", "--json"]);

/** A real memory's file from a scratch store, as a write would leave it: its store-relative path and text. */
function madeElsewhere(text: string): { rel: string; json: string } {
  const scratch = newStore();
  const saved = memsyncJson<{ path: string }>(["--store", scratch, "save", text, "--json"]);
  return { rel: saved.path, json: fs.readFileSync(path.join(scratch, saved.path), "utf8") };
}

test("a file its journal entry holds as it is now is indexed by the next refresh, not journaled again", () => {
  const store = newStore();
  assert.equal(memsync(["--store", store, "save", "An indexed memory beside them"]).code, 0);
  assert.equal(memsync(["--store", store, "commit"]).code, 0);
  assert.equal(status(store).uncommitted_changes, 0);
  const own = madeElsewhere("Journaled by its write, indexed later");
  const changed = madeElsewhere("Journaled, then edited by hand before any refresh");
  for (const { rel, json } of [own, changed]) {
    fs.writeFileSync(path.join(store, rel), json);
    appendJournal(nodeFs, store, { op: "save", message: `save: ${rel}`, paths: [rel], files: { [rel]: json }, at: Math.floor(Date.now() / 1000) });
  }
  const edited = changed.json.replace("edited by hand before", "edited by hand, then");
  fs.writeFileSync(path.join(store, changed.rel), edited);
  assert.equal(status(store).uncommitted_changes, 3, "two saves and the one edit");
  const entries = readJournal(nodeFs, store);
  assert.deepEqual(
    entries.map((e) => e.op),
    ["save", "save", "edit"],
  );
  assert.deepEqual(entries[2]!.paths, [changed.rel]);
  assert.equal(entries[2]!.files?.[changed.rel], edited);
  const id = JSON.parse(own.json).id as string;
  const got = memsyncJson<{ found: { memory: { id: string } }[] }>(["--store", store, "get", id, "--json"]);
  assert.equal(got.found[0]?.memory.id, id, "the refresh indexed it");
  assert.equal(status(store).uncommitted_changes, 3, "found once");
});
