import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall, WHOLE_HOLDERS } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// More matches than recall's candidates and WHOLE_HOLDERS memories holding every query word whole
// (no concept phrases in the query): only those are ranked (ops/recall.ts). Here the holders say
// both words in a long text (weak BM25 scores), 20 short memories say "kestrel" alone (strong
// scores): with WHOLE_HOLDERS holders the short ones are no candidates; with one fewer they are
// ranked with the rest and shown after the holders (one strong word, core/recall-rank.ts shownTiers).

const T0 = 1_790_000_000;
const FILLER = "the team met on tuesday to talk through the release plan and the open questions about staffing, budgets and the roadmap for the next two quarters";

function memory(i: number, content: string): Memory {
  return { ...createMemory({ content }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

async function shownWith(holders: number): Promise<{ shown: Set<string>; alone: string[]; holders: string[] }> {
  const memories: Memory[] = [];
  for (let i = 0; i < holders; i++) memories.push(memory(i, `Note ${i}: kestrel was a codename, ${FILLER}, item ${i} of the list.`));
  const alone = Array.from({ length: 20 }, (_, i) => memory(1000 + i, `Kestrel alert ${i}: kestrel kestrel.`));
  const store = await storeWith([...memories, ...alone], T0);
  try {
    const out = await recall(store, { query: "kestrel codename", limit: 100, budget: 1_000_000, now: T0 + 10_000 });
    return { shown: new Set(out.items.flatMap((i) => [i.id, ...i.collapsed])), alone: alone.map((m) => m.id), holders: memories.map((m) => m.id) };
  } finally {
    store.close();
  }
}

test("WHOLE_HOLDERS memories hold every word: only they are candidates, a memory saying one word is not ranked", async () => {
  const { shown, alone, holders } = await shownWith(WHOLE_HOLDERS);
  assert.ok(alone.every((id) => !shown.has(id)));
  assert.ok(holders.some((id) => shown.has(id)));
});

test("one holder fewer: every match is a candidate, and the memories saying one word are shown too", async () => {
  const { shown, alone } = await shownWith(WHOLE_HOLDERS - 1);
  assert.ok(alone.some((id) => shown.has(id)));
});
