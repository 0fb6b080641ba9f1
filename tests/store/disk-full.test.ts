import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, filesUnder, newStore, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// A disk that refuses writes (full, read-only) is exit 6 with one plain line, never "internal
// error"; a failed write leaves no record file and no temp file; temp files killed processes
// left are removed by a later writer once they are old. The full and read-only disks are real:
// a tiny tmpfs (needs root; the tests say so and skip without it).

const UNAVAILABLE = 6;

/** Mount a tmpfs of `size` at a new folder; null when mounting is not permitted here. */
function tinyDisk(size: string): { dir: string; unmount: () => void } | null {
  const dir = tempDir("memsync-tmpfs-");
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) return null;
  return { dir, unmount: () => void spawnSync("umount", ["-l", dir]) };
}

const tempsIn = (store: string) => filesUnder(store).filter((f) => f.endsWith(".tmp"));
const memoryFiles = (store: string) => filesUnder(path.join(store, "memories"), ".json").filter((f) => !path.basename(f).startsWith("."));

function oneLine(r: { stderr: string }, pattern: RegExp) {
  const lines = r.stderr.split("\n").filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(lines[0]!, /internal error/);
}

describe("a disk that refuses writes", () => {
  test("full (ENOSPC): a save fails with exit 6 and leaves no record and no temp file", async (t) => {
    const disk = tinyDisk("1m");
    if (!disk) return t.skip("mount -t tmpfs is not permitted here (needs root): ENOSPC not tested");
    try {
      const store = path.join(disk.dir, "store");
      assert.equal((await memsync(["init", store])).code, 0);
      const first = (await memsyncJson(["save", "--store", store, "a memory saved while there was room"])).memory.id;
      // fill the disk, then give back a little room at a time: each save of a ~45 KB memory
      // either succeeds whole or fails leaving nothing (the record, the journal or the index
      // may be what runs out of room)
      const fill = path.join(disk.dir, "fill");
      const fd = fs.openSync(fill, "w");
      const chunk = Buffer.alloc(16 * 1024);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (e) {
        assert.equal((e as { code?: string }).code, "ENOSPC");
      }
      fs.closeSync(fd);
      const big = "a large memory that needs room on the disk ".repeat(1000);
      let failed = 0;
      for (const room of [0, 8, 24, 40, 56, 72, 96, 128]) {
        fs.truncateSync(fill, Math.max(0, fs.statSync(fill).size - room * 1024));
        const before = memoryFiles(store).length;
        const r = await memsync(["save", "--store", store, `${big} ${room}`]);
        if (r.code === 0) {
          assert.equal(memoryFiles(store).length, before + 1);
        } else {
          failed++;
          assert.equal(r.code, UNAVAILABLE, r.stderr);
          oneLine(r, /^memsync: cannot (write|open).*(no space left|SQLITE_FULL|disk I\/O error|unable to open)/);
          assert.equal(memoryFiles(store).length, before, `room ${room} KB: the failed save left its record file`);
        }
        assert.deepEqual(tempsIn(store), [], `room ${room} KB: temp files left`);
        // fill again for the next round
        fs.truncateSync(fill, fs.statSync(fill).size + room * 1024);
      }
      assert.ok(failed > 0, "the disk was never full");
      const touched = await memsync(["touch", "--store", store, first]);
      if (touched.code !== 0) {
        assert.equal(touched.code, UNAVAILABLE);
        oneLine(touched, /no space left|SQLITE_FULL|disk I\/O error|unable to open/);
      }
      // room again: the store works and is healthy
      fs.rmSync(fill);
      assert.equal((await memsync(["save", "--store", store, "saved once there was room again"])).code, 0);
      const status = await memsyncJson(["status", "--store", store]);
      assert.equal(status.health, "healthy", JSON.stringify(status.reasons));
      assert.deepEqual(status.temp_files, []);
    } finally {
      disk.unmount();
    }
  });

  test("full (ENOSPC): an update either replaces the record whole or leaves the old file as it was", { timeout: 180_000 }, async (t) => {
    const disk = tinyDisk("1m");
    if (!disk) return t.skip("mount -t tmpfs is not permitted here (needs root): ENOSPC not tested");
    try {
      const store = path.join(disk.dir, "store");
      assert.equal((await memsync(["init", store])).code, 0);
      const big = "a large memory that needs room on the disk ".repeat(1000);
      const id = (await memsyncJson(["save", "--store", store, `${big} first`])).memory.id;
      const file = memoryFiles(store)[0]!;
      const fill = path.join(disk.dir, "fill");
      const fd = fs.openSync(fill, "w");
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(16 * 1024));
      } catch (e) {
        assert.equal((e as { code?: string }).code, "ENOSPC");
      }
      fs.closeSync(fd);
      let failed = 0;
      for (const room of [0, 8, 24, 40, 48, 56, 72, 96, 128]) {
        fs.truncateSync(fill, Math.max(0, fs.statSync(fill).size - room * 1024));
        const before = fs.readFileSync(file, "utf8");
        const r = await memsync(["update", "--store", store, id, "--content", `${big} ${room}`]);
        if (r.code === 0) {
          assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).content, `${big} ${room}`);
        } else {
          failed++;
          assert.equal(r.code, UNAVAILABLE, r.stderr);
          assert.equal(fs.readFileSync(file, "utf8"), before, `room ${room} KB: the failed update changed the record`);
        }
        assert.deepEqual(tempsIn(store), [], `room ${room} KB: temp files left`);
        fs.truncateSync(fill, fs.statSync(fill).size + room * 1024);
      }
      assert.ok(failed > 0, "the disk was never full");
      fs.rmSync(fill);
      assert.equal((await memsyncJson(["status", "--store", store])).health, "healthy");
    } finally {
      disk.unmount();
    }
  });

  test("full (ENOSPC) during an import's bulk write (files made on worker threads): exit 6, no record and no temp file left", { timeout: 180_000 }, async (t) => {
    const disk = tinyDisk("1m");
    if (!disk) return t.skip("mount -t tmpfs is not permitted here (needs root): ENOSPC not tested");
    try {
      const store = path.join(disk.dir, "store");
      assert.equal((await memsync(["init", store])).code, 0);
      // 400 memories of ~3 KB (past the few made on the calling thread): more than the disk holds
      const src = tempDir("memsync-import-src-");
      const line = (i: number) => JSON.stringify({ id: crypto.randomUUID(), content: `memory ${i} ${"needs room on the disk ".repeat(140)}`, meta: { tags: ["t"] }, created_at: 1700000000 + i, last_used: 1700000000 + i, use_count: 1, strength: 1.0, status: "active" });
      fs.writeFileSync(path.join(src, "memories.jsonl"), Array.from({ length: 400 }, (_, i) => line(i)).join("\n") + "\n");
      const r = await memsync(["--store", store, "import", "cortexgraph", src]);
      assert.equal(r.code, UNAVAILABLE, r.stderr);
      oneLine(r, /^memsync: cannot (write|open).*(no space left|SQLITE_FULL|disk I\/O error|unable to open)/);
      assert.deepEqual(memoryFiles(store), [], "the failed import left record files");
      assert.deepEqual(tempsIn(store), [], "the failed import left temp files");
      // the room it took is free again: a small import goes through and the store is healthy
      fs.writeFileSync(path.join(src, "memories.jsonl"), Array.from({ length: 3 }, (_, i) => line(i)).join("\n") + "\n");
      assert.equal((await memsync(["--store", store, "import", "cortexgraph", src])).code, 0);
      assert.equal(memoryFiles(store).length, 3);
      assert.equal((await memsyncJson(["status", "--store", store])).health, "healthy");
    } finally {
      disk.unmount();
    }
  });

  test("read-only (EROFS): writes fail with exit 10 (read-only store) and one plain line", async (t) => {
    const disk = tinyDisk("1m");
    if (!disk) return t.skip("mount -t tmpfs is not permitted here (needs root): EROFS not tested");
    try {
      const store = path.join(disk.dir, "store");
      assert.equal((await memsync(["init", store])).code, 0);
      const id = (await memsyncJson(["save", "--store", store, "saved before the disk turned read-only"])).memory.id;
      const ro = spawnSync("mount", ["-o", "remount,ro", disk.dir], { encoding: "utf8" });
      if (ro.status !== 0) return t.skip(`remount read-only refused: ${ro.stderr.trim()}`);
      for (const args of [["save", "x"], ["touch", id], ["update", id, "--content", "y"], ["delete", id]]) {
        const r = await memsync(["--store", store, ...args]);
        // the whole store is on the read-only disk: a read-only store (tests/store/read-only.test.ts)
        assert.equal(r.code, 10, `${args[0]}: ${r.stderr}`);
        oneLine(r, new RegExp(`^memsync: the store at ${store} is read-only: ${args[0]} needs to write to it$`));
      }
    } finally {
      disk.unmount();
    }
  });
});

