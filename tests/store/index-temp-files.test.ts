import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { createMemory, createRelation } from "../../src/core/records.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// A long write transaction (an import, a rebuild) keeps SQLite's statement journal in memory:
// each statement that fires the status counts' triggers or writes FTS5 rows copies the pages it
// touches there first, and on disk that was a 4 KiB pwrite to a deleted temp file each (~360,000
// in a 10k import). Checked by the process's open files in the middle of such a transaction.

/** Open descriptors of this process on deleted files (SQLite's temp files are unlinked or O_TMPFILE). */
function deletedFilesOpen(): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    try {
      const target = fs.readlinkSync(path.join("/proc/self/fd", fd));
      if (target.endsWith("(deleted)")) out.push(target);
    } catch {
      // closed meanwhile (the readdir's own descriptor)
    }
  }
  return out;
}

test("a write transaction's statement journal opens no temp file", { skip: process.platform !== "linux" }, async () => {
  const root = path.join(tempDir("memsync-temp-files-"), "store");
  writeStoreSkeleton(nodeFs, root, 1_790_000_000);
  const store = await Store.open(root);
  try {
    const origin = { now: 1_790_000_000, machine: "m", user: "u" };
    const before = deletedFilesOpen();
    let during: string[] = [];
    await store.write((tx) => {
      const ids: string[] = [];
      // enough text that FTS5 flushes and merges its segments, statements of many pages each
      for (let i = 0; i < 3000; i++) {
        const words = Array.from({ length: 60 }, (_, k) => `w${(i * 31 + k * 17) % 5000}`).join(" ");
        const m = createMemory({ content: `memory ${i}: ${words}`, tags: [`t${i % 7}`] }, newId(), origin);
        tx.putMemory(m);
        ids.push(m.id);
        if (i % 250 === 249) during.push(...deletedFilesOpen());
      }
      for (let i = 1; i < 50; i++) tx.putRelation(createRelation({ from: ids[i - 1]!, to: ids[i]!, type: "related" }, newId(), origin.now));
      during.push(...deletedFilesOpen());
    });
    assert.deepEqual(during.filter((t) => !before.includes(t)), []);
    assert.equal((await store.list({}, null)).memories.length, 3000);
  } finally {
    store.close();
  }
});
