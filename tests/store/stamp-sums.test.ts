import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { type Memory, memoryToJson } from "../../src/core/model/memory.ts";
import { createMemory, updateMemory } from "../../src/core/records.ts";
import { TEMP_SUFFIX } from "../../src/store/atomic-write.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { planIsEmpty } from "../../src/store/refresh.ts";
import { addStamp, dirSumsFromFiles, emptySums } from "../../src/store/stamp-sums.ts";
import { INDEX_FILE, Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";
import { countRowLoads } from "../helpers/row-loads.ts";

// A full refresh (status) compares a folder whose listing cannot have changed by sums of its
// files' stamps (src/store/stamp-sums.ts) instead of row by row. These check that the sums SQLite
// makes are the ones made from the files, that edits in place the sums could miss if they were
// plain sums are found, and that what status reports from a listing (links, temp files) is still
// reported when no row is compared.

const T0 = 1_790_000_000;

function mem(content: string, id = newId()): Memory {
  return createMemory({ content }, id, { now: T0, machine: "test-machine", user: "tester" });
}

/** A store whose memories are written into shard folders (`sharded`) or the top folder. */
async function settledStore(contents: string[], layout: "flat" | "sharded"): Promise<{ store: Store; root: string; ms: Memory[]; skip: (ms: number) => void }> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const metaPath = path.join(root, ".meta.json");
  const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
  fs.writeFileSync(metaPath, `${JSON.stringify({ ...meta, settings: { ...meta.settings, layout } }, null, 2)}\n`);
  let offset = 0;
  const store = await Store.open(root, { nowMs: () => Date.now() + offset });
  // one shard folder for all (the shard is the id's last two hex digits)
  const ms = contents.map((c) => mem(c, layout === "sharded" ? `${newId().slice(0, -2)}a7` : newId()));
  await store.write((tx) => ms.map((m) => tx.putMemory(m)));
  // everything indexed so far trusted (looked at well after its last change): a full refresh, which
  // settles racily clean rows; a quick one may answer "unchanged" from the folders alone and settle
  // nothing (it did under load, when the write recorded its folder past the racy window)
  offset += 10_000;
  await store.refresh(true);
  assert.ok(planIsEmpty(await store.refresh()));
  return { store, root, ms, skip: (n) => void (offset += n) };
}

/** The folder's sums made from its files, as a full refresh makes them. */
function diskSums(dir: string) {
  const sums = emptySums();
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    const st = nodeFs.stat(path.join(dir, name))!;
    addStamp(sums, st.mtime, st.size, st.ino);
  }
  return sums;
}

/** Rewrite a record file in place (same inode, same size) and give it this mtime. */
function editInPlace(file: string, from: string, to: string, mtimeMs: number): void {
  const text = fs.readFileSync(file, "utf8");
  assert.equal(from.length, to.length);
  fs.writeFileSync(file, text.replace(from, to));
  fs.utimesSync(file, new Date(), mtimeMs / 1000);
}

