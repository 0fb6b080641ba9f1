import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { shardOf } from "../../src/core/ids.ts";
import { saveMemory } from "../../src/ops/save.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { loadAll } from "../../src/store/load-all.ts";
import { renameByLink, renameNoReplace } from "../../src/store/rename-noreplace.ts";
import { Store } from "../../src/store/store.ts";
import { memsync, memsyncJson, saveMany, tempDir } from "../helpers/env.ts";

// Machine-local records (scope local) are sharded by the local place's own count, not the whole
// store's, and those a store already has in shard folders under the threshold are moved flat once
// (store/local-flatten.ts), with a kill at any point leaving every record readable exactly once.

const T0 = 1_790_000_000;
const LOCAL_MEM = ".memsync/local/memories";
const LOCAL_REL = ".memsync/local/relations";
const env = (root: string) => ({ storeRoot: root, hostName: "host", user: "alice", machineOverride: "laptop" });

function editSettings(root: string, settings: Record<string, unknown>): void {
  const metaPath = path.join(root, ".meta.json");
  const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
  meta.settings = { ...meta.settings, ...settings };
  fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
}

/** Folders under a top folder (shard folders). */
const subfolders = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name) : []);

/** Every path (relative to the top folder) where a record file with this id is. */
function pathsOf(top: string, id: string): string[] {
  const out: string[] = [];
  if (fs.existsSync(path.join(top, `${id}.json`))) out.push(`${id}.json`);
  for (const d of subfolders(top)) if (fs.existsSync(path.join(top, d, `${id}.json`))) out.push(`${d}/${id}.json`);
  return out;
}

/** A store (memsync init) with `n` local memories and `n - 1` local relations, all in shard folders, then layout auto under a threshold above n. */
function shardedLocalStore(n: number): { root: string; memories: string[]; relations: string[] } {
  const root = path.join(tempDir(), "store");
  assert.equal(memsync(["init", root]).code, 0);
  editSettings(root, { layout: "sharded" });
  const memories = saveMany(root, Array.from({ length: n }, (_, i) => ({ content: `localflat private note ${i} quartzheron`, scope: "local" })));
  assert.equal(memories.length, n);
  const relations: string[] = [];
  for (let i = 1; i < n; i++) relations.push(memsyncJson(["--store", root, "relate", memories[0]!, memories[i]!]).relation.id);
  for (const id of memories) assert.deepEqual(pathsOf(path.join(root, LOCAL_MEM), id), [`${shardOf(id)}/${id}.json`]);
  for (const id of relations) assert.deepEqual(pathsOf(path.join(root, LOCAL_REL), id), [`${shardOf(id)}/${id}.json`]);
  editSettings(root, { layout: "auto", shard_threshold: 100 });
  return { root, memories, relations };
}

/** The status fields a migration must not change. */
function statusView(root: string) {
  const s = memsyncJson(["--store", root, "status"]);
  return { memories: s.memories, relations: s.relations, problems: s.problems, health: s.health, layout: s.layout };
}

/** A copy of the store without its index (the next command builds one from the files). */
function rebuilt(root: string): string {
  const copy = path.join(tempDir(), "copy");
  fs.cpSync(root, copy, { recursive: true });
  fs.rmSync(path.join(copy, ".memsync/index.db"));
  return copy;
}

/** Every local record flat (no shard folder left), the status as `before`, and the same from an index built anew and from the files. */
function assertFlatAndWhole(root: string, memories: string[], relations: string[], before: ReturnType<typeof statusView>): void {
  assert.deepEqual(subfolders(path.join(root, LOCAL_MEM)), [], "empty shard folders removed");
  assert.deepEqual(subfolders(path.join(root, LOCAL_REL)), []);
  for (const id of memories) assert.deepEqual(pathsOf(path.join(root, LOCAL_MEM), id), [`${id}.json`]);
  for (const id of relations) assert.deepEqual(pathsOf(path.join(root, LOCAL_REL), id), [`${id}.json`]);
  assert.deepEqual(statusView(root), before);
  assert.deepEqual(statusView(rebuilt(root)), before, "the index kept matches one built from the files");
  const loaded = loadAll(nodeFs, root);
  assert.equal(loaded.memories.size, memories.length);
  assert.equal(loaded.relations.size, relations.length);
  assert.deepEqual(loaded.problems, []);
}

