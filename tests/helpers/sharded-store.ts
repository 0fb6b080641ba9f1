import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { RACY_FINE_MS } from "../../src/store/racy.ts";
import { memsync, newStore, tempDir } from "./env.ts";

// A store as at 10k memories, for the paths that only a large store takes (ops/save-unindexed.ts):
// layout sharded, every shard folder there and indexed, the setup committed.

export const SHARDS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A store whose new memories go to shard folders, every one of them there and indexed (as at 10k). */
export function shardedStore(): string {
  const store = newStore();
  assert.equal(memsync(["--store", store, "settings", "layout", "sharded"]).code, 0);
  for (const s of SHARDS) fs.mkdirSync(path.join(store, "memories", s), { recursive: true });
  // the index records the folders long enough after their last change to trust them (racy.ts:
  // a folder recorded within RACY_FINE_MS of its change is looked at again, and no read is settled)
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RACY_FINE_MS + 50);
  assert.equal(memsync(["--store", store, "status"]).code, 0);
  assert.equal(memsync(["--store", store, "commit"]).code, 0); // the setting's entry committed: an empty journal
  assert.equal(fs.existsSync(path.join(store, ".memsync/journal.jsonl")), false);
  return store;
}

/** A new store's skeleton (no index yet) whose records go to shard folders (layout "sharded"), made at `at` (seconds). */
export function shardedSkeleton(at: number): string {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, at);
  const metaPath = path.join(root, ".meta.json");
  const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
  meta.settings = { ...meta.settings, layout: "sharded" };
  fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return root;
}
