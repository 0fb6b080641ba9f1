import type { Memory } from "../../src/core/model/memory.ts";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";

// Memories for the tests of recall's candidate page (tests/store/search-*.test.ts): varied
// scores, statuses, projects and exact ties, made at fixed times from T0.

export const T0 = 1_790_000_000;
export const FILLER = "alpha beta gamma delta epsilon zeta theta iota kappa lambda".split(" ");

/** Memory number `i`, made at T0 + i, last used at one of 7 times. */
export function memory(i: number, content: string, status: Memory["status"] = "active", project?: string): Memory {
  const m = createMemory({ content, ...(project ? { project } : {}) }, newId(), { now: T0 + i, machine: "m", user: null });
  return { ...m, status, last_used: T0 + (i % 7) };
}

/** 900 "billing worker" matches of varied scores (a small project, no project, a large one), and 300 that tie exactly. */
export function projectCorpus(): Memory[] {
  const memories: Memory[] = [];
  for (let i = 0; i < 900; i++) {
    const words = Array.from({ length: 3 + (i % 40) }, (_, k) => FILLER[(i + k) % FILLER.length]).join(" ");
    const project = i % 30 === 0 ? "small" : i % 10 === 1 ? undefined : "large";
    memories.push(memory(i, `billing worker ${i % 3 === 0 ? "billing " : ""}${words}`, i % 7 === 0 ? "archived" : "active", project));
  }
  for (let i = 0; i < 300; i++) memories.push(memory(1000 + i, "nightly batch after the batch window", "active", i % 4 ? "large" : undefined));
  return memories;
}