describe("local records flat", () => {
  test("new local records go flat while the local place is under the threshold, whatever the shared count", async () => {
    const root = path.join(tempDir(), "store");
    writeStoreSkeleton(nodeFs, root, T0);
    editSettings(root, { layout: "auto", shard_threshold: 3 });
    const s = await Store.open(root);
    try {
      const shared = [];
      for (let i = 0; i < 4; i++) shared.push((await saveMemory(s, env(root), { content: `shared note ${i} amberfinch` })).memory.id);
      // the store holds 4 >= 3: new shared records are sharded, as before
      assert.deepEqual(pathsOf(path.join(root, "memories"), shared[3]!), [`${shardOf(shared[3]!)}/${shared[3]}.json`]);
      const local = [];
      for (let i = 0; i < 4; i++) local.push((await saveMemory(s, env(root), { content: `local note ${i} amberfinch`, scope: "local" })).memory.id);
      // flat until the local place itself holds 3
      for (const id of local.slice(0, 3)) assert.deepEqual(pathsOf(path.join(root, LOCAL_MEM), id), [`${id}.json`]);
      assert.deepEqual(pathsOf(path.join(root, LOCAL_MEM), local[3]!), [`${shardOf(local[3]!)}/${local[3]}.json`]);
      assert.equal(s.shardsNewRecords(), true, "the layout status reports (shared records) is unchanged");
    } finally {
      s.close();
    }
    const loaded = loadAll(nodeFs, root);
    assert.equal(loaded.memories.size, 8);
    assert.deepEqual(loaded.problems, []);
  });

  test("a sharded local place under the threshold is moved flat by the next write, index rows with it; status unchanged", { timeout: 120_000 }, () => {
    const { root, memories, relations } = shardedLocalStore(6);
    const before = statusView(root);
    // a read changes nothing on disk
    memsyncJson(["--store", root, "list"]);
    assert.ok(subfolders(path.join(root, LOCAL_MEM)).length > 0);
    // any write moves them (touch: the counts status shows stay as they were)
    memsyncJson(["--store", root, "touch", memories[1]!]);
    assertFlatAndWhole(root, memories, relations, before);
    // the index has them at their new paths: get and search read through it
    assert.deepEqual(memsyncJson(["--store", root, "get", memories[0]!]).found.map((f: { memory: { id: string } }) => f.memory.id), [memories[0]]);
    assert.equal(memsyncJson(["--store", root, "search", "quartzheron", "--limit", "50"]).hits.length, 6);
  });

  for (const n of [1, 4, 9]) {
    test(`killed after the ${n}th file moved (MEMSYNC_FAULT=flatten:${n}): every record readable exactly once, the next write finishes`, { timeout: 120_000 }, () => {
      const { root, memories, relations } = shardedLocalStore(6);
      const before = statusView(root);
      const killed = memsync(["--store", root, "touch", memories[2]!], { env: { MEMSYNC_FAULT: `flatten:${n}` } });
      assert.notEqual(killed.code, 0, "the fault fired");
      for (const id of memories) assert.equal(pathsOf(path.join(root, LOCAL_MEM), id).length, 1, `memory ${id} at exactly one path`);
      for (const id of relations) assert.equal(pathsOf(path.join(root, LOCAL_REL), id).length, 1, `relation ${id} at exactly one path`);
      // the next command (a read) sees every record once and no problem
      assert.deepEqual(statusView(root), before);
      assert.equal(memsyncJson(["--store", root, "list", "--limit", "0"]).total, 6);
      assert.equal(memsyncJson(["--store", root, "search", "quartzheron", "--limit", "50"]).hits.length, 6);
      for (const id of memories) assert.deepEqual(memsyncJson(["--store", root, "get", id]).found.map((f: { memory: { id: string } }) => f.memory.id), [id]);
      // the next write moves the rest
      memsyncJson(["--store", root, "touch", memories[2]!]);
      assertFlatAndWhole(root, memories, relations, before);
    });
  }
});

describe("renameNoReplace", () => {
  for (const [name, move] of [["renameat2", renameNoReplace], ["link and unlink", renameByLink]] as const) {
    test(`${name}: moves a file; never replaces one at the new name; false when the old name is gone`, () => {
      const dir = tempDir();
      const a = path.join(dir, "a.json");
      const b = path.join(dir, "b.json");
      fs.writeFileSync(a, "first");
      assert.equal(move(a, b), true);
      assert.equal(fs.existsSync(a), false);
      assert.equal(fs.readFileSync(b, "utf8"), "first");
      fs.writeFileSync(a, "second");
      assert.equal(move(a, b), false, "something is at the new name");
      assert.equal(fs.readFileSync(a, "utf8"), "second");
      assert.equal(fs.readFileSync(b, "utf8"), "first");
      assert.equal(move(path.join(dir, "none.json"), path.join(dir, "c.json")), false);
      assert.equal(fs.existsSync(path.join(dir, "c.json")), false);
    });
  }
});
