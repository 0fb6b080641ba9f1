import { type BlockEntry, flat, renderBlock, shellWord } from "../core/context-block.ts";
import { short } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { isoTime } from "../core/time.ts";
import type { MemoryFilter } from "../store/index-db.ts";
import type { Store } from "../store/store.ts";
import { projectOf } from "./project.ts";

// context: the "Recent Project Decisions" block a hook injects at the start of a session: a
// project's decisions, newest first, within a budget, with a line saying how to see the rest.
// A project with no decision yet gets its most recent memories of any type instead (said so in
// the heading), so a new project still starts with what is known about it.

export const CONTEXT_DEFAULTS = { limit: 10, budget: 3000 } as const;

/** Characters of one memory's text in the block at most. */
const ITEM_MAX = 400;

/**
 * The project a command works on: the one given, else the one of the working directory, named
 * the same way on every machine (ops/project.ts: the normalized remote of its git repository).
 */
export function projectFor(given: string | undefined, cwd: string): string | null {
  return projectOf({ given, cwd });
}

export interface ContextOptions {
  project: string;
  /** At most this many memories (default 10). */
  limit?: number;
  /** The block's size limit in characters (default 3,000). */
  budget?: number;
}

export interface ContextItem {
  id: string;
  short_id: string;
  type: string;
  created_at: number;
  /** What the block shows: "what (because: why)" of a structured decision, else the gist, else the content. */
  text: string;
  from_gist: boolean;
}

export interface ContextOutcome {
  project: string;
  /** decisions, or (for a project with none) its most recent memories of any type. */
  kind: "decisions" | "memories";
  /** Decisions (or memories) of the project in all. */
  total: number;
  /** The ones in the block, newest first. */
  items: ContextItem[];
  /** Those not shown (beyond the limit or the budget). */
  more: number;
  budget: number;
  /** The block; "" when the project has no memory. */
  text: string;
}

const LIVE = ["active", "promoted"] as const;

export async function projectContext(store: Store, opts: ContextOptions): Promise<ContextOutcome> {
  const limit = opts.limit ?? CONTEXT_DEFAULTS.limit;
  const budget = opts.budget ?? CONTEXT_DEFAULTS.budget;
  await store.refresh(false, ["memory"]);
  const base: MemoryFilter = { statuses: LIVE, project: opts.project };
  let kind: ContextOutcome["kind"] = "decisions";
  let found = await store.list({ ...base, types: ["decision"] }, limit);
  if (found.total === 0) {
    kind = "memories";
    found = await store.list(base, limit);
  }
  const items = found.memories.map(toItem);
  const p = shellWord(opts.project);
  const block = renderBlock({
    heading: kind === "decisions" ? `## Recent Project Decisions (${opts.project})` : `## Recent Project Memories (${opts.project}; no decisions yet)`,
    entries: items.map((i) => entryOf(i, kind)),
    total: found.total,
    more: (n) =>
      kind === "decisions"
        ? `… ${n} more decision${n === 1 ? "" : "s"}: memsync list --project ${p} --type decision`
        : `… ${n} more: memsync list --project ${p}`,
    budget,
    itemMax: ITEM_MAX,
  });
  return { project: opts.project, kind, total: found.total, items: items.slice(0, block.shown), more: block.more, budget, text: block.text };
}

function toItem(m: Memory): ContextItem {
  const d = m.decision;
  const text = d ? `${flat(d.what)}${d.why ? ` (because: ${flat(d.why)})` : ""}` : flat(m.gist ?? m.content);
  return { id: m.id, short_id: short(m.id), type: m.type, created_at: m.created_at, text, from_gist: !d && m.gist !== null };
}

function entryOf(i: ContextItem, kind: ContextOutcome["kind"]): BlockEntry {
  const date = isoTime(i.created_at).slice(0, 10);
  return { text: i.text, tail: kind === "decisions" ? `[${date} ${i.short_id}]` : `[${i.type} ${date} ${i.short_id}]` };
}
