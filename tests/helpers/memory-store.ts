import path from "node:path";
import type { Memory } from "../../src/core/model/memory.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { writeStoreSkeleton } from "../../src/store/init-files.ts";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "./env.ts";

/** A new store in a temp folder (made at `t0`, Unix seconds) holding these memories, open. */
export async function storeWith(memories: readonly Memory[], t0: number): Promise<Store> {
  const root = path.join(tempDir(), "store");
  writeStoreSkeleton(nodeFs, root, t0);
  const store = await Store.open(root);
  await store.write((tx) => {
    for (const m of memories) tx.putMemory(m);
  });
  return store;
}
