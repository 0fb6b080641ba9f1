import { memoryTerms } from "../core/recall-concepts.ts";
import { replacedWords, supersededAmong } from "../core/recall-rank.ts";
import type { Memory } from "../core/model/memory.ts";
import type { MemoryFilter } from "../store/index-db.ts";
import type { Store } from "../store/store.ts";

// Which stored memories a new one replaces: a new decision or fact that names what it changes
// ("we moved from Sidekiq to BullMQ") replaces the older statements of its project that hold
// those words. Capture relates them (`supersedes`, new -> old) so recall shows the new one first
// and marks the old; read-only here, the caller writes the relations in its own transaction.

/** Older memories one search looks through for each named thing. */
const LOOK_AT = 20;

/** [newer id, older id] for each new memory and the stored ones it replaces (none when it names nothing). */
export async function supersededBy(store: Store, fresh: readonly Memory[]): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const m of fresh) {
    const named = replacedWords(m.content);
    if (named.length === 0) continue;
    const words = [...new Set(named.flatMap((p) => p.split(" ")))];
    const filter: MemoryFilter = { statuses: ["active", "promoted"] };
    if (m.project !== null) filter.projectOrNone = m.project;
    const { hits } = await store.search(words.map((w) => `"${w}"`).join(" OR "), filter, LOOK_AT, false);
    const older = hits.map((h) => h.memory).filter((o) => o.id !== m.id && (o.project ?? null) === (m.project ?? null));
    const statements = [m, ...older].map((x) => ({ id: x.id, type: x.type, created_at: x.created_at, content: x.content, terms: memoryTerms(x.content, x.entities) }));
    for (const [old, newer] of supersededAmong(statements)) if (newer === m.id) out.push([m.id, old]);
  }
  return out;
}
