import { short } from "./short-id.ts";
import type { Memory } from "./model/memory.ts";

// A memory's content conflict as people and agents read it: the text it holds now, and each
// text that lost to it when two machines edited the content at once (content_conflicts, kept
// by the merge in merge/record-merge.ts). Pure, and light to import: get shows it too.

/** A text that lost to a later edit: numbered from 1 in the order stored (what --pick takes). */
export interface OtherText {
  n: number;
  content: string;
  /** When that text was written (seconds), if known. */
  updated_at: number | null;
  /** The machine it was written on, if known. */
  machine: string | null;
}

export interface ConflictEntry {
  id: string;
  short_id: string;
  type: string;
  status: string;
  /** The text the memory holds now (the later edit): what `--keep ours` keeps. */
  content: string;
  updated_at: number | null;
  others: OtherText[];
}

/** A memory's conflicting texts, or null when it has none. */
export function conflictOf(m: Memory): ConflictEntry | null {
  const items = m.content_conflicts ?? [];
  if (items.length === 0) return null;
  return {
    id: m.id,
    short_id: short(m.id),
    type: m.type,
    status: m.status,
    content: m.content,
    updated_at: m.updated_at ?? null,
    others: items.map((c, i) => ({ n: i + 1, content: c.content, updated_at: c.updated_at ?? null, machine: c.machine ?? null })),
  };
}
