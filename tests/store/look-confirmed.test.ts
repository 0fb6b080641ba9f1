import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "node:test";
import { shardOf } from "../../src/core/ids.ts";
import { saveMemory } from "../../src/ops/save.ts";
import { type StoreFs, nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { readJournal } from "../../src/store/journal.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// A quick refresh that finds a change looks without the lock, then takes the lock and applies.
// Under the lock it takes the look's plan (confirmLook) instead of listing the changed folders
// again, when the index is the one the look read and everything the plan found or records is
// still as the look saw it. A hand edit made between the look and the lock must still be seen by
// this refresh or the next (the racy rule's point), and another process's index write between
// them must not be applied twice. The edits here land exactly there: the Store's lock step is
// wrapped so that each runs after the look, before the lock.

const T0 = 1_790_000_000;
const env = (root: string) => ({ storeRoot: root, hostName: "host", user: "alice", machineOverride: "laptop" });

function shardedSkeleton(): string {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const metaPath = path.join(root, ".meta.json");
  const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
  meta.settings = { ...meta.settings, layout: "sharded" };
  fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return root;
}

/** Every memory folder's mtime a minute back: the next listing records them trusted at once. */
function settleFolders(root: string): void {
  const past = new Date(Date.now() - 60_000);
  const top = path.join(root, "memories");
  for (const d of fs.readdirSync(top, { withFileTypes: true })) if (d.isDirectory()) fs.utimesSync(path.join(top, d.name), past, past);
  fs.utimesSync(top, past, past);
}

/** The store's readdir calls per folder (a port over the disk: the same answers, counted). */
function countingFs(): { fs: StoreFs; listed: Map<string, number> } {
  const listed = new Map<string, number>();
  const count = (p: string) => listed.set(p, (listed.get(p) ?? 0) + 1);
  return {
    listed,
    fs: {
      ...nodeFs,
      readdir: (p) => (count(p), nodeFs.readdir(p)),
      readdirNames: (p) => (count(p), nodeFs.readdirNames(p)),
    },
  };
}

/** Run `between` once, after the next refresh's look and before it takes the write lock. */
function betweenLookAndLock(s: Store, between: () => void | Promise<void>): void {
  const held = s as unknown as { locked: (fn: () => unknown, onFail?: () => void) => unknown };
  const locked = held.locked.bind(s);
  let pending: (() => void | Promise<void>) | null = between;
  held.locked = (fn, onFail) => {
    const run = pending;
    pending = null;
    if (run) {
      const r = run();
      if (r instanceof Promise) throw new Error("betweenLookAndLock: give a synchronous edit");
    }
    return locked(fn, onFail);
  };
}

/** A memory record file written by hand beside `id` in its shard folder (the same last two digits), as a copy of `id`'s. */
function handRecord(root: string, id: string, digit: string, content: string): { id: string; file: string } {
  const other = `${id.slice(0, 24)}${digit}${id.slice(25)}`;
  const template = JSON.parse(fs.readFileSync(path.join(root, "memories", shardOf(id), `${id}.json`), "utf8"));
  const file = path.join(root, "memories", shardOf(id), `${other}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ ...template, id: other, content }, null, 2)}\n`);
  return { id: other, file };
}

const indexedContent = async (s: Store, id: string): Promise<string | undefined> => (await s.memoriesByIds([id]))[0]?.content;
const outsideEdits = (root: string, rel: string) => readJournal(nodeFs, root).filter((e) => e.op === "edit" && e.paths?.includes(rel)).length;

/** A sharded store with a few memories, settled (every folder trusted), opened on `fsPort`. */
async function settledStore(fsPort?: StoreFs): Promise<{ root: string; s: Store; ids: string[] }> {
  const root = shardedSkeleton();
  const first = await Store.open(root);
  const ids: string[] = [];
  try {
    for (let i = 0; i < 4; i++) ids.push((await saveMemory(first, env(root), { content: `the granary ledger ${i} is exported nightly` })).memory.id);
    settleFolders(root);
    await first.refresh(true);
  } finally {
    first.close();
  }
  return { root, s: await Store.open(root, fsPort ? { fs: fsPort } : {}), ids };
}

describe("a quick refresh takes its look's plan under the lock when nothing moved since", () => {
  test("the changed shard folder is listed once, and its new file indexed and journaled as before", { timeout: 60_000 }, async () => {
    const counting = countingFs();
    const { root, s, ids } = await settledStore(counting.fs);
    try {
      const added = handRecord(root, ids[0]!, ids[0]![24] === "a" ? "b" : "a", "the walnut press keeps its own ledger");
      const shard = path.join(root, "memories", shardOf(ids[0]!));
      counting.listed.clear();
      const plan = await s.refresh(false, ["memory"]);
      assert.equal(plan.upserts.length, 1);
      assert.equal(counting.listed.get(shard), 1, `the shard folder listed once: ${JSON.stringify([...counting.listed])}`);
      assert.equal(await indexedContent(s, added.id), "the walnut press keeps its own ledger");
      const rel = `memories/${shardOf(ids[0]!)}/${added.id}.json`;
      assert.equal(outsideEdits(root, rel), 1, "the hand-made file journaled once as an outside edit");
      assert.equal((await s.refresh(false, ["memory"])).upserts.length, 0, "nothing left for the next refresh");
    } finally {
      s.close();
    }
  });

  test("a file added by hand between the look and the lock, in the tick of the folder's mtime, is seen by the next refresh", { timeout: 60_000 }, async () => {
    const { root, s, ids } = await settledStore();
    try {
      const shard = path.join(root, "memories", shardOf(ids[1]!));
      const d1 = ids[1]![24] === "a" ? "b" : "a";
      const d2 = ids[1]![24] === "c" ? "d" : "c";
      // a change just made (racy at the look): its folder's mtime is pinned, as a coarse clock would leave it
      const added = handRecord(root, ids[1]!, d1, "the walnut press keeps its own ledger");
      const tick = new Date(Date.now() - 30);
      fs.utimesSync(shard, tick, tick);
      let late: { id: string; file: string } | undefined;
      betweenLookAndLock(s, () => {
        late = handRecord(root, ids[1]!, d2, "the cider vat ledger was added by hand meanwhile");
        fs.utimesSync(shard, tick, tick); // the same tick: the folder's stat cannot tell
        const until = Date.now() + 150; // the lock taken after the racy window has passed
        while (Date.now() < until) {
          // (wait)
        }
      });
      await s.refresh(false, ["memory"]);
      assert.equal(await indexedContent(s, added.id), "the walnut press keeps its own ledger");
      // this refresh's look did not see it; the folder must be left untrusted so the next one lists it
      await s.refresh(false, ["memory"]);
      assert.equal(await indexedContent(s, late!.id), "the cider vat ledger was added by hand meanwhile", "the next refresh saw the file added between the look and the lock");
      assert.equal(outsideEdits(root, `memories/${shardOf(ids[1]!)}/${late!.id}.json`), 1);
    } finally {
      s.close();
    }
  });

  test("a file replaced between the look and the lock is indexed as it is under the lock", { timeout: 60_000 }, async () => {
    const { root, s, ids } = await settledStore();
    try {
      const added = handRecord(root, ids[2]!, ids[2]![24] === "a" ? "b" : "a", "the walnut press keeps its own ledger");
      betweenLookAndLock(s, () => {
        const rec = JSON.parse(fs.readFileSync(added.file, "utf8"));
        fs.writeFileSync(`${added.file}.swp`, `${JSON.stringify({ ...rec, content: "the walnut press ledger moved to the mill" }, null, 2)}\n`);
        fs.renameSync(`${added.file}.swp`, added.file);
      });
      await s.refresh(false, ["memory"]);
      assert.equal(await indexedContent(s, added.id), "the walnut press ledger moved to the mill");
    } finally {
      s.close();
    }
  });

  test("a file edited in place between the look and the lock (its folder's mtime unmoved): its row holds the stamps of the bytes indexed", { timeout: 60_000 }, async () => {
    const { root, s, ids } = await settledStore();
    try {
      const added = handRecord(root, ids[2]!, ids[2]![24] === "c" ? "d" : "c", "the walnut press keeps its own ledger");
      const rel = `memories/${shardOf(ids[2]!)}/${added.id}.json`;
      betweenLookAndLock(s, () => {
        const rec = JSON.parse(fs.readFileSync(added.file, "utf8"));
        fs.writeFileSync(added.file, `${JSON.stringify({ ...rec, content: "the walnut press ledger was rewritten in place" }, null, 2)}\n`);
      });
      await s.refresh(false, ["memory"]);
      assert.equal(await indexedContent(s, added.id), "the walnut press ledger was rewritten in place");
      const db = new DatabaseSync(path.join(root, ".memsync/index.db"));
      try {
        const row = db.prepare("SELECT mtime, size, ino FROM files WHERE path = ?").get(rel) as { mtime: number; size: number; ino: number };
        const st = nodeFs.stat(added.file)!;
        assert.deepEqual({ mtime: row.mtime, size: row.size, ino: row.ino }, { mtime: st.mtime, size: st.size, ino: st.ino }, "the row's stamps are the file's as indexed");
      } finally {
        db.close();
      }
    } finally {
      s.close();
    }
  });

  test("another process's refresh between the look and the lock: what it applied is not applied (nor journaled) again", { timeout: 60_000 }, async () => {
    const { root, s, ids } = await settledStore();
    try {
      const added = handRecord(root, ids[3]!, ids[3]![24] === "a" ? "b" : "a", "the walnut press keeps its own ledger");
      const rel = `memories/${shardOf(ids[3]!)}/${added.id}.json`;
      betweenLookAndLock(s, () => {
        // another memsync process (its own connection to the index) takes the same change in first
        const other = spawnSync(process.execPath, ["-e", `const { Store } = await import(${JSON.stringify(path.resolve("src/store/store.ts"))}); const s = await Store.open(${JSON.stringify(root)}); await s.refresh(false, ["memory"]); s.close();`]);
        assert.equal(other.status, 0, String(other.stderr));
      });
      await s.refresh(false, ["memory"]);
      assert.equal(await indexedContent(s, added.id), "the walnut press keeps its own ledger");
      assert.equal(outsideEdits(root, rel), 1, "the outside edit journaled once, by the refresh that took it in");
    } finally {
      s.close();
    }
  });
});
