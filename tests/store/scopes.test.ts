import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { createMemory, createRelation } from "../../src/core/records.ts";
import { newId } from "../../src/core/new-id.ts";
import { updateMemoryOp } from "../../src/ops/edit.ts";
import { saveMemory } from "../../src/ops/save.ts";
import { splitOp } from "../../src/ops/split.ts";
import { deleteMemories } from "../../src/ops/delete.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { readJournal } from "../../src/store/journal.ts";
import { isMachineLocalPath, placeOf } from "../../src/store/layout.ts";
import { loadAll } from "../../src/store/load-all.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// Scopes in the store, in process: where a local record lives, what the journal (and so a
// commit) may see of it, and the moves a scope change makes. The two-machine rules are in
// tests/sync/scopes.test.ts.

const T0 = 1_790_000_000;
const env = (root: string) => ({ storeRoot: root, hostName: "host", user: "alice", machineOverride: "laptop" });

function store(): string {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  return root;
}

const journalPaths = (root: string) => readJournal(nodeFs, root).flatMap((e) => e.paths);
const journalText = (root: string) => (fs.existsSync(`${root}/.memsync/journal.jsonl`) ? fs.readFileSync(`${root}/.memsync/journal.jsonl`, "utf8") : "");

describe("scopes in the store", () => {
  test("a local memory: its file under .memsync/local/, indexed, never journaled; its relations local; scope moves are one entry", async () => {
    const root = store();
    const s = await Store.open(root);
    try {
      const local = (await saveMemory(s, env(root), { content: "lynxpebble secret", scope: "local" })).memory;
      const team = (await saveMemory(s, env(root), { content: "lynxpebble team" })).memory;
      assert.equal(placeOf((await s.readMemory(local.id))!.path), "local");
      assert.ok(fs.existsSync(`${root}/.memsync/local/memories/${local.id}.json`));
      const rel = createRelation({ from: team.id, to: local.id, type: "related" }, newId(), T0);
      await s.write((tx) => {
        tx.putRelation(rel);
        tx.note("relate", "relate: x");
      });
      assert.ok(fs.existsSync(`${root}/.memsync/local/relations/${rel.id}.json`));
      const hits = (await s.search('"lynxpebble"', {}, null)).hits.map((h) => h.memory.id);
      assert.deepEqual(hits.sort(), [local.id, team.id].sort());
      assert.equal((await s.relationsOf(team.id)).outgoing.length, 1);
      assert.ok(!journalPaths(root).some(isMachineLocalPath));
      assert.ok(!journalText(root).includes("secret"));
      assert.equal(loadAll(nodeFs, root).memories.size, 2);

      // to team: the memory and its relation move in one entry, which may quote it now
      const before = readJournal(nodeFs, root).length;
      await updateMemoryOp(s, local.id, { scope: "team" });
      const entries = readJournal(nodeFs, root).slice(before);
      assert.equal(entries.length, 1);
      assert.deepEqual(entries[0]!.paths.sort(), [`memories/${local.id}.json`, `relations/${rel.id}.json`]);
      assert.ok(!fs.existsSync(`${root}/.memsync/local/memories/${local.id}.json`));
      // back to local: one entry deleting both, quoting nothing
      await updateMemoryOp(s, local.id, { scope: "local" });
      const back = readJournal(nodeFs, root).slice(before + 1);
      assert.equal(back.length, 1);
      assert.deepEqual(back[0]!.paths.sort(), [`memories/${local.id}.json`, `relations/${rel.id}.json`]);
      assert.doesNotMatch(back[0]!.message, /lynxpebble/);
      assert.ok(!fs.existsSync(`${root}/memories/${local.id}.json`));
      assert.equal((await s.relationsOf(team.id)).outgoing[0]!.id, rel.id);

      // deleted: nothing journaled (the files never were shared)
      const n = readJournal(nodeFs, root).length;
      await deleteMemories(s, [local.id]);
      assert.equal(readJournal(nodeFs, root).length, n);
      assert.deepEqual(fs.readdirSync(`${root}/.memsync/local/memories`), []);
      assert.deepEqual(fs.readdirSync(`${root}/.memsync/local/relations`), []);
    } finally {
      s.close();
    }
  });

  test("split of a local memory: parts and every relation copied to them stay local, even to a team memory", async () => {
    const root = store();
    const s = await Store.open(root);
    try {
      const local = (await saveMemory(s, env(root), { content: "Use the otter cache. Deploy on fridays never.", scope: "local" })).memory;
      const team = (await saveMemory(s, env(root), { content: "otter team page" })).memory;
      const rel = createRelation({ from: team.id, to: local.id, type: "related" }, newId(), T0);
      await s.write((tx) => {
        tx.putRelation(rel);
      });
      const before = readJournal(nodeFs, root).length;
      const out = await splitOp(s, env(root), { id: local.id, parts: [{ content: "Use the otter cache." }, { content: "Deploy on fridays never." }], claim: true });
      for (const p of out.parts) assert.equal(p.scope, "local");
      const shared = readJournal(nodeFs, root).slice(before).flatMap((e) => e.paths);
      assert.ok(shared.every((p) => p === ".meta.json"), shared.join(", "));
      assert.equal(fs.readdirSync(`${root}/relations`).length, 0);
      assert.equal((await s.relationsOf(team.id)).outgoing.length, 2);
    } finally {
      s.close();
    }
  });

  test("a shared file whose scope was set to local by hand moves out on update", async () => {
    const root = store();
    const s = await Store.open(root);
    try {
      const m = (await saveMemory(s, env(root), { content: "heron note" })).memory;
      const file = `${root}/memories/${m.id}.json`;
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"scope": "team"', '"scope": "local"'));
      await s.refresh(true);
      await updateMemoryOp(s, m.id, { scope: "local" });
      assert.ok(!fs.existsSync(file));
      assert.ok(fs.existsSync(`${root}/.memsync/local/memories/${m.id}.json`));
      assert.equal((await s.readMemory(m.id))!.result.ok, true);
      // a move killed halfway (both copies on disk): asking again removes the shared one
      fs.writeFileSync(file, fs.readFileSync(`${root}/.memsync/local/memories/${m.id}.json`, "utf8").replace('"scope": "local"', '"scope": "team"'));
      await s.refresh(true);
      await updateMemoryOp(s, m.id, { scope: "local" });
      assert.ok(!fs.existsSync(file));
      assert.equal((await s.readMemory(m.id))!.result.ok, true);
      assert.equal((await s.list({}, null)).memories.length, 1);
    } finally {
      s.close();
    }
  });
});
