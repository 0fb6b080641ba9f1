import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { parseJsonText } from "../core/model/validate.ts";
import { INDEX_FILE, INDEX_VERSION, JOURNAL_FILE } from "./fixed-paths.ts";
import { lookupPaths, type RecordKind, topDirs } from "./layout.ts";
import { settledMeta, stamp, Unsettled } from "./settled-meta.ts";
import { foldersUnchanged } from "./quick-unchanged.ts";
import { journaledIn } from "./journaled.ts";
import { trusted } from "./racy.ts";

// A read of the index without the Store, for a plain `get` (issue 16: a cold get spent ~2.5 ms
// evaluating the store's modules, more than its own work). It answers only where the Store would
// answer the same from the index without writing anything: the store opens cleanly (its metadata
// valid, no fixed path a link, no bulk write or crashed write to recover, the index at this
// version), a quick refresh of the relation folders would find nothing (each folder's mtime the
// recorded one, trusted: store/refresh.ts scanTop/scanLeaf), and each memory's file is the
// indexed one (Store.readMemory: same stat, trusted or the same bytes). Anything else is
// `null` and the caller takes the Store's path, which applies changes, recovers or reports.

/** A folder's mtime alone (fs-port.ts folderMtime), null when no folder is there: 475 of them at 10k, every get. */
function folderMtime(path: string): number | null {
  let s: fs.Stats | undefined;
  try {
    s = fs.statSync(path, { throwIfNoEntry: false });
  } catch {
    throw new Unsettled();
  }
  return s?.isDirectory() ? Math.floor(s.mtimeMs) : null;
}

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
    /** .meta.json's settings as read (Store.rawSettings). */
    readonly rawSettings: unknown,
  ) {}

  /** The store's index, opened as Store.open would find it, or null when the Store's path must open it. */
  static open(root: string, busyTimeoutMs: number): SettledIndex | null {
    const meta = settledMeta(root);
    if (!meta) return null;
    const settings = meta.settings;
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(`${root}/${INDEX_FILE}`);
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      const version = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
      const mode = (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
      if (version !== INDEX_VERSION || mode !== "wal") throw new Unsettled();
      return new SettledIndex(root, db, settings);
    } catch {
      db?.close();
      return null;
    }
  }

  close(): void {
    this.db.close();
  }

  /** The connection, for reads of the index's own (ops/recall-settled.ts); closed by close(). */
  get connection(): DatabaseSync {
    return this.db;
  }

  /** Whether a quick refresh of the relation folders would find nothing (foldersCurrent). */
  relationsCurrent(): boolean {
    return this.foldersCurrent("relation");
  }

  /**
   * Whether a quick refresh of one kind's folders would find nothing: each top folder and each
   * recorded shard folder has its recorded mtime, recorded long enough after it (racy.ts), or a
   * top folder is absent and the index knows nothing under it.
   */
  foldersCurrent(kind: RecordKind): boolean {
    try {
      const own = this.db.prepare("SELECT mtime, checked_at FROM dirs WHERE path = ?");
      // the shard folders' rows by name (the path cut in SQL: ~0.4 ms less than in JS for 475 rows)
      const under = this.db.prepare("SELECT substr(path, ?3) AS path, mtime, checked_at FROM dirs WHERE path >= ?1 AND path < ?2");
      const base = `${this.root}/`;
      return foldersUnchanged(
        {
          recorded: (top) => ({
            rec: own.get(top) as DirRow | undefined,
            subs: under.all(`${top}/`, `${top}0`, top.length + 2) as unknown as (DirRow & { path: string })[],
          }),
          knowsFilesIn: (top) => this.db.prepare("SELECT 1 FROM files WHERE dir = ? LIMIT 1").get(top) !== undefined,
          disk: { folderMtime },
          base,
          shardsAt: (top) => {
            // each shard folder by its name from inside the top folder: the kernel walks one path
            // component per stat instead of the store's whole path (~1 µs of ~4 each here, 475 at 10k)
            const from = within(base + top);
            return from === null ? { at: `${base}${top}/` } : { at: "", done: () => process.chdir(from) };
          },
        },
        [kind],
      );
    } catch {
      return false;
    }
  }

  /**
   * A memory as Store.readMemory serves it from the index: "absent" when no file of it is at
   * any of its places, its indexed JSON when its file is the one indexed for it, provably
   * unchanged (same stat, and trusted or the same bytes), else null.
   */
  memory(id: string): SettledMemory | "absent" | null {
    try {
      const row = this.db
        .prepare("SELECT m.path, f.mtime, f.size, f.ino, f.indexed_at, f.problem, d.json FROM memories m JOIN memory_docs d ON d.rid = m.rid LEFT JOIN files f ON f.path = m.path WHERE m.id = ?")
        .get(id) as { path: string; mtime: number | null; size: number; ino: number; indexed_at: number; problem: string | null; json: string } | undefined;
      // the places Store.locate looks, the indexed one first: the first file found is the record
      const order = lookupPaths("memory", id, row?.path);
      let at: { path: string; st: NonNullable<ReturnType<typeof stamp>> } | undefined;
      for (const rel of order) {
        const st = stamp(`${this.root}/${rel}`);
        if (st?.isFile) {
          at = { path: rel, st };
          break;
        }
      }
      if (!at) return "absent";
      if (!row) return journaledFile(this.root, at.path);
      if (at.path !== row.path || row.mtime === null || row.problem !== null || row.mtime !== at.st.mtime || row.size !== at.st.size || row.ino !== at.st.ino || !row.json) return null;
      // racily clean: the stat cannot prove the file unchanged, its bytes can (Store.readMemory)
      if (!trusted(row.mtime, row.indexed_at) && fs.readFileSync(`${this.root}/${at.path}`, "utf8") !== row.json) return null;
      return { path: at.path, json: row.json };
    } catch {
      return null;
    }
  }

  /** The JSON of the relations from and to a memory, as the index has them (each list by relation id). */
  relations(id: string): { outgoing: string[]; incoming: string[] } {
    const rows = this.db.prepare("SELECT from_id, to_id, json FROM relations WHERE from_id = ?1 OR to_id = ?1 ORDER BY id").all(id) as { from_id: string; to_id: string; json: string }[];
    return { outgoing: rows.filter((r) => r.from_id === id).map((r) => r.json), incoming: rows.filter((r) => r.to_id === id).map((r) => r.json) };
  }
}

/**
 * A memory's file the index has no row of yet, as Store.readMemory serves it once a refresh has
 * indexed it: when the journal's last entry for it holds exactly this text, a memsync write made
 * it (ops/save-unindexed.ts leaves the row to the next refresh), so it is a valid record in its
 * canonical form; anything else is the Store's to read (null).
 */
function journaledFile(root: string, rel: string): SettledMemory | null {
  const text = fs.readFileSync(`${root}/${rel}`, "utf8");
  const journal = fs.readFileSync(`${root}/${JOURNAL_FILE}`, "utf8");
  return journaledIn(journal, { [rel]: text }).has(rel) ? { path: rel, json: text } : null;
}

/**
 * Make `dir` the working folder, returning the one to go back to; null (nothing changed) where the
 * working folder is unknown (removed) or `dir` cannot be entered. Only a one-shot command's settled
 * read uses it (getSettled refuses a server's kept store), and it returns before anything else runs.
 */
function within(dir: string): string | null {
  let back: string;
  try {
    back = process.cwd();
    process.chdir(dir);
  } catch {
    return null;
  }
  return back;
}
