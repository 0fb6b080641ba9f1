import { isId, SHARD_RE, shardOf } from "../core/ids.ts";

// Where records live in a store. Paths are relative to the store root, with "/" separators.
// Reads accept the flat layout (memories/<id>.json) and the sharded one (memories/<xx>/<id>.json,
// xx = the id's last two hex digits). A record, once written, keeps its path.

export type RecordKind = "memory" | "relation";

export const KIND_DIR: Record<RecordKind, string> = { memory: "memories", relation: "relations" };

export const META_FILE = ".meta.json";
export const LOCAL_DIR = ".memsync";

export function recordPath(kind: RecordKind, id: string, sharded: boolean): string {
  if (!isId(id)) throw new Error(`refusing to build a path from an invalid id: ${JSON.stringify(String(id).slice(0, 80))}`);
  const top = KIND_DIR[kind];
  return sharded ? `${top}/${shardOf(id)}/${id}.json` : `${top}/${id}.json`;
}

/** Both places a record with this id may be, flat first. */
export function candidatePaths(kind: RecordKind, id: string): [string, string] {
  return [recordPath(kind, id, false), recordPath(kind, id, true)];
}

export function dirOf(rel: string): string {
  const i = rel.lastIndexOf("/");
  return i < 0 ? "" : rel.slice(0, i);
}

/** The id a record file name claims, or null if the name is not <uuid>.json. */
export function idFromFileName(name: string): string | null {
  if (!name.endsWith(".json")) return null;
  const id = name.slice(0, -5);
  return isId(id) ? id : null;
}

export function isShardDirName(name: string): boolean {
  return SHARD_RE.test(name);
}
