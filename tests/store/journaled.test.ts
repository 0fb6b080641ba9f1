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

test("only the last entry naming a path decides, a path quoted inside a text is no entry of it, and a torn line none", async () => {
  const { journaledAsFound } = await import("../../src/store/journaled.ts");
  const root = fs.mkdtempSync(path.join((await import("node:os")).tmpdir(), "memsync-journaled-"));
  fs.mkdirSync(path.join(root, ".memsync"));
  const p = "memories/ab/0198f3a2-0000-7000-8000-0000000000ab.json";
  const q = "memories/cd/0198f3a2-0000-7000-8000-0000000000cd.json";
  const at = 1;
  appendJournal(nodeFs, root, { op: "save", message: "save", paths: [p], files: { [p]: "first" }, at });
  assert.deepEqual([...journaledAsFound(nodeFs, root, { [p]: "first" })], [p]);
  appendJournal(nodeFs, root, { op: "update", message: "update", paths: [p], files: { [p]: "second" }, at });
  assert.deepEqual([...journaledAsFound(nodeFs, root, { [p]: "first" })], [], "an older entry's text is not what the file holds now");
  assert.deepEqual([...journaledAsFound(nodeFs, root, { [p]: "second" })], [p]);
  // another path's text quoting p (its quotes escaped in the line): still the update decides
  appendJournal(nodeFs, root, { op: "save", message: "save", paths: [q], files: { [q]: `see "${p}"` }, at });
  assert.deepEqual([...journaledAsFound(nodeFs, root, { [p]: "second", [q]: `see "${p}"` })].sort(), [p, q]);
  assert.deepEqual([...journaledAsFound(nodeFs, root, { [p]: null })], [], "a removal found is journaled");
  // a torn last line naming p (a crash mid-append): journaled as found, the safe side
  fs.appendFileSync(path.join(root, ".memsync/journal.jsonl"), `{"op":"update","message":"update","paths":["${p}"],"files":{"${p}":"sec`);
  assert.deepEqual([...journaledAsFound(nodeFs, root, { [p]: "second" })], []);
  fs.rmSync(root, { recursive: true });
});
