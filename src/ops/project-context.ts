import { type BlockEntry, flat, renderBlock, shellWord } from "../core/context-block.ts";
import { short } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { labelOf } from "../core/claude/memory-md.ts";
import { isoTime } from "../core/time.ts";
import type { MemoryFilter } from "../store/index-db.ts";
import type { Store } from "../store/store.ts";
import { projectOf } from "./project.ts";
import { replacedAmong } from "./replaced.ts";

// context: the "Recent Project Decisions" block a hook injects at the start of a session: a
// project's decisions and preferences, newest first, each line labelled with its type
// ([Decision], [Preference]) and its entities, then the user's global best practices (scope
// global), all within one budget, with a line saying how to see the rest. A project with no
// decision yet gets its most recent memories of any type instead (said so in the heading), so a
// new project still starts with what is known about it.

export const CONTEXT_DEFAULTS = { limit: 10, budget: 3000 } as const;

/** The types a session starts with; the user's global rules of these types and patterns follow. */
const START_TYPES = ["decision", "preference"] as const;
const GLOBAL_TYPES = ["decision", "preference", "pattern"] as const;
/** Global best practices take at most this share of the budget and this many lines. */
const GLOBAL_SHARE = 1 / 3;
const GLOBAL_MAX = 5;
/** Memories read beyond the limit, to fill the places of those a newer decision replaced. */
const REPLACED_ROOM = 10;
/** Entities named on a line at most. */
const ENTITIES_MAX = 4;

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
  /** Decisions only: a project with none gets only the global rules (a subagent's context), not its latest memories. */
  decisionsOnly?: boolean;
}

export interface ContextItem {
  id: string;
  short_id: string;
  type: string;
  created_at: number;
  /** What the block shows: "what (because: why)" of a structured decision, else the gist, else the content. */
  text: string;
  from_gist: boolean;
  entities: string[];
  /** One of the user's global best practices (scope global), not the project's own. */
  global: boolean;
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
  // room for those a newer decision replaced (left out: ops/replaced.ts)
  let found = await store.list({ ...base, types: START_TYPES }, limit + REPLACED_ROOM);
  if (found.total === 0 && !opts.decisionsOnly) {
    kind = "memories";
    found = await store.list(base, limit + REPLACED_ROOM);
  }
  const replaced = await replacedAmong(store, found.memories);
  const current = found.memories.filter((m) => !replaced.has(m.id));
  found = { memories: current.slice(0, limit), total: found.total - replaced.size };
  const items = found.memories.map((m) => toItem(m, false));
  const p = shellWord(opts.project);

  // the user's global best practices: the most confident first, in their share of the budget
  const { globals, block: global } = await globalRules(store, found.total > 0 ? Math.floor(budget * GLOBAL_SHARE) : budget);
  const room = global.text ? budget - global.text.length - 1 : budget;
  const block = renderBlock({
    heading: kind === "decisions" ? `## Recent Project Decisions (${opts.project})` : `## Recent Project Memories (${opts.project}; no decisions yet)`,
    entries: items.map(entryOf),
    total: found.total,
    more: (n) =>
      kind === "decisions"
        ? `… ${n} more decision${n === 1 ? "" : "s"}: memsync list --project ${p} --type decision,preference`
        : `… ${n} more: memsync list --project ${p}`,
    budget: room,
    itemMax: ITEM_MAX,
  });
  // a project with nothing of its own still gets the global rules; a block cut to nothing, nothing
  const withGlobal = global.text !== "" && (block.text !== "" || found.total === 0);
  const text = [block.text, withGlobal ? global.text : ""].filter(Boolean).join("\n");
  const shown = [...items.slice(0, block.text ? block.shown : 0), ...(withGlobal ? globals.slice(0, global.shown) : [])];
  return { project: opts.project, kind, total: found.total, items: shown, more: block.more, budget, text };
}

async function globalRules(store: Store, budget: number): Promise<{ globals: ContextItem[]; block: ReturnType<typeof renderBlock> }> {
  const rules = await store.globalRules(LIVE, GLOBAL_TYPES, GLOBAL_MAX + REPLACED_ROOM);
  const oldRules = await replacedAmong(store, rules);
  const globals = rules.filter((m) => !oldRules.has(m.id)).slice(0, GLOBAL_MAX).map((m) => toItem(m, true));
  const block = renderBlock({
    heading: "## Global Best Practices",
    entries: globals.map(entryOf),
    total: globals.length,
    more: (n) => `… ${n} more global: memsync list`,
    budget,
    itemMax: ITEM_MAX,
  });
  return { globals, block };
}

/** A session outside any project (no repository): the user's global rules still apply; "" when there are none. */
export async function globalContext(store: Store, budget: number = CONTEXT_DEFAULTS.budget): Promise<string> {
  await store.refresh(false, ["memory"]);
  return (await globalRules(store, budget)).block.text;
}

function toItem(m: Memory, global: boolean): ContextItem {
  const d = m.decision;
  const text = d ? `${flat(d.what)}${d.why ? ` (because: ${flat(d.why)})` : ""}` : flat(m.gist ?? m.content);
  return { id: m.id, short_id: short(m.id), type: m.type, created_at: m.created_at, text, from_gist: !d && m.gist !== null, entities: m.entities.slice(0, ENTITIES_MAX), global };
}

/** "- [Decision] what (because: why) {postgresql, jsonb} [2026-03-01 1a2b3c4d]" */
function entryOf(i: ContextItem): BlockEntry {
  const date = isoTime(i.created_at).slice(0, 10);
  const entities = i.entities.length ? `{${i.entities.join(", ")}} ` : "";
  return { text: `${labelOf(i.type, i.global)} ${i.text}`, tail: `${entities}[${date} ${i.short_id}]` };
}
