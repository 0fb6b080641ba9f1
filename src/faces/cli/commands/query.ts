import { MEMORY_STATUSES, MEMORY_TYPES } from "../../../core/model/vocab.ts";
import { invalidInput } from "../../../core/errors.ts";
import { sanitizeTags } from "../../../core/labels.ts";
import { parseSince } from "../../../core/time.ts";
import { withStore } from "../../../ops/context.ts";
import { listMemories, searchMemories } from "../../../ops/query.ts";
import type { MemoryFilter } from "../../../store/index-db.ts";
import { countLine, json, memoryLine } from "../format.ts";
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

export async function listCmd(flags: Flags): Promise<CommandResult> {
  const filter = filterFlags(flags);
  const limit = limitFlag(flags, 50);
  const out = await withStore(opsEnv(flags), (store) => listMemories(store, filter, limit));
  if (flags.json) return { stdout: json(out) };
  const lines = out.memories.map((m) => memoryLine(m));
  lines.push(countLine(out.memories.length, out.total, "memory").replace("memorys", "memories"));
  return { stdout: `${lines.join("\n")}\n` };
}

export async function searchCmd(words: string[], flags: Flags): Promise<CommandResult> {
  const query = wordsOf(words, flags).join(" ");
  const filter = filterFlags(flags);
  const limit = limitFlag(flags, 20);
  const out = await withStore(opsEnv(flags), (store) => searchMemories(store, query, filter, limit, flags.any ? "any" : "all"));
  if (flags.json) return { stdout: json(out) };
  // best first; the bm25 scores themselves are in --json
  const lines = out.hits.map((h) => memoryLine(h.memory));
  lines.push(countLine(out.hits.length, out.total, "match").replace("matchs", "matches"));
  return { stdout: `${lines.join("\n")}\n` };
}
