// Naming an object by where it was reached, for walks over history and for telling a user what
// is missing.

export type ObjectType = "blob" | "tree" | "commit" | "tag";

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The object id whose 20 raw bytes start at `at` (a tree entry's, a delta's base), as hex. */
export function oidAt(bytes: Uint8Array, at: number): string {
  let s = "";
  for (let k = at; k < at + 20; k++) s += HEX[bytes[k]!];
  return s;
}

/**
 * Where an object sits, for walking and for telling a user what is missing: what kind it should
 * be, its path in a tree (or "" for a commit's root tree) and the commit it was reached from.
 */
export interface ObjectRef {
  oid: string;
  kind: ObjectType | "object";
  path: string;
  commit: string | null;
}

/** "tree memories/ab of commit 1a2b3c4d": where an object was reached, for messages. */
export function describeRef(at: ObjectRef): string {
  const c = at.commit?.slice(0, 8);
  if (!c) return at.kind === "object" ? "object" : at.kind;
  if (at.kind === "commit") return `parent of commit ${c}`;
  if (at.kind === "tree" && !at.path) return `root tree of commit ${c}`;
  return `${at.kind === "object" ? "object" : at.kind} ${at.path} of commit ${c}`;
}
