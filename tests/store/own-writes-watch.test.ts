import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createMemory } from "../../src/core/records.ts";
import { newId } from "../../src/core/new-id.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { ALL_KINDS } from "../../src/store/refresh-watch.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/env.ts";

// A long-running process's folder watch (store/refresh-watch.ts) and its own writes: the events a
// write of its own makes (temp file, rename, removal; the journal and backups above the record
// folders) do not make the next read scan every folder, while a hand edit in the same folder
// right after it still does, and is found.

const T0 = 1_790_000_000;
const hasWatch = process.platform === "linux" && typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

test("a process's own writes leave its watch clean; a hand edit after one is still seen", { skip: !hasWatch && "inotify through bun:ffi only" }, async () => {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, T0);
  const store = await Store.open(root);
  try {
    await store.watchFolders();
    const watch = (store as unknown as { watch: { unchanged(k: readonly string[], v: string): boolean } | null }).watch;
    assert.ok(watch, "a watch on Linux under Bun");
    const clean = () => watch!.unchanged(ALL_KINDS, store.index.dataVersion());
    const mem = (content: string) => createMemory({ content }, newId(), { now: T0, machine: "m", user: null });
    const a = mem("first");
    const b = mem("second");
    await store.write((tx) => {
      tx.putMemory(a);
      tx.putMemory(b);
    }, []);
    await store.refresh(); // a complete scan: clean from here
    assert.equal(clean(), true);

    await store.write((tx) => void tx.putMemory({ ...tx.memory(a.id), content: "first, rewritten" }), []);
    assert.equal(clean(), true, "a rewrite of its own: no scan");
    await store.write((tx) => void tx.removeMemory(b.id), []);
    assert.equal(clean(), true, "a removal of its own: no scan");
    const c = mem("third");
    await store.write((tx) => void tx.putMemory(c), []);
    assert.equal(clean(), true, "a new record of its own: no scan");

    // a hand edit in place right after a write of its own, in the same folder
    await store.write((tx) => void tx.putMemory({ ...tx.memory(a.id), content: "first, again" }), []);
    const file = path.join(root, "memories", `${a.id}.json`);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("first, again", "edited by hand"));
    assert.equal(clean(), false, "the hand edit is an event");
    await store.refresh();
    const read = await store.readMemory(a.id);
    assert.ok(read?.result.ok);
    assert.equal(read.result.ok && read.result.record.content, "edited by hand");
    assert.equal(clean(), true);

    // another file put there by rename right after a write of its own (the same name, once more)
    await store.write((tx) => void tx.putMemory({ ...tx.memory(c.id), content: "third, again" }), []);
    const cf = path.join(root, "memories", `${c.id}.json`);
    fs.writeFileSync(`${cf}.hand`, fs.readFileSync(cf, "utf8").replace("third, again", "third, by hand"));
    fs.renameSync(`${cf}.hand`, cf);
    assert.equal(clean(), false, "a file renamed there by hand is an event");
  } finally {
    store.close();
  }
});
