import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall, WHOLE_HOLDERS } from "../../src/ops/recall.ts";
import type { Store } from "../../src/store/store.ts";
import { storeWith } from "../helpers/memory-store.ts";

// Past 1,000 matches, when WHOLE_HOLDERS memories that pass recall's filter hold every query word
// whole ("billing", or a word of its stem: the index stems), not as the start of a longer word ("billingsync"), the candidates are ranked from those alone; with fewer, from
// every memory holding each word as a prefix, as before (ops/recall.ts candidates). Here the
// memories saying only "billingsync" and "workerpool" are the better BM25 matches (short, the words
// twice), so they lead the page whenever they are candidates.

const T0 = 1_790_000_000;

function memory(i: number, content: string, project?: string): Memory {
  return { ...createMemory({ content, ...(project ? { project } : {}) }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

/** 1,100 memories of another project saying "worker" (the query matches past 1,000), `whole` holding both words whole, 3 holding them only as longer words. */
function corpus(whole: number): { memories: Memory[]; prefixOnly: Set<string> } {
  const memories: Memory[] = [];
  for (let i = 0; i < 1100; i++) memories.push(memory(i, `The worker pool number ${i} restarts on deploy.`, "elsewhere"));
  const topics = ["invoices", "refunds", "ledgers", "receipts", "payouts", "coupons", "taxes", "disputes"];
  for (let i = 0; i < whole; i++) memories.push(memory(2000 + i, `The billing worker handles ${topics[i % topics.length]} for tenant ${i} and retries them after a restart of the queue.`));
  const prefixOnly = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const m = memory(4000 + i, `Billingsync workerpool: billingsync workerpool ${i}.`);
    prefixOnly.add(m.id);
    memories.push(m);
  }
  return { memories, prefixOnly };
}

async function shownFor(whole: number): Promise<{ shown: string[]; prefixOnly: Set<string> }> {
  const { memories, prefixOnly } = corpus(whole);
  const store: Store = await storeWith(memories, T0);
  try {
    const out = await recall(store, { query: "billing worker", project: "here", countUpTo: 101, now: T0 + 10_000 });
    return { shown: out.items.flatMap((i) => [i.id, ...i.collapsed]), prefixOnly };
  } finally {
    store.close();
  }
}

test("WHOLE_HOLDERS memories hold every word whole: the candidates are those, not the longer words' holders", async () => {
  const { shown, prefixOnly } = await shownFor(WHOLE_HOLDERS);
  assert.ok(shown.length > 0);
  assert.ok(!shown.some((id) => prefixOnly.has(id)), "no memory saying only billingsync / workerpool");
});

test("one fewer holds every word whole: every prefix match is ranked, and the better matches lead", async () => {
  const { shown, prefixOnly } = await shownFor(WHOLE_HOLDERS - 1);
  assert.ok(prefixOnly.has(shown[0]!), "a memory saying billingsync workerpool leads the page");
});