test("temp files older than five minutes are removed by the next save (or status); young ones are left", async () => {
  const store = newStore();
  const id = (await memsyncJson(["save", "--store", store, "a memory"])).memory.id;
  const old = Date.now() / 1000 - 10 * 60;
  const oldTemp = path.join(store, "memories", `.${id}.json.0a1b2c3d4e5f.tmp`);
  const youngTemp = path.join(store, "memories", `.${id}.json.5f4e3d2c1b0a.tmp`);
  const oldJournalTemp = path.join(store, ".memsync", `journal.jsonl.${Date.now() - 600_000}.tmp`);
  // a replaced record's backup a killed writer left (StoreTx.keepOld), old and young
  const oldBackup = path.join(store, ".memsync", `replaced-${id}.0a1b2c.tmp`);
  const youngBackup = path.join(store, ".memsync", `replaced-${id}.5f4e3d.tmp`);
  for (const f of [oldTemp, youngTemp, oldJournalTemp, oldBackup, youngBackup]) fs.writeFileSync(f, "");
  for (const f of [oldTemp, oldJournalTemp, oldBackup]) fs.utimesSync(f, old, old);
  assert.equal((await memsync(["save", "--store", store, "the next writer"])).code, 0);
  assert.equal(fs.existsSync(oldTemp), false, "the old temp file is removed");
  assert.equal(fs.existsSync(oldJournalTemp), false, "the old journal temp file is removed");
  assert.equal(fs.existsSync(oldBackup), false, "the old backup is removed");
  assert.equal(fs.existsSync(youngTemp), true, "a young one may be a write in progress: left");
  assert.equal(fs.existsSync(youngBackup), true, "a young backup may be a write's in progress: left");
  fs.rmSync(youngBackup);
  assert.deepEqual((await memsyncJson(["status", "--store", store])).temp_files, [`memories/${path.basename(youngTemp)}`]);
  // status, which lists every folder, removes old ones too (and reports the rest)
  fs.utimesSync(youngTemp, old, old);
  assert.deepEqual((await memsyncJson(["status", "--store", store])).temp_files, []);
  assert.equal(fs.existsSync(youngTemp), false);
});
