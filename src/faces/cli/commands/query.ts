import { MEMORY_STATUSES, MEMORY_TYPES } from "../../../core/model/vocab.ts";
import { invalidInput } from "../../../core/errors.ts";
import { sanitizeTags } from "../../../core/labels.ts";
import { parseSince } from "../../../core/time.ts";
import { withStore } from "../../../ops/context.ts";
import { listMemories, searchMemories } from "../../../ops/query.ts";
import type { Memory } from "../../../core/model/memory.ts";
import type { MemoryFilter } from "../../../store/index-db.ts";
import type { Store } from "../../../store/store.ts";
import { countLine, json, memoryLine, scoreText } from "../format.ts";
import { type Flags, list, num, opsEnv, str, wordsOf } from "../options.ts";
import type { CommandResult } from "../result.ts";

// list and search share their filters.

const DEFAULT_STATUSES = ["active", "promoted"] as const;

function filterFlags(flags: Flags): MemoryFilter {
  const statuses = list(flags, "status");
  for (const s of statuses) {
    if (s !== "all" && !(MEMORY_STATUSES as readonly string[]).includes(s)) {
      throw invalidInput(`--status must be one of ${MEMORY_STATUSES.join(", ")}, all; got ${JSON.stringify(s.slice(0, 40))}`);
    }
  }
  const types = list(flags, "type");
  for (const t of types) {
    if (!(MEMORY_TYPES as readonly string[]).includes(t)) throw invalidInput(`--type must be one of ${MEMORY_TYPES.join(", ")}; got ${JSON.stringify(t.slice(0, 40))}`);
  }
  const since = str(flags, "since");
  const filter: MemoryFilter = {
    statuses: statuses.includes("all") ? [] : statuses.length ? statuses : DEFAULT_STATUSES,
    types,
    tags: sanitizeTags(list(flags, "tag")),
    entities: list(flags, "entity"),
  };
  const project = str(flags, "project");
  if (project !== undefined) filter.project = project;
  if (since !== undefined) filter.since = parseSince(since, Math.floor(Date.now() / 1000));
  return filter;
}

function limitFlag(flags: Flags, fallback: number | null): number | null {
  const n = num(flags, "limit", { min: 0, max: 1_000_000, int: true });
  if (n === undefined) return fallback;
  return n === 0 ? null : n;
}

/** With --scores: each shown memory's decay score, by id. */
async function withScores<T extends object>(flags: Flags, run: (store: Store) => Promise<T>, memoriesOf: (out: T) => Memory[]): Promise<T & { decay_scores?: Record<string, number> }> {
  return withStore(opsEnv(flags), async (store) => {
    const out = await run(store);
    if (flags.scores !== true) return out;
    const { scoresFor } = await import("../../../ops/score.ts");
    return { ...out, decay_scores: scoresFor(store, memoriesOf(out)) };
  });
}

const scored = (line: string, id: string, scores: Record<string, number> | undefined) =>
  scores ? `${scoreText(scores[id] ?? 0).padStart(7)}  ${line}` : line;

export async function listCmd(flags: Flags): Promise<CommandResult> {
  const filter = filterFlags(flags);
  const limit = limitFlag(flags, 50);
  const out = await withScores(flags, (store) => listMemories(store, filter, limit), (o) => o.memories);
  if (flags.json) return { stdout: json(out) };
  const lines = out.memories.map((m) => scored(memoryLine(m), m.id, out.decay_scores));
  lines.push(countLine(out.memories.length, out.total, "memory").replace("memorys", "memories"));
  return { stdout: `${lines.join("\n")}\n` };
}

export async function searchCmd(words: string[], flags: Flags): Promise<CommandResult> {
  const query = wordsOf(words, flags).join(" ");
  const filter = filterFlags(flags);
  const limit = limitFlag(flags, 20);
  const out = await withScores(flags, (store) => searchMemories(store, query, filter, limit, flags.any ? "any" : "all"), (o) => o.hits.map((h) => h.memory));
  if (flags.json) return { stdout: json(out) };
  // best first; the bm25 scores themselves are in --json
  const lines = out.hits.map((h) => scored(memoryLine(h.memory), h.memory.id, out.decay_scores));
  lines.push(countLine(out.hits.length, out.total, "match").replace("matchs", "matches"));
  return { stdout: `${lines.join("\n")}\n` };
}
