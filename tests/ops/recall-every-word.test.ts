import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall } from "../../src/ops/recall.ts";
import type { Store } from "../../src/store/store.ts";
import { storeWith } from "../helpers/memory-store.ts";

// Past 1,000 matches recall takes its candidates from the memories holding every word of the
// query when enough of them pass its filter (ops/recall.ts candidates); they are counted before
// they are ranked. The count must be of those that pass the filter: archived memories and other
// projects' holding every word are no candidates, and with too few that pass, the candidates
// come from the query's rarer words (here: memories saying "billing" and "nightly" without
// "worker", which the every-word search would leave out).

const T0 = 1_790_000_000;

const storeOf = (memories: Memory[]): Promise<Store> => storeWith(memories, T0);

function memory(i: number, content: string, opts: { status?: Memory["status"]; project?: string } = {}): Memory {
  const m = createMemory({ content, ...(opts.project ? { project: opts.project } : {}) }, newId(), { now: T0 + i, machine: "m", user: null });
  return { ...m, status: opts.status ?? "active" };
}

/** 1,100 memories saying "worker" (so the query matches past 1,000), and those given. */
function corpus(every: number, everyElsewhere: number): { memories: Memory[]; rareOnly: Set<string>; everyIds: Set<string> } {
  const memories: Memory[] = [];
  for (let i = 0; i < 1100; i++) memories.push(memory(i, `The worker pool number ${i} restarts on deploy.`, { project: "elsewhere" }));
  const everyIds = new Set<string>();
  for (let i = 0; i < every; i++) {
    // one text: near-duplicates, shown as one item (the page has room for the others)
    const m = memory(2000 + i, "The billing worker runs the nightly batch.");
    everyIds.add(m.id);
    memories.push(m);
  }
  // holding every word too, but archived or of another project: not candidates
  for (let i = 0; i < everyElsewhere; i++) memories.push(memory(3000 + i, `The billing worker runs the nightly batch, copy ${i}.`, i % 2 ? { status: "archived" } : { project: "elsewhere" }));
  const rareOnly = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const m = memory(4000 + i, `Billing invoices are sent after the nightly close, run ${i}.`);
    rareOnly.add(m.id);
    memories.push(m);
  }
  return { memories, rareOnly, everyIds };
}

const QUERY = "billing worker nightly";

test("fewer memories that pass the filter hold every word than the page: candidates come from the rarer words", async () => {
  // 4 pass and hold every word, 40 more hold them but are archived or another project's
  const { memories, rareOnly } = corpus(4, 40);
  const store = await storeOf(memories);
  try {
    const out = await recall(store, { query: QUERY, project: "here", countUpTo: 101 });
    const shown = new Set(out.items.flatMap((i) => [i.id, ...i.collapsed]));
    assert.ok([...rareOnly].some((id) => shown.has(id)), "a memory saying billing and nightly without worker is among the items");
  } finally {
    store.close();
  }
});

test("as many memories as the page (10) pass the filter and hold every word: they are the candidates", async () => {
  const { memories, everyIds } = corpus(10, 40);
  const store = await storeOf(memories);
  try {
    const out = await recall(store, { query: QUERY, project: "here", countUpTo: 101 });
    const shown = out.items.flatMap((i) => [i.id, ...i.collapsed]);
    assert.ok(shown.length > 0);
    assert.ok(shown.every((id) => everyIds.has(id)), "only memories holding every word");
  } finally {
    store.close();
  }
});
