import { invalidInput } from "../core/errors.ts";
import { isId, SHARD_RE, shardOf } from "../core/ids.ts";

// Where records live in a store. Paths are relative to the store root, with "/" separators.
// Reads accept the flat layout (memories/<id>.json) and the sharded one (memories/<xx>/<id>.json,
// xx = the id's last two hex digits). A record, once written, keeps its path.

export type RecordKind = "memory" | "relation";

export const KIND_DIR: Record<RecordKind, string> = { memory: "memories", relation: "relations" };

export const META_FILE = ".meta.json";
export const LOCAL_DIR = ".memsync";

/**
 * Where records of scope `local` live: inside the machine-local folder, which every store's
 * .gitignore has always listed, which commit never looks into (isMachineLocalPath) and which no
 * pull or checkout writes. Same layout as the shared folders, under this prefix.
 */
export const LOCAL_RECORDS = `${LOCAL_DIR}/local`;

/** Shared (tracked) records, or records that never leave this machine. */
export type Place = "shared" | "local";

export const LOCAL_KIND_DIR: Record<RecordKind, string> = { memory: `${LOCAL_RECORDS}/memories`, relation: `${LOCAL_RECORDS}/relations` };

/** The top folder of a kind's records in a place. */
export function topDir(kind: RecordKind, place: Place): string {
  return place === "local" ? LOCAL_KIND_DIR[kind] : KIND_DIR[kind];
}

/** Both top folders of a kind: shared first. */
export function topDirs(kind: RecordKind): [string, string] {
  return [KIND_DIR[kind], LOCAL_KIND_DIR[kind]];
}

/**
 * Whether a store-relative path is machine-local (.memsync/...: the index, the journal, local
 * records). Such a path never enters a commit, a journal entry that commits, or a push.
 */
export function isMachineLocalPath(rel: string): boolean {
  return rel === LOCAL_DIR || rel.startsWith(`${LOCAL_DIR}/`);
}

/** The place a record path is in. */
export function placeOf(rel: string): Place {
  return rel.startsWith(`${LOCAL_RECORDS}/`) ? "local" : "shared";
}

export function recordPath(kind: RecordKind, id: string, sharded: boolean, place: Place = "shared"): string {
  // an id reaches here only through parseId or the index; anything else is refused with a code
  if (!isId(id)) throw invalidInput(`invalid id ${JSON.stringify(String(id).slice(0, 80))}: refusing to build a path from it`);
  const top = topDir(kind, place);
  return sharded ? `${top}/${shardOf(id)}/${id}.json` : `${top}/${id}.json`;
}

/** Both places a record with this id may be in a place, flat first. */
export function candidatePaths(kind: RecordKind, id: string, place: Place = "shared"): [string, string] {
  return [recordPath(kind, id, false, place), recordPath(kind, id, true, place)];
}

/** Every path a record with this id may have: shared flat, shared sharded, local flat, local sharded. */
export function allCandidatePaths(kind: RecordKind, id: string): string[] {
  return [...candidatePaths(kind, id, "shared"), ...candidatePaths(kind, id, "local")];
}

/**
 * Whether `rel` (a path the index took from a folder listing) is this record's file in a shard
 * folder that is not its own: `memories/ab/<id>.json` for an id ending in other digits, as a
 * person or a tool may move one by hand. Such a file is committed and indexed where it is, so a
 * lookup by id must find it there too (and writes keep its path, like any record's).
 */
export function isMisplacedRecordPath(kind: RecordKind, id: string, rel: string): boolean {
  if (!isId(id)) return false;
  for (const top of topDirs(kind)) {
    if (!rel.startsWith(`${top}/`)) continue;
    const parts = rel.slice(top.length + 1).split("/");
    return parts.length === 2 && isShardDirName(parts[0]!) && parts[0] !== shardOf(id) && parts[1] === `${id}.json`;
  }
  return false;
}

/** Every path a record with this id may have, and a misplaced one the index knows for it, last. */
export function lookupPaths(kind: RecordKind, id: string, known: string | null | undefined): string[] {
  const paths = allCandidatePaths(kind, id);
  if (!known) return paths;
  if (paths.includes(known)) return [known, ...paths.filter((p) => p !== known)];
  return isMisplacedRecordPath(kind, id, known) ? [...paths, known] : paths;
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
