import { MEMORY_STATUSES, MEMORY_TYPES } from "../../../core/model/vocab.ts";
import { invalidInput } from "../../../core/errors.ts";
import { QUERY_LIMITS } from "../../../ops/catalogue/limits.ts";
import { short } from "../../../core/history.ts";
import type { GraphPage } from "../../../ops/graph.ts";
import type { ListOutcome, SearchOutcome } from "../../../ops/query.ts";
import { call } from "../call.ts";
import { countLine, json, memoryLine, scoreText } from "../format.ts";
import { type Flags, list, num, str, wordsOf } from "../options.ts";
import type { CommandResult } from "../result.ts";

// list and search share their filters; their defaults, limits and --since parsing are the
// catalogue's (ops/catalogue/queries.ts).

type Scored = { decay_scores?: Record<string, number> };

function filterFlags(flags: Flags) {
  // checked here to name the flag (the catalogue checks the same again)
  const status = list(flags, "status");
  for (const s of status) {
    if (s !== "all" && !(MEMORY_STATUSES as readonly string[]).includes(s)) {
      throw invalidInput(`--status must be one of ${MEMORY_STATUSES.join(", ")}, all; got ${JSON.stringify(s.slice(0, 40))}`);
    }
  }
  const type = list(flags, "type");
  for (const t of type) {
    if (!(MEMORY_TYPES as readonly string[]).includes(t)) throw invalidInput(`--type must be one of ${MEMORY_TYPES.join(", ")}; got ${JSON.stringify(t.slice(0, 40))}`);
  }
  return {
    status,
    type,
    tag: list(flags, "tag"),
    entity: list(flags, "entity"),
    project: str(flags, "project"),
    since: str(flags, "since"),
    before: str(flags, "before"),
    scores: flags.scores === true,
    limit: num(flags, "limit", { ...QUERY_LIMITS.limit, int: true }),
  };
}

const scored = (line: string, id: string, scores: Record<string, number> | undefined) =>
  scores ? `${scoreText(scores[id] ?? 0).padStart(7)}  ${line}` : line;

export async function listCmd(flags: Flags): Promise<CommandResult> {
  const out = await call<ListOutcome & Scored>("list", flags, filterFlags(flags));
  if (flags.json) return { stdout: json(out) };
  const lines = out.memories.map((m) => scored(memoryLine(m), m.id, out.decay_scores));
  lines.push(countLine(out.memories.length, out.total, "memory").replace("memorys", "memories"));
  return { stdout: `${lines.join("\n")}\n` };
}

export async function searchCmd(words: string[], flags: Flags): Promise<CommandResult> {
  const query = wordsOf(words, flags).join(" ");
  const out = await call<SearchOutcome & Scored>("search", flags, { ...filterFlags(flags), query, any: flags.any === true });
  if (flags.json) return { stdout: json(out) };
  // best first; the bm25 scores themselves are in --json
  const lines = out.hits.map((h) => scored(memoryLine(h.memory), h.memory.id, out.decay_scores));
  lines.push(countLine(out.hits.length, out.total, "match").replace("matchs", "matches"));
  return { stdout: `${lines.join("\n")}\n` };
}

export async function graphCmd(flags: Flags): Promise<CommandResult> {
  const status = filterFlags({ ...flags, type: undefined }).status;
  const offset = num(flags, "offset", { min: 0, max: 10_000_000, int: true });
  const limit = num(flags, "limit", { min: 1, max: 1000, int: true });
  const out = await call<GraphPage>("graph", flags, { status, offset, limit });
  if (flags.json) return { stdout: json(out) };
  const lines = out.memories.map((m) => `${scoreText(out.decay_scores[m.id] ?? 0).padStart(7)}  ${memoryLine(m)}`);
  for (const r of out.relations) lines.push(`  ${short(r.from_memory_id)} --${r.relation_type}--> ${short(r.to_memory_id)}  (${r.id})`);
  const shown = out.memories.length;
  lines.push(
    `memories ${out.offset + (shown ? 1 : 0)}-${out.offset + shown} of ${out.total_memories}, ${out.relations.length} relations touching them (${out.total_relations} in the store); average score ${scoreText(out.avg_score)}, average uses ${out.avg_use_count.toFixed(1)}`,
  );
  return { stdout: `${lines.join("\n")}\n` };
}