describe("full refresh by folder sums", () => {
  test("the index's sums are the files' sums; an unchanged store loads no row; edits whose plain sums cancel are still found", async () => {
    const { store, root, ms } = await settledStore(["alpha one", "bravo two", "charlie three", "delta four"], "flat");
    try {
      const dir = path.join(root, "memories");
      const { dir: _, ...indexed } = store.index.folderSums("memory").get("memories") as ReturnType<typeof emptySums> & { dir: string };
      assert.deepEqual(indexed, diskSums(dir), "SQLite's sums and the ones made while statting agree");
      const loads = countRowLoads(store);
      assert.ok(planIsEmpty(await store.refresh(true)));
      assert.equal(loads.n, 0, "a folder whose sums agree is not compared row by row");

      // a file copied in place with its old mtime kept (cp -p): its mtime goes back, its size stays
      const rowA = store.index.file(`memories/${ms[0]!.id}.json`)!;
      editInPlace(path.join(dir, `${ms[0]!.id}.json`), "alpha one", "ALPHA ONE", rowA.mtime - 60_000);
      const planA = await store.refresh(true);
      assert.deepEqual(planA.upserts.map((u) => u.row.path), [`memories/${ms[0]!.id}.json`]);
      assert.ok(loads.n > 0, "the changed folder was compared row by row");
      const readA = (await store.readMemory(ms[0]!.id))?.result;
      assert.ok(readA?.ok);
      assert.equal(readA.record.content, "ALPHA ONE");

      // two edits whose mtimes move by the same amount in opposite directions: the plain sums of
      // mtimes and sizes are as they were; the mixed sum is not
      const rowB = store.index.file(`memories/${ms[1]!.id}.json`)!;
      const rowC = store.index.file(`memories/${ms[2]!.id}.json`)!;
      editInPlace(path.join(dir, `${ms[1]!.id}.json`), "bravo two", "BRAVO TWO", rowB.mtime + 7_000);
      editInPlace(path.join(dir, `${ms[2]!.id}.json`), "charlie three", "CHARLIE THREE", rowC.mtime - 7_000);
      const after = diskSums(dir);
      const { dir: __, ...before } = store.index.folderSums("memory").get("memories") as ReturnType<typeof emptySums> & { dir: string };
      assert.equal(after.mtimeHigh * 1_048_576 + after.mtimeLow, before.mtimeHigh * 1_048_576 + before.mtimeLow);
      assert.equal(after.size, before.size);
      const planBC = await store.refresh(true);
      assert.deepEqual(planBC.upserts.map((u) => u.row.path).sort(), [`memories/${ms[1]!.id}.json`, `memories/${ms[2]!.id}.json`].sort());
      loads.restore();
    } finally {
      store.close();
    }
  });

  for (const layout of ["flat", "sharded"] as const) {
  test(`links and temp files in a folder compared by its sums are still reported (${layout})`, async () => {
    const { store, root, skip } = await settledStore(["echo five", "foxtrot six"], layout);
    try {
      const rel = layout === "flat" ? "memories" : "memories/a7";
      const dir = path.join(root, rel);
      assert.equal(fs.readdirSync(dir).filter((n) => n.endsWith(".json")).length, 2);
      const temp = `.${newId()}.json.abc123${TEMP_SUFFIX}`;
      fs.writeFileSync(path.join(dir, temp), "{");
      fs.symlinkSync(tempDir(), path.join(dir, "elsewhere"));
      const listed = await store.refresh(true); // the folder changed: listed whole
      assert.deepEqual(listed.temps, [`${rel}/${temp}`]);
      assert.deepEqual(listed.links, [`${rel}/elsewhere`]);
      skip(10_000);
      await store.refresh(); // the folder's new state trusted
      const loads = countRowLoads(store);
      const again = await store.refresh(true, undefined, { lookFirst: true });
      assert.equal(loads.n, 0, "compared by its sums");
      assert.deepEqual(again.temps, [`${rel}/${temp}`]);
      assert.deepEqual(again.links, [`${rel}/elsewhere`]);
      loads.restore();
    } finally {
      store.close();
    }
  });
  }
  test("the sums kept by triggers stay the files table's sums through writes, rewrites, settles, duplicates and deletes; an index of version 7 gets them in place", async () => {
    const { DatabaseSync } = await import("node:sqlite");
    const { store, root, ms, skip } = await settledStore(["golf seven", "hotel eight", "india nine"], "sharded");
    const kept = (db: InstanceType<typeof DatabaseSync>) => db.prepare("SELECT kind, dir, n, mtime_high, mtime_low, size, mixed, unsure FROM dir_sums ORDER BY kind, dir").all();
    const made = (db: InstanceType<typeof DatabaseSync>) => db.prepare(`SELECT * FROM (${dirSumsFromFiles()}) ORDER BY kind, dir`).all();
    const file = path.join(root, INDEX_FILE);
    const check = (what: string) => {
      const db = new DatabaseSync(file);
      try {
        assert.deepEqual(kept(db), made(db), what);
      } finally {
        db.close();
      }
    };
    try {
      check("after the first writes and their settling");
      // new files in two folders (a new shard folder too), racily clean at first
      await store.write((tx) => [tx.putMemory(mem("juliet ten")), tx.putMemory(mem("kilo eleven", `${newId().slice(0, -2)}b8`))]);
      check("after new files");
      await store.write((tx) => tx.putMemory(updateMemory(tx.memory(ms[0]!.id), { content: "golf seven, rewritten" }, T0 + 5).memory));
      check("after a rewrite");
      skip(10_000);
      await store.refresh(true); // racily clean rows settled: their indexed_at moves
      check("after settling");
      // a second copy of a record in another folder: set aside as a duplicate
      const dupDir = path.join(root, "memories", "c9");
      fs.mkdirSync(dupDir, { recursive: true });
      fs.copyFileSync(path.join(root, "memories", "a7", `${ms[1]!.id}.json`), path.join(dupDir, `${ms[1]!.id}.json`));
      await store.refresh(true);
      check("after a duplicate was found");
      await store.write((tx) => tx.removeMemory(ms[1]!.id));
      check("after a delete of the record with a duplicate");
      fs.rmSync(dupDir, { recursive: true });
      await store.refresh(true);
      check("after a folder went away");
      const db = new DatabaseSync(file);
      assert.equal((db.prepare("SELECT count(*) AS n FROM dir_sums WHERE dir = 'memories/c9'").get() as { n: number }).n, 0, "an emptied folder's row is dropped");
      db.exec("DROP TABLE dir_sums; DROP INDEX files_problem; PRAGMA user_version = 7");
      db.close();
    } finally {
      store.close();
    }
    // an index of version 7 (no sums table, no triggers): upgraded in place, not rebuilt
    const again = await Store.open(root);
    try {
      assert.equal(again.index.created, false, "not rebuilt");
      check("after the upgrade");
      const plan = new DatabaseSync(file);
      const detail = (plan.prepare("EXPLAIN QUERY PLAN SELECT * FROM files WHERE problem IS NOT NULL").all() as { detail: string }[]).map((r) => r.detail).join("; ");
      plan.close();
      assert.match(detail, /files_problem/, "the files with a problem found through their index, made by the upgrade");
      assert.ok(planIsEmpty(await again.refresh(true)));
      await again.write((tx) => tx.putMemory(mem("lima twelve")));
      check("the upgrade's triggers keep them");
    } finally {
      again.close();
    }
  });
});
