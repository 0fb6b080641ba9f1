import assert from "node:assert/strict";
import { test } from "node:test";
import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { recall } from "../../src/ops/recall.ts";
import { storeWith } from "../helpers/memory-store.ts";

// Past 1,000 matches recall ranks its NARROWED_CANDIDATES best BM25 matches, not CANDIDATES
// (ops/recall.ts). Here one memory says both query words in a long text (a weak BM25 score), 40
// short ones say "kestrel" alone (strong scores): ranked, the one covering both words leads the
// page; past 1,000 matches (other projects' memories saying "codename") it is no candidate.

const T0 = 1_790_000_000;
const FILLER = "the team met on tuesday to talk through the release plan and the open questions about staffing, budgets and the roadmap for the next two quarters, then went for lunch";

function memory(i: number, content: string, project?: string): Memory {
  return { ...createMemory({ content, ...(project ? { project } : {}) }, newId(), { now: T0 + i, machine: "m", user: null }), status: "active" };
}

async function shownWithPadding(padding: number): Promise<{ shown: string[]; both: string }> {
  const memories: Memory[] = [];
  for (let i = 0; i < padding; i++) memories.push(memory(i, `Codename list entry ${i} for another team.`, "elsewhere"));
  for (let i = 0; i < 40; i++) memories.push(memory(2000 + i, `Kestrel alert ${i}: kestrel kestrel.`));
  const both = memory(3000, `Kestrel was the codename, ${FILLER}; ${FILLER}; ${FILLER}.`);
  memories.push(both);
  const store = await storeWith(memories, T0);
  try {
    const out = await recall(store, { query: "kestrel codename", project: "here", countUpTo: 101, now: T0 + 10_000 });
    return { shown: out.items.flatMap((i) => [i.id, ...i.collapsed]), both: both.id };
  } finally {
    store.close();
  }
}

test("few matches: every one is ranked, and the memory saying both words leads", async () => {
  const { shown, both } = await shownWithPadding(0);
  assert.equal(shown[0], both);
});

test("past 1,000 matches: only the best BM25 matches are ranked, the weak one is no candidate", async () => {
  const { shown, both } = await shownWithPadding(1100);
  assert.ok(!shown.includes(both));
});
