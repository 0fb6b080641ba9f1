// The fixed vocabularies of the data model, in a module with no dependencies, so code that only
// needs to name a type or status (option parsing, read paths) does not load the schema library.

export const MEMORY_TYPES = ["decision", "preference", "pattern", "anti-pattern", "problem", "solution", "fact"] as const;
export const MEMORY_STATUSES = ["active", "promoted", "archived"] as const;
export const SHARING_SCOPES = ["local", "user", "team", "global"] as const;
export const IMPORTANCE_LEVELS = ["low", "medium", "high", "critical"] as const;

export const RELATION_TYPES = [
  "related",
  "causes",
  "supports",
  "contradicts",
  "consolidated_from",
  "split_from",
  // from a newer memory to the older one it replaces (a decision that names what it changes)
  "supersedes",
  "USES",
  "CHOSE_OVER",
  "REQUIRES",
  "ENABLES",
  "PREFERS",
] as const;

/** Typed relations between two entities of one memory (kept on the memory, see memory.ts). */
export const ENTITY_RELATION_TYPES = ["USES", "CHOSE_OVER", "REQUIRES", "ENABLES", "PREFERS"] as const;

/** How something tried turned out: a pattern that worked, or an anti-pattern / failed solution. */
export const OUTCOMES = ["success", "failed"] as const;

export type MemoryType = (typeof MEMORY_TYPES)[number];
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];
export type SharingScope = (typeof SHARING_SCOPES)[number];
export type Importance = (typeof IMPORTANCE_LEVELS)[number];
export type RelationType = (typeof RELATION_TYPES)[number];
export type EntityRelationType = (typeof ENTITY_RELATION_TYPES)[number];
export type Outcome = (typeof OUTCOMES)[number];

export const STRENGTH_MAX = 2;

export const STORAGE_VERSION = 2;
export const LAYOUTS = ["auto", "flat", "sharded"] as const;
export type Layout = (typeof LAYOUTS)[number];
export const DEFAULT_SHARD_THRESHOLD = 1000;

/**
 * The layout settings of a .meta.json that passed its check (meta-check.ts: the schema's rules),
 * with the schema's defaults, without the schema library: a save asks only these of the metadata,
 * and parsing it with the schema cost a cold save ~0.2-0.4 ms (a compiled probe, issue 16).
 */
export function layoutSettingsFrom(rawSettings: unknown): { layout: Layout; shard_threshold: number } {
  const raw = (typeof rawSettings === "object" && rawSettings !== null ? rawSettings : {}) as { layout?: Layout; shard_threshold?: number };
  return { layout: raw.layout ?? "auto", shard_threshold: raw.shard_threshold ?? DEFAULT_SHARD_THRESHOLD };
}
