import fs from "node:fs";
import { parseJsonText } from "../core/model/validate.ts";
import { metaProblem } from "../core/model/meta-check.ts";
import { STORAGE_VERSION } from "../core/model/vocab.ts";
import { bootId } from "./boot.ts";
import { BULK_MARKER, FIXED_PATHS, INDEX_FILE, REDO_MARKER } from "./fixed-paths.ts";
import { LOCAL_DIR, META_FILE } from "./layout.ts";

// Whether a store opens as Store.open would find it, with nothing to recover first: for the
// settled read of the index (settled-index.ts) and for a save that leaves its index row to the
// next refresh (ops/save-unindexed.ts), which so evaluates none of the settled read's modules.

/** Why the settled read gave up: the Store's path must answer. */
export class Unsettled extends Error {}

/** A file or folder's stamp, as fs-port.ts's stat gives it; null when nothing is there. Anything odd gives up. */
export function stamp(path: string): { mtime: number; size: number; ino: number; isFile: boolean; isDir: boolean } | null {
  let s: fs.Stats | undefined;
  try {
    s = fs.statSync(path, { throwIfNoEntry: false });
  } catch {
    throw new Unsettled(); // a path through a file, no permission ...: the Store's path tells
  }
  return s ? { mtime: Math.floor(s.mtimeMs), size: s.size, ino: s.ino, isFile: s.isFile(), isDir: s.isDirectory() } : null;
}

const isLink = (path: string) => fs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;

/**
 * .meta.json as read, when the store opens as Store.open would find it with nothing to do first:
 * its metadata valid, no fixed path a link, the machine-local folder and the index there, no bulk
 * write or crashed write to recover, and writable by this process; else null (the Store's path
 * opens it, and recovers or reports).
 */
export function settledMeta(root: string): Record<string, unknown> | null {
  try {
    const meta = usableMeta(root);
    if (!meta) return null;
    for (const rel of FIXED_PATHS) if (isLink(`${root}/${rel}`)) return null;
    if (!stamp(`${root}/${LOCAL_DIR}`)?.isDir || stamp(`${root}/${BULK_MARKER}`) || !stamp(`${root}/${INDEX_FILE}`)?.isFile) return null;
    if (!redoSettled(root)) return null;
    // a store this process may only read: the Store's path reads it from a private copy
    // (store/read-only.ts), and no open of its index for writing is even tried
    fs.accessSync(`${root}/${LOCAL_DIR}`, fs.constants.W_OK);
    return meta;
  } catch {
    return null;
  }
}

/** .meta.json, when it is one this version opens without complaint (store.ts readRawMeta); else null. */
function usableMeta(root: string): Record<string, unknown> | null {
  const path = `${root}/${META_FILE}`;
  if (!stamp(path)?.isFile) return null;
  const json = parseJsonText(fs.readFileSync(path, "utf8"));
  if (!json.ok) return null;
  const raw = json.value as Record<string, unknown>;
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && raw.storage_version === STORAGE_VERSION && !metaProblem(raw) ? raw : null;
}

/** No write of an earlier boot waits in the journal to be redone (redo.ts crashedRedo finds none). */
function redoSettled(root: string): boolean {
  const path = `${root}/${REDO_MARKER}`;
  if (!stamp(path)) return true;
  const parsed = parseJsonText(fs.readFileSync(path, "utf8"));
  const boot = parsed.ok && typeof parsed.value === "object" && parsed.value !== null ? (parsed.value as { boot?: unknown }).boot : undefined;
  return boot === bootId();
}
