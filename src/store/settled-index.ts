import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { parseJsonText } from "../core/model/validate.ts";
import { metaProblem } from "../core/model/meta-check.ts";
import { STORAGE_VERSION } from "../core/model/vocab.ts";
import { bootId } from "./boot.ts";
import { BULK_MARKER, FIXED_PATHS, INDEX_FILE, INDEX_VERSION, REDO_MARKER } from "./fixed-paths.ts";
import { allCandidatePaths, LOCAL_DIR, META_FILE, topDirs } from "./layout.ts";
import { trusted } from "./racy.ts";

// A read of the index without the Store, for a plain `get` (issue 16: a cold get spent ~2.5 ms
// evaluating the store's modules, more than its own work). It answers only where the Store would
// answer the same from the index without writing anything: the store opens cleanly (its metadata
// valid, no fixed path a link, no bulk write or crashed write to recover, the index at this
// version), a quick refresh of the relation folders would find nothing (each folder's mtime the
// recorded one, trusted: store/refresh.ts scanTop/scanLeaf), and each memory's file is the
// indexed one (Store.readMemory: same stat, trusted or the same bytes). Anything else is
// `null` and the caller takes the Store's path, which applies changes, recovers or reports.

/** Why the settled read gave up: the Store's path must answer. */
class Unsettled extends Error {}

/** A file or folder's stamp, as fs-port.ts's stat gives it; null when nothing is there. Anything odd gives up. */
function stamp(path: string): { mtime: number; size: number; ino: number; isFile: boolean; isDir: boolean } | null {
  let s: fs.Stats | undefined;
  try {
    s = fs.statSync(path, { throwIfNoEntry: false });
  } catch {
    throw new Unsettled(); // a path through a file, no permission ...: the Store's path tells
  }
  return s ? { mtime: Math.floor(s.mtimeMs), size: s.size, ino: s.ino, isFile: s.isFile(), isDir: s.isDirectory() } : null;
}

const isLink = (path: string) => fs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;

interface DirRow {
  mtime: number;
  checked_at: number;
}

export interface SettledMemory {
  path: string;
  json: string;
}

export class SettledIndex {
  private constructor(
    private readonly root: string,
    private readonly db: DatabaseSync,
  ) {}

  /** The store's index, opened as Store.open would find it, or null when the Store's path must open it. */
  static open(root: string, busyTimeoutMs: number): SettledIndex | null {
    try {
      if (!metaUsable(root)) return null;
      for (const rel of FIXED_PATHS) if (isLink(`${root}/${rel}`)) return null;
      if (!stamp(`${root}/${LOCAL_DIR}`)?.isDir || stamp(`${root}/${BULK_MARKER}`) || !stamp(`${root}/${INDEX_FILE}`)?.isFile) return null;
      if (!redoSettled(root)) return null;
    } catch {
      return null;
    }
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(`${root}/${INDEX_FILE}`);
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      const version = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
      const mode = (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
      if (version !== INDEX_VERSION || mode !== "wal") throw new Unsettled();
      return new SettledIndex(root, db);
    } catch {
      db?.close();
      return null;
    }
  }

  close(): void {
    this.db.close();
  }

  private dir(path: string): DirRow | undefined {
    return this.db.prepare("SELECT mtime, checked_at FROM dirs WHERE path = ?").get(path) as DirRow | undefined;
  }

  /**
   * Whether a quick refresh of the relation folders would find nothing: each top folder and each
   * recorded shard folder has its recorded mtime, recorded long enough after it (racy.ts), or a
   * top folder is absent and the index knows nothing under it.
   */
  relationsCurrent(): boolean {
    try {
      for (const top of topDirs("relation")) {
        const mtime = stamp(`${this.root}/${top}`);
        const rec = this.dir(top);
        const subs = this.db.prepare("SELECT path, mtime, checked_at FROM dirs WHERE path > ? AND path < ?").all(`${top}/`, `${top}0`) as unknown as (DirRow & { path: string })[];
        if (!mtime?.isDir) {
          if (rec || subs.length || this.db.prepare("SELECT 1 FROM files WHERE dir = ? LIMIT 1").get(top)) return false;
          continue;
        }
        if (!current(rec, mtime.mtime)) return false;
        for (const sub of subs) {
          const m = stamp(`${this.root}/${sub.path}`);
          if (!m?.isDir || !current(sub, m.mtime)) return false;
        }
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A memory as Store.readMemory serves it from the index: "absent" when no file of it is at
   * any of its places, its indexed JSON when its file is provably the indexed one, else null.
   */
  memory(id: string): SettledMemory | "absent" | null {
    try {
      const known = (this.db.prepare("SELECT path FROM memories WHERE id = ?").get(id) as { path: string } | undefined)?.path;
      const paths = allCandidatePaths("memory", id);
      let at: { path: string; st: NonNullable<ReturnType<typeof stamp>> } | undefined;
      for (const rel of known && paths.includes(known) ? [known, ...paths.filter((p) => p !== known)] : paths) {
        const st = stamp(`${this.root}/${rel}`);
        if (st?.isFile) {
          at = { path: rel, st };
          break;
        }
      }
      if (!at) return "absent";
      const row = this.db.prepare("SELECT mtime, size, ino, indexed_at, problem FROM files WHERE path = ?").get(at.path) as
        | { mtime: number; size: number; ino: number; indexed_at: number; problem: string | null }
        | undefined;
      if (!row || row.problem !== null || row.mtime !== at.st.mtime || row.size !== at.st.size || row.ino !== at.st.ino) return null;
      const json = (this.db.prepare("SELECT d.json FROM memories m JOIN memory_docs d ON d.rid = m.rid WHERE m.path = ?").get(at.path) as { json: string } | undefined)?.json;
      if (!json) return null;
      // racily clean: the stat cannot prove the file unchanged, its bytes can (Store.readMemory)
      if (!trusted(row.mtime, row.indexed_at) && fs.readFileSync(`${this.root}/${at.path}`, "utf8") !== json) return null;
      return { path: at.path, json };
    } catch {
      return null;
    }
  }

  /** The JSON of the relations from and to a memory, as the index has them (by relation id). */
  relations(id: string): { outgoing: string[]; incoming: string[] } {
    const of = (column: "from_id" | "to_id") => (this.db.prepare(`SELECT json FROM relations WHERE ${column} = ? ORDER BY id`).all(id) as { json: string }[]).map((r) => r.json);
    return { outgoing: of("from_id"), incoming: of("to_id") };
  }
}

/** A folder's row says its listing stands (refresh.ts: `listed`). */
const current = (rec: DirRow | undefined, mtime: number) => rec !== undefined && rec.mtime === mtime && trusted(rec.mtime, rec.checked_at);

/** .meta.json is one this version opens without complaint (store.ts readRawMeta). */
function metaUsable(root: string): boolean {
  const path = `${root}/${META_FILE}`;
  if (!stamp(path)?.isFile) return false;
  const json = parseJsonText(fs.readFileSync(path, "utf8"));
  if (!json.ok) return false;
  const raw = json.value as Record<string, unknown>;
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && raw.storage_version === STORAGE_VERSION && !metaProblem(raw);
}

/** No write of an earlier boot waits in the journal to be redone (redo.ts crashedRedo finds none). */
function redoSettled(root: string): boolean {
  const path = `${root}/${REDO_MARKER}`;
  if (!stamp(path)) return true;
  const parsed = parseJsonText(fs.readFileSync(path, "utf8"));
  const boot = parsed.ok && typeof parsed.value === "object" && parsed.value !== null ? (parsed.value as { boot?: unknown }).boot : undefined;
  return boot === bootId();
}
