import type { Memory } from "../core/model/memory.ts";
import type { Store } from "../store/store.ts";

// What a live memory replaces: the targets of `supersedes` relations (made at capture when a new
// decision names what it changes, or by consolidation) whose source is active or promoted. The
// lists of current decisions (the session's start, a subagent's context, MEMORY.md) leave these
// out, so an agent is not handed yesterday's answer beside today's; an archived replacement
// makes the older one current again.

const LIVE = new Set(["active", "promoted"]);

/**
 * The ids among these memories that a live memory supersedes (relations as the index has them);
 * `counts` narrows which replacements count (MEMORY.md: only one it lists itself).
 */
export async function replacedAmong(store: Store, memories: readonly Pick<Memory, "id">[], counts: (newer: Memory) => boolean = () => true): Promise<Set<string>> {
  if (memories.length === 0) return new Set();
  const pairs = await store.relationsOfTypeTo("supersedes", memories.map((m) => m.id));
  if (pairs.length === 0) return new Set();
  const newer = await store.memoriesByIds([...new Set(pairs.map(([from]) => from))]);
  const live = new Set(newer.filter((m) => LIVE.has(m.status) && counts(m)).map((m) => m.id));
  return new Set(pairs.filter(([from]) => live.has(from)).map(([, to]) => to));
}
