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

/**
 * What recall shows for `query` over a store of these texts, one active memory a day apart from
 * `t0` (Unix seconds), asked 30 days after: the texts of the items, best first.
 */
export async function recallShown(texts: readonly string[], t0: number, query: string): Promise<string[]> {
  const { newId } = await import("../../src/core/new-id.ts");
  const { createMemory } = await import("../../src/core/records.ts");
  const { recall } = await import("../../src/ops/recall.ts");
  const day = 86_400;
  const memories = texts.map((content, i): Memory => ({ ...createMemory({ content }, newId(), { now: t0 + i * day, machine: "m", user: null }), status: "active" }));
  const store = await storeWith(memories, t0);
  try {
    return (await recall(store, { query, now: t0 + 30 * day })).items.map((i) => i.text);
  } finally {
    store.close();
  }
}
