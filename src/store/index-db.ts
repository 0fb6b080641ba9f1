import { DatabaseSync, type StatementSync } from "node:sqlite";
import { storedTerms, TERMS_VERSION } from "../core/memory-terms.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { RecordKind } from "./layout.ts";
import { indexCountsFromTables, indexCountsSchema } from "./index-counts.ts";
import { dirSumsFromFiles, dirSumsSchema, FOLDER_SUMS_SQL, type StampSums } from "./stamp-sums.ts";

// The derived index: a local SQLite file (.memsync/index.db, never committed) that mirrors the
// record files so reads need not open thousands of them. Everything in it can be rebuilt from the
// files; a version change or a damaged file just means a rebuild. Writers are serialized by the
// store's write lock, a separate file (write-lock.ts), so replacing a damaged index never splits
// them.

import { INDEX_VERSION } from "./fixed-paths.ts";
import { heartbeat } from "./lock-heartbeat.ts";
import { boundedReady, boundedSearch, IMPACT_CLEAR, IMPACT_DROP, IMPACT_SCHEMA, settlePostings, type StepRunner } from "./impact-postings.ts";

/**
 * The full-text index keeps no copy of the text (the record is in memory_docs): contentless, with
 * deletes allowed (SQLite 3.43+), so removing a memory drops its row without re-reading and
 * re-tokenizing the text first (gc deleting thousands of memories spent most of its time there).
 */
/** One whole term of an FTS5 expression, quoted, no prefix: its matches are a plain list (reachedBeforeStatuses). */
const WHOLE_TERM = /^"[^"*]+"$/;
/** searchMemories ranks a page from this many best scores of the full-text index first (at least 4x the page). */
const SCORED_FIRST = 200;
/** bestByScore is tried when the filter's share of the scored rows is expected to be this many pages (see passesFew). */
const PASS_MARGIN = 1.5;
/**
 * A filter that passes few memories is applied as a set of their rids (rankedInPassing) when the
 * matches are at least this share of them: building the set costs ~0.15-0.3 µs a passing memory,
 * looking up each match's memory row ~0.5 µs (10k) to ~1.7 µs (50k) in a cold process.
 */
const SET_FROM_SHARE = 4;

const FTS_TABLE = `CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
  content, gist, tags, entities, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);`;

/** The full-text rows made again from the indexed records (as putMemory makes them). */
const FTS_FROM_DOCS = `INSERT INTO memory_fts(rowid, content, gist, tags, entities)
SELECT d.rid, json_extract(d.json, '$.content'), coalesce(json_extract(d.json, '$.gist'), ''),
  coalesce((SELECT group_concat(value, ' ') FROM json_each(d.json, '$.meta.tags')), ''),
  coalesce((SELECT group_concat(value, ' ') FROM json_each(d.json, '$.entities')), '')
FROM memory_docs d;`;

/** A relation read by its file's path (a commit's refresh compares each new file with the index: a scan of every relation per file without it). */
const RELATIONS_PATH = "CREATE INDEX IF NOT EXISTS relations_path ON relations(path);";

/** The few files with a problem, found without a scan of every file row (status asks on every run). */
const FILES_PROBLEM = "CREATE INDEX IF NOT EXISTS files_problem ON files(path) WHERE problem IS NOT NULL;";

/**
 * A project's memories of some types counted from the index alone (a session start counted a
 * project's decisions by reading each of its rows: 33 ms at 50k), and the user's global rules
 * found among the few memories that are global and of no project (they were read out of every
 * project-less record's text: 34 ms at 50k).
 */
const PROJECT_AND_GLOBAL_INDEXES = `CREATE INDEX IF NOT EXISTS memories_project_type ON memories(project, type, status);
CREATE INDEX IF NOT EXISTS memories_global ON memories(created_at) WHERE scope = 'global' AND project IS NULL;`;

/** The whole schema (a new or rebuilt index); made when asked, as the trigger texts it holds. */
const schema = () => `
CREATE TABLE IF NOT EXISTS dirs (
  path TEXT PRIMARY KEY, mtime INTEGER NOT NULL, checked_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, dir TEXT NOT NULL, kind TEXT NOT NULL, id TEXT,
  mtime INTEGER NOT NULL, size INTEGER NOT NULL, ino INTEGER NOT NULL, indexed_at INTEGER NOT NULL,
  problem TEXT, seen TEXT
);
CREATE INDEX IF NOT EXISTS files_dir ON files(dir);
${FILES_PROBLEM}
CREATE TABLE IF NOT EXISTS memories (
  rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
  type TEXT NOT NULL, status TEXT NOT NULL, project TEXT,
  created_at REAL NOT NULL, last_used REAL NOT NULL,
  use_count INTEGER NOT NULL DEFAULT 0, strength REAL NOT NULL DEFAULT 1, fingerprint TEXT,
  conflicts INTEGER NOT NULL DEFAULT 0, scope TEXT NOT NULL DEFAULT 'team', confidence REAL
);
-- the record text lives apart, so filters and counts scan small rows; terms: what recall compares
-- it by (core/memory-terms.ts storedTerms), made when it is indexed
CREATE TABLE IF NOT EXISTS memory_docs (rid INTEGER PRIMARY KEY, json TEXT NOT NULL, terms TEXT);
CREATE INDEX IF NOT EXISTS memories_path ON memories(path);
CREATE INDEX IF NOT EXISTS memories_created ON memories(created_at);
CREATE INDEX IF NOT EXISTS memories_status ON memories(status, created_at);
CREATE INDEX IF NOT EXISTS memories_type ON memories(type);
CREATE INDEX IF NOT EXISTS memories_project ON memories(project);
CREATE INDEX IF NOT EXISTS memories_fingerprint ON memories(fingerprint) WHERE fingerprint IS NOT NULL;
CREATE INDEX IF NOT EXISTS memories_conflicts ON memories(created_at) WHERE conflicts > 0;
${PROJECT_AND_GLOBAL_INDEXES}
CREATE TABLE IF NOT EXISTS memory_tags (tag TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tag, rid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_tags_rid ON memory_tags(rid);
CREATE TABLE IF NOT EXISTS memory_entities (entity TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (entity, rid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_entities_rid ON memory_entities(rid);
${FTS_TABLE}
CREATE TABLE IF NOT EXISTS relations (
  id TEXT PRIMARY KEY, path TEXT NOT NULL, from_id TEXT NOT NULL, to_id TEXT NOT NULL,
  type TEXT NOT NULL, json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS relations_from ON relations(from_id);
CREATE INDEX IF NOT EXISTS relations_to ON relations(to_id);
${RELATIONS_PATH}
${dirSumsSchema()}
${indexCountsSchema()}
${IMPACT_SCHEMA}
`;

/**
 * Version 2 to 5: use_count and strength as columns (gc and promote score a whole store from
 * them), the capture fingerprint (a statement seen again), and a full-text table without its own
 * copy of the text, all filled from the indexed records in place, so an upgrade does not rebuild
 * the index from the files. (Versions 3 and 4 existed only during development: rebuilt.)
 */
const MIGRATE_2 = `
ALTER TABLE memories ADD COLUMN use_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN strength REAL NOT NULL DEFAULT 1;
ALTER TABLE memories ADD COLUMN fingerprint TEXT;
UPDATE memories SET
  use_count = coalesce((SELECT json_extract(d.json, '$.use_count') FROM memory_docs d WHERE d.rid = memories.rid), 0),
  strength = coalesce((SELECT json_extract(d.json, '$.strength') FROM memory_docs d WHERE d.rid = memories.rid), 1),
  fingerprint = (SELECT json_extract(d.json, '$.fingerprint') FROM memory_docs d WHERE d.rid = memories.rid);
CREATE INDEX IF NOT EXISTS memories_fingerprint ON memories(fingerprint) WHERE fingerprint IS NOT NULL;
DROP TABLE memory_fts;
${FTS_TABLE}
${FTS_FROM_DOCS}
`;

/**
 * Version 5 to 6: the number of unresolved content conflicts as a column with a partial index,
 * so status and conflicts find them without scanning every record's text (75 MB at 50k).
 */
const MIGRATE_5 = `
ALTER TABLE memories ADD COLUMN conflicts INTEGER NOT NULL DEFAULT 0;
UPDATE memories SET conflicts = coalesce((SELECT json_array_length(d.json, '$.content_conflicts') FROM memory_docs d
  WHERE d.rid = memories.rid AND instr(d.json, '"content_conflicts"') > 0), 0);
CREATE INDEX IF NOT EXISTS memories_conflicts ON memories(created_at) WHERE conflicts > 0;
`;

/**
 * Version 6 to 7: each memory's recall terms (memory_docs.terms), made from its indexed record in
 * place (fillTerms: in code, as a write makes them), so an upgrade does not rebuild the index.
 */
const MIGRATE_6 = "ALTER TABLE memory_docs ADD COLUMN terms TEXT";

/**
 * Version 7 to 8: each folder's stamp sums in a table of their own, kept by triggers on the files
 * table (stamp-sums.ts), filled from the files in place, and the files with a problem indexed.
 */
const migrate7 = () => `${dirSumsSchema()}
${FILES_PROBLEM}
DELETE FROM dir_sums;
INSERT INTO dir_sums(kind, dir, n, mtime_high, mtime_low, size, mixed, unsure) SELECT kind, dir, n, mtime_high, mtime_low, size, mixed, unsure FROM (${dirSumsFromFiles()});`;

/**
 * Version 8 to 9: each memory's sharing scope and confidence as columns (filled from the indexed
 * records in place), with the indexes a session start asks (PROJECT_AND_GLOBAL_INDEXES).
 */
const MIGRATE_8_COLUMNS = `
ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'team';
ALTER TABLE memories ADD COLUMN confidence REAL;`;
const MIGRATE_8 = `
UPDATE memories SET
  scope = coalesce((SELECT json_extract(d.json, '$.scope') FROM memory_docs d WHERE d.rid = memories.rid), 'team'),
  confidence = (SELECT json_extract(d.json, '$.confidence') FROM memory_docs d WHERE d.rid = memories.rid);
${PROJECT_AND_GLOBAL_INDEXES}
`;

/**
 * Version 9 to 10: status's counts (by status, by type, dangling relations) kept by triggers
 * (index-counts.ts), filled from the tables in place.
 */
const migrate9 = () => `${indexCountsSchema()}
${indexCountsFromTables()}`;

/**
 * Version 10 to 11: the hash of the bytes a file with a problem held when indexed (FileRow.seen),
 * empty for the files indexed before: each is journaled once more at most, as before.
 */
const MIGRATE_10 = "ALTER TABLE files ADD COLUMN seen TEXT";

const DROP = `
DROP TABLE IF EXISTS dirs; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS memories; DROP TABLE IF EXISTS memory_docs;
DROP TABLE IF EXISTS memory_tags; DROP TABLE IF EXISTS memory_entities; DROP TABLE IF EXISTS memory_fts;
DROP TABLE IF EXISTS relations; DROP TABLE IF EXISTS dir_sums; DROP TABLE IF EXISTS index_counts;
${IMPACT_DROP}
`;

export interface DirRow {
  path: string;
  mtime: number;
  checked_at: number;
}

export interface FileRow {
  path: string;
  dir: string;
  kind: RecordKind;
  id: string | null;
  mtime: number;
  size: number;
  ino: number;
  indexed_at: number;
  problem: string | null;
  /**
   * A file with a problem has no indexed record to compare its bytes with: the hash of the bytes
   * it held (refresh.ts bytesSeen), so the same corrupt file seen again inside its racy window is
   * not journaled as a new edit. Null for a valid file, or bytes that did not decode cleanly.
   */
  seen?: string | null;
}

/** What a refresh compares a file's stat with (a row without the columns it does not need: cheaper to load 13,000 of). */
export type FileStamp = Pick<FileRow, "path" | "dir" | "mtime" | "size" | "ino" | "indexed_at" | "problem">;

export interface MemoryFilter {
  statuses?: readonly string[];
  types?: readonly string[];
  project?: string;
  /** This project's memories and those of no project (recall for a project). */
  projectOrNone?: string;
  tags?: readonly string[];
  entities?: readonly string[];
  since?: number;
  /** Created before (exclusive): with since, a date range. */
  before?: number;
}

/** What the decay score needs of a memory (see core/decay.ts), straight from the index. */
export interface ScoringRow {
  id: string;
  status: string;
  created_at: number;
  last_used: number;
  use_count: number;
  strength: number;
}

/** What consolidation compares of a memory, out of its indexed record (tags, entities: JSON arrays). */
export interface ClusterRow {
  id: string;
  project: string | null;
  scope: string;
  content: string;
  tags: string;
  entities: string;
}

type Param = string | number | null;

/**
 * MEMSYNC_SLOW_INDEX_DELETE_MS (tests): each record whose rows a bulk delete removes (deleteFiles)
 * takes this much longer, inside its statements, as on a CPU starved under load: gc's delete of
 * 3,000 memories' rows was one silent stretch of 3.8 s at ~25x starvation.
 */
const slowDeleteMs = Number(process.env.MEMSYNC_SLOW_INDEX_DELETE_MS) || 0;

function slowRowsDeleted(records: number): void {
  if (slowDeleteMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, slowDeleteMs * records);
}

/**
 * Files whose rows one chunk of a bulk delete removes (MEMSYNC_INDEX_DELETE_CHUNK overrides it:
 * tests). A chunk of 256 memories costs ~30 ms at load 13, under a second even at 25x starvation.
 */
function deleteChunk(): number {
  const v = Number(process.env.MEMSYNC_INDEX_DELETE_CHUNK);
  return Number.isInteger(v) && v >= 1 ? v : 256;
}

/** The page cache, in KiB: room for a large transaction's pages; SCAN_CACHE_KB while reading every record once. */
const CACHE_KB = 65536;
const SCAN_CACHE_KB = 2048;
/**
 * Reads through a memory map of the index file, up to this many bytes: a command's process starts
 * with an empty page cache, and reading each page with pread into memory of its own (copied,
 * every heap page touched a fault) was most of a cold recall's search (a hook at 10k: ~20 ms of
 * CPU and ~700 page faults less). memsync never truncates the index file (a damaged one is
 * replaced by a rename), so a mapped page never vanishes under a reader. Off while scanning.
 */
const MMAP_BYTES = 256 * 1024 * 1024;

function userVersion(db: DatabaseSync): number {
  return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

export function isBusy(e: unknown): boolean {
  return e instanceof Error && /database is locked|SQLITE_BUSY/i.test(e.message);
}

/** SQLite found the index file damaged (it can be rebuilt from the records). */
export function isIndexDamage(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const errcode = (e as { errcode?: unknown }).errcode;
  // SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), by code where the runtime gives one
  return errcode === 11 || errcode === 26 || /database disk image is malformed|file is not a database/i.test(e.message);
}

export class IndexDb {
  private readonly stmts = new Map<string, StatementSync>();
  private depth = 0;
  /** How many times adopt() replaced the connection (part of dataVersion). */
  private connection = 0;
  /** True when this open made the index from nothing (a new store, a lost or outdated index). */
  created = false;

  private constructor(private db: DatabaseSync) {}

  /**
   * Take over a freshly opened connection (to a file that replaced this one's), closing this one's.
   * The object stays the same, so nothing that holds it is left with a closed connection.
   */
  adopt(fresh: IndexDb): void {
    if (this.depth > 0) throw new Error("the index cannot be reopened inside a transaction");
    try {
      this.db.close();
    } catch {
      // already closed
    }
    this.db = fresh.db;
    this.connection++;
    this.stmts.clear();
    this.created = fresh.created;
    if (this.checkpointAfter !== null) this.deferCheckpoints(this.checkpointAfter);
  }

  /** The WAL size (pages) at which a commit of this connection checkpoints; null: SQLite's 1,000. */
  private checkpointAfter: number | null = null;

  /**
   * Let commits of this connection grow the WAL to `pages` before one of them copies it into the
   * index file (SQLite's automatic checkpoint, every 1,000 pages by default): a long-running
   * process checkpoints in its idle time instead (checkpoint()), and this is only the bound.
   */
  deferCheckpoints(pages: number): void {
    this.checkpointAfter = Math.max(1, Math.floor(pages));
    this.db.exec(`PRAGMA wal_autocheckpoint = ${this.checkpointAfter}`);
  }

  /**
   * Copy the WAL's pages into the index file, never waiting (PASSIVE, no busy wait: a reader or
   * writer of another process just leaves some pages for the next one). True when every page
   * was copied (the next write starts the WAL again from its beginning).
   */
  checkpoint(busyTimeoutMs: number): boolean {
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      const r = this.db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number };
      return r.busy === 0 && r.log === r.checkpointed;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    }
  }

  /**
   * Open, creating or upgrading the schema as needed. The index runs with synchronous=OFF: it is
   * derived, so after a power loss it may need rebuilding (see isIndexDamage), but no command
   * pays for fsyncs on it.
   */
  static open(path: string, busyTimeoutMs: number): IndexDb {
    const db = new DatabaseSync(path);
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      db.exec("PRAGMA synchronous = OFF");
      // room for a large transaction's pages (gc deleting thousands of rows spilled a 2 MB cache
      // to the WAL and took twice as long); taken only as pages are used
      db.exec(`PRAGMA cache_size = -${CACHE_KB}`);
      db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
      // statement journals in memory: a statement that fires a trigger (the status counts) or
      // writes FTS5 rows inside a long transaction copies each page it touches first, and on disk
      // that was a 4 KiB pwrite to a /var/tmp file each (~360,000 in a 10k import)
      db.exec("PRAGMA temp_store = MEMORY");
      const idx = new IndexDb(db);
      // several processes may meet a store's first index at once: make the schema under the
      // write transaction, check again inside it, and retry what SQLite refuses without waiting
      const deadline = Date.now() + busyTimeoutMs;
      for (;;) {
        try {
          if (userVersion(db) !== INDEX_VERSION) {
            idx.transaction(() => {
              const version = userVersion(db);
              if (version === INDEX_VERSION) return;
              if (version === 2 || version === 5 || version === 6 || version === 7 || version === 8 || version === 9 || version === 10 || version === 11) {
                if (version === 2) db.exec(MIGRATE_2);
                if (version <= 5) db.exec(MIGRATE_5);
                if (version <= 6) {
                  if (!(db.prepare("PRAGMA table_info(memory_docs)").all() as { name: string }[]).some((c) => c.name === "terms")) db.exec(MIGRATE_6);
                  idx.fillTerms();
                  db.exec(RELATIONS_PATH);
                }
                if (version <= 7) db.exec(migrate7());
                if (version <= 8) {
                  if (!(db.prepare("PRAGMA table_info(memories)").all() as { name: string }[]).some((c) => c.name === "scope")) db.exec(MIGRATE_8_COLUMNS);
                  db.exec(MIGRATE_8);
                }
                if (version <= 9) db.exec(migrate9());
                if (!(db.prepare("PRAGMA table_info(files)").all() as { name: string }[]).some((c) => c.name === "seen")) db.exec(MIGRATE_10);
                // version 12: the impact postings' tables, empty (built by the next command that
                // writes a lot: Store.settleBoundedSearch; until then recall asks FTS5 as before).
                // Dropped first: an older binary that rebuilt this index (a version it did not
                // know) left them built, their rids now other memories'
                db.exec(IMPACT_DROP);
                db.exec(IMPACT_SCHEMA);
                db.exec(`PRAGMA user_version = ${INDEX_VERSION}`);
                return;
              }
              if (version !== 0) db.exec(DROP);
              db.exec(schema());
              db.exec(`PRAGMA user_version = ${INDEX_VERSION}`);
              idx.created = true;
            });
          }
          if ((db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode !== "wal") db.exec("PRAGMA journal_mode = WAL");
          return idx;
        } catch (e) {
          if (!isBusy(e) || Date.now() > deadline) throw e;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /**
   * Reads over a connection store/settled-index.ts opened and found at this version in WAL mode:
   * nothing is made, upgraded or written (a cold hook's recall without the Store).
   */
  static reading(db: DatabaseSync): IndexDb {
    // as open() reads: the pages mapped (one pread per page otherwise: ~700 for a hook's recall)
    db.exec(`PRAGMA cache_size = -${CACHE_KB}; PRAGMA mmap_size = ${MMAP_BYTES}`);
    return new IndexDb(db);
  }

  /**
   * A value that changes whenever another connection (another process) committed to the index,
   * or this one was replaced by another file (SQLite's data_version; this connection's own
   * commits leave it as it is).
   */
  dataVersion(): string {
    return `${this.connection}:${(this.q("PRAGMA data_version").get() as { data_version: number }).data_version}`;
  }

  /** Forget everything (inside a transaction); the next refresh rebuilds from the files. */
  clear(): void {
    this.db.exec(
      "DELETE FROM dirs; DELETE FROM files; DELETE FROM relations; DELETE FROM memories; DELETE FROM memory_docs; INSERT INTO memory_fts(memory_fts) VALUES ('delete-all'); DELETE FROM memory_tags; DELETE FROM memory_entities; DELETE FROM dir_sums; DELETE FROM index_counts;",
    );
    this.db.exec(IMPACT_CLEAR);
  }

  close(): void {
    this.db.close();
  }

  private q(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Run fn in one IMMEDIATE transaction; nested calls join it. */
  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (e) {
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // the transaction may already be gone (SQLite rolls back on some errors)
      }
      throw e;
    } finally {
      this.depth--;
    }
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  // --- folders and files -------------------------------------------------------------------

  dir(path: string): DirRow | undefined {
    return this.q("SELECT path, mtime, checked_at FROM dirs WHERE path = ?").get(path) as DirRow | undefined;
  }

  subdirs(top: string): DirRow[] {
    // the paths under `top/` are those between "top/" and "top0" ("0" follows "/"): a range of
    // the primary key, where LIKE read every folder row (both kinds, both places: 1,028 at 50k)
    return this.q("SELECT path, mtime, checked_at FROM dirs WHERE path > ? AND path < ? ORDER BY path").all(`${top}/`, `${top}0`) as unknown as DirRow[];
  }

  setDir(path: string, mtime: number, checkedAt: number): void {
    this.q("INSERT INTO dirs(path, mtime, checked_at) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET mtime = excluded.mtime, checked_at = excluded.checked_at").run(
      path,
      mtime,
      checkedAt,
    );
  }

  deleteDir(path: string): void {
    this.q("DELETE FROM dirs WHERE path = ?").run(path);
  }

  filesIn(dir: string): FileRow[] {
    return this.q("SELECT * FROM files WHERE dir = ?").all(dir) as unknown as FileRow[];
  }

  /** The stamps of one folder's files. */
  stampsIn(dir: string): FileStamp[] {
    return this.q("SELECT path, dir, mtime, size, ino, indexed_at, problem FROM files WHERE dir = ?").all(dir) as unknown as FileStamp[];
  }

  /** The stamps of every file of one kind, in one query (a full refresh looks at all of them). */
  stampsOfKind(kind: RecordKind): FileStamp[] {
    return this.q("SELECT path, dir, mtime, size, ino, indexed_at, problem FROM files WHERE kind = ?").all(kind) as unknown as FileStamp[];
  }

  /** Per folder, sums of the stamps of one kind's files (see stamp-sums.ts): what a full refresh compares first. */
  folderSums(kind: RecordKind): Map<string, StampSums> {
    const rows = this.q(FOLDER_SUMS_SQL).all(kind) as unknown as (StampSums & { dir: string })[];
    return new Map(rows.map((r) => [r.dir, r]));
  }

  /** Record files the index knows, from the folder sums (one small row per folder). */
  fileCount(): number {
    return (this.q("SELECT coalesce(sum(n), 0) AS n FROM dir_sums").get() as { n: number }).n;
  }

  file(path: string): FileRow | undefined {
    return this.q("SELECT * FROM files WHERE path = ?").get(path) as FileRow | undefined;
  }

  putFile(row: FileRow): void {
    this.q(
      `INSERT INTO files(path, dir, kind, id, mtime, size, ino, indexed_at, problem, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET dir = excluded.dir, kind = excluded.kind, id = excluded.id, mtime = excluded.mtime,
       size = excluded.size, ino = excluded.ino, indexed_at = excluded.indexed_at, problem = excluded.problem, seen = excluded.seen`,
    ).run(row.path, row.dir, row.kind, row.id, row.mtime, row.size, row.ino, row.indexed_at, row.problem, row.problem === null ? null : (row.seen ?? null));
  }

  /** Forget a file and the record indexed from it; returns what was known of the file. */
  deleteFile(path: string): FileRow | undefined {
    const row = this.file(path);
    this.q("DELETE FROM files WHERE path = ?").run(path);
    if (!row?.id) return row;
    if (row.kind === "memory") {
      const m = this.q("SELECT rid FROM memories WHERE id = ? AND path = ?").get(row.id, path) as { rid: number } | undefined;
      if (m) this.dropMemoryRow(m.rid);
    } else {
      this.q("DELETE FROM relations WHERE id = ? AND path = ?").run(row.id, path);
    }
    return row;
  }

  /**
   * deleteFile for many files of one kind, a chunk of files at a time (a few statements each: the
   * files' rows and the records indexed from exactly those files; a record indexed from another
   * copy stays), all in one transaction, with a heartbeat between chunks. As one statement per
   * table, gc's removal of 5,348 memories at 10k was 0.67 s in which the lock's holder gave no sign
   * of life (3.8 s for 3,000 at ~25x CPU starvation), and a waiter gives up after its busy timeout
   * of silence. One transaction, so a holder killed between chunks leaves the index as it was.
   * The full-text rows go in one statement after the chunks: chunked, every FTS5 delete made the
   * statements after it pay (+50% CPU for the whole delete), and the one costs ~15 ms at 5,348.
   */
  deleteFiles(kind: RecordKind, paths: readonly string[]): void {
    if (paths.length === 0) return;
    const chunk = deleteChunk();
    const inList = "(SELECT value FROM json_each(?))";
    this.transaction(() => {
      const rids: number[] = [];
      for (let i = 0; i < paths.length; i += chunk) {
        if (i > 0) heartbeat();
        const list = JSON.stringify(paths.slice(i, i + chunk));
        if (kind === "memory") {
          const these = (this.q(`SELECT m.rid FROM memories m JOIN files f ON f.path = m.path AND f.id = m.id WHERE f.path IN ${inList}`).all(list) as { rid: number }[]).map((r) => r.rid);
          for (const table of ["memories", "memory_docs", "memory_tags", "memory_entities"]) this.q(`DELETE FROM ${table} WHERE rid IN ${inList}`).run(JSON.stringify(these));
          rids.push(...these);
        } else {
          this.q(`DELETE FROM relations WHERE path IN ${inList} AND id IN (SELECT id FROM files WHERE path IN ${inList})`).run(list, list);
        }
        this.q(`DELETE FROM files WHERE path IN ${inList}`).run(list);
        slowRowsDeleted(Math.min(chunk, paths.length - i));
      }
      if (rids.length > 0) {
        heartbeat();
        this.q(`DELETE FROM memory_fts WHERE rowid IN ${inList}`).run(JSON.stringify(rids));
      }
    });
  }

  /**
   * A record file renamed by memsync itself (store/local-flatten.ts): its row, and the record
   * indexed from it, now at `to` in folder `dir`; its stamp is the same (a rename keeps mtime,
   * size and inode). False when no file row is at `from`.
   */
  moveFile(from: string, to: string, dir: string): boolean {
    const row = this.file(from);
    if (!row) return false;
    this.q("UPDATE files SET path = ?, dir = ? WHERE path = ?").run(to, dir, from);
    if (row.id) this.q(`UPDATE ${row.kind === "memory" ? "memories" : "relations"} SET path = ? WHERE id = ? AND path = ?`).run(to, row.id, from);
    return true;
  }

  /**
   * How many memories are indexed from files under `top/`, counted up to `upTo` (a range of the
   * path index, at most `upTo` entries: the kept counts cover only the whole store).
   */
  memoryCountUnder(top: string, upTo: number): number {
    return (this.q("SELECT count(*) AS n FROM (SELECT 1 FROM memories WHERE path > ? AND path < ? LIMIT ?)").get(`${top}/`, `${top}0`, upTo) as { n: number }).n;
  }

  /** Files that were set aside as second copies of a record with this id. */
  duplicatesOf(kind: RecordKind, id: string): FileRow[] {
    return this.q("SELECT * FROM files WHERE kind = ? AND id = ? AND problem LIKE 'duplicate:%'").all(kind, id) as unknown as FileRow[];
  }

  settleFile(path: string, indexedAt: number): void {
    this.q("UPDATE files SET indexed_at = ? WHERE path = ?").run(indexedAt, path);
  }

  /** settleFile for a file found at a new inode with its row's bytes (refresh.ts Plan.moved). */
  settleFileAt(path: string, ino: number, indexedAt: number): void {
    this.q("UPDATE files SET ino = ?, indexed_at = ? WHERE path = ?").run(ino, indexedAt, path);
  }

  /**
   * A file found at a new inode with the mtime, size and bytes its row was indexed from (a copied
   * or restored store): its row takes the new inode and the time its bytes were compared, so the
   * next read trusts the stat (Store.readMemory). Only while the row is still the one compared (a
   * writer's newer row stays), and never waiting for another process's write: busy is an error
   * here (the next read heals it). True when the row changed.
   */
  moveFileInode(was: FileStamp, ino: number, comparedAt: number, busyTimeoutMs: number): boolean {
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      const r = this.q("UPDATE files SET ino = ?, indexed_at = ? WHERE path = ? AND ino = ? AND mtime = ? AND size = ? AND indexed_at = ? AND problem IS NULL").run(
        ino,
        comparedAt,
        was.path,
        was.ino,
        was.mtime,
        was.size,
        was.indexed_at,
      );
      return Number(r.changes) === 1;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    }
  }

  problems(): FileRow[] {
    // the partial index of the rows with a problem serves this (a scan of the whole table before
    // version 8); sorted here, as ordered by path SQLite would walk the path index, every row
    const rows = this.q("SELECT * FROM files WHERE problem IS NOT NULL").all() as unknown as FileRow[];
    return rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  // --- memories ----------------------------------------------------------------------------

  /** `kind:id` of each record file indexed in a shard folder not its own (layout.ts isMisplacedRecordPath). */
  misplacedRecords(): Set<string> {
    const rows = this.q(
      "SELECT kind, id FROM files WHERE id IS NOT NULL AND dir GLOB '*/[0-9a-f][0-9a-f]' AND substr(dir, -2) != substr(id, -2)",
    ).all() as { kind: string; id: string }[];
    return new Set(rows.map((r) => `${r.kind}:${r.id}`));
  }

  memoryPath(id: string): string | undefined {
    return (this.q("SELECT path FROM memories WHERE id = ?").get(id) as { path: string } | undefined)?.path;
  }

  /**
   * Ids of indexed memories or relations whose hex digits (dashes dropped) start or end with an
   * abbreviation's (hex only, checked by the caller), at most `limit`.
   */
  idsAbbreviated(kind: "memory" | "relation", hex: string, limit: number): string[] {
    const table = kind === "memory" ? "memories" : "relations";
    return (
      this.q(`SELECT id FROM ${table} WHERE replace(id, '-', '') LIKE ?1 || '%' OR replace(id, '-', '') LIKE '%' || ?1 ORDER BY id LIMIT ?2`).all(hex, limit) as { id: string }[]
    ).map((r) => r.id);
  }

  /** `terms`: the memory's storedTerms, when the caller made them already. */
  putMemory(m: Memory, path: string, json: string, terms?: string): void {
    const cols = [m.id, path, m.type, m.status, m.project, m.created_at, m.last_used, m.use_count, m.strength, m.fingerprint ?? null, m.content_conflicts?.length ?? 0, m.scope ?? "team", m.confidence ?? null] as const;
    // looked up, then inserted or updated: an upsert with RETURNING read through get() cost
    // 0.2-0.4 ms a row (most of a 10k import's index time), a lookup and a plain insert 0.03
    const had = this.q("SELECT rid FROM memories WHERE id = ?").get(m.id) as { rid: number } | undefined;
    let rid: number;
    if (had) {
      rid = had.rid;
      this.q(
        `UPDATE memories SET path = ?2, type = ?3, status = ?4, project = ?5, created_at = ?6, last_used = ?7, use_count = ?8,
         strength = ?9, fingerprint = ?10, conflicts = ?11, scope = ?12, confidence = ?13 WHERE id = ?1`,
      ).run(...cols);
    } else {
      rid = Number(
        this.q("INSERT INTO memories(id, path, type, status, project, created_at, last_used, use_count, strength, fingerprint, conflicts, scope, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").run(...cols)
          .lastInsertRowid,
      );
    }
    // a rewrite that leaves the searchable text as it was (a touch, an archive): its
    // full-text row, tags, entities and recall terms stay. Rewriting them was half a touch's index
    // time and 18 of its 28 WAL pages (a new FTS5 segment per write, merged by later writes; a WAL
    // checkpoint inside every ~35th touch): docs/benchmarks.md, branch touchtail
    if (had && this.sameSearchText(rid, m)) {
      this.q("UPDATE memory_docs SET json = ? WHERE rid = ?").run(json, rid);
      return;
    }
    this.q("INSERT INTO memory_docs(rid, json, terms) VALUES (?, ?, ?) ON CONFLICT(rid) DO UPDATE SET json = excluded.json, terms = excluded.terms").run(rid, json, terms ?? storedTerms(m));
    // a new row has nothing to replace in the tables keyed by its rid (every removal of a
    // memory row removes its rows there too: dropMemoryRow, deleteFiles, clear)
    if (had) {
      this.q("DELETE FROM memory_fts WHERE rowid = ?").run(rid);
      this.q("DELETE FROM memory_tags WHERE rid = ?").run(rid);
      this.q("DELETE FROM memory_entities WHERE rid = ?").run(rid);
    }
    this.q("INSERT INTO memory_fts(rowid, content, gist, tags, entities) VALUES (?, ?, ?, ?, ?)").run(
      rid,
      m.content,
      m.gist ?? "",
      m.meta.tags.join(" "),
      m.entities.join(" "),
    );
    // each list in one statement (a statement per tag and entity was half of a new row's calls)
    if (m.meta.tags.length) this.q("INSERT OR IGNORE INTO memory_tags(tag, rid) SELECT value, ?2 FROM json_each(?1)").run(JSON.stringify(m.meta.tags), rid);
    if (m.entities.length) this.q("INSERT OR IGNORE INTO memory_entities(entity, rid) SELECT value, ?2 FROM json_each(?1)").run(JSON.stringify(m.entities.map((e) => e.toLowerCase())), rid);
  }

  /**
   * Whether the memory indexed at rid has the same searchable text as m (what the full-text row,
   * the tag and entity rows and the recall terms are made of: content, gist, tags, entities),
   * and its terms made by this version. A record that does not parse is not the same.
   */
  private sameSearchText(rid: number, m: Memory): boolean {
    const row = this.q("SELECT json, terms FROM memory_docs WHERE rid = ?").get(rid) as { json: string; terms: string | null } | undefined;
    // terms of another version are made again, as any rewrite made them before
    if (!row || row.terms === null || !row.terms.startsWith(`${TERMS_VERSION}\n`)) return false;
    let old: Partial<Memory>;
    try {
      old = JSON.parse(row.json) as Partial<Memory>;
    } catch {
      return false;
    }
    const same = (a: readonly unknown[] | undefined, b: readonly unknown[]) => Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
    return old.content === m.content && (old.gist ?? "") === (m.gist ?? "") && same(old.meta?.tags, m.meta.tags) && same(old.entities, m.entities);
  }

  /** Every indexed memory's recall terms made again from its record (an upgrade; see TERMS_VERSION). */
  fillTerms(): void {
    // a page of records at a time (50k records at once held ~400 MB), and of each record only
    // the fields the terms are made of
    const page = this.db.prepare(
      `SELECT rid, json_extract(json, '$.content') AS content, json_extract(json, '$.gist') AS gist,
         json_extract(json, '$.meta.tags') AS tags, json_extract(json, '$.entities') AS entities
       FROM memory_docs WHERE rid > ? ORDER BY rid LIMIT 1000`,
    );
    const update = this.db.prepare("UPDATE memory_docs SET terms = ? WHERE rid = ?");
    const list = (json: string | null) => (json ? (JSON.parse(json) as unknown[]).filter((x): x is string => typeof x === "string") : []);
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const rows = page.all(after) as { rid: number; content: string | null; gist: string | null; tags: string | null; entities: string | null }[];
      if (rows.length === 0) return;
      for (const r of rows) update.run(storedTerms({ content: r.content ?? "", gist: r.gist, meta: { tags: list(r.tags) }, entities: list(r.entities) }), r.rid);
      after = rows[rows.length - 1]!.rid;
    }
  }

  private dropMemoryRow(rid: number): void {
    this.q("DELETE FROM memories WHERE rid = ?").run(rid);
    this.q("DELETE FROM memory_docs WHERE rid = ?").run(rid);
    this.q("DELETE FROM memory_fts WHERE rowid = ?").run(rid);
    this.q("DELETE FROM memory_tags WHERE rid = ?").run(rid);
    this.q("DELETE FROM memory_entities WHERE rid = ?").run(rid);
  }

  /**
   * The oldest memory that is not archived with this fingerprint in this project (null: none):
   * where capture finds the statement it has seen before.
   */
  findByFingerprint(fingerprint: string, project: string | null): string | undefined {
    return (
      this.q(
        "SELECT id FROM memories WHERE fingerprint = ? AND project IS ? AND status != 'archived' ORDER BY created_at, id LIMIT 1",
      ).get(fingerprint, project) as { id: string } | undefined
    )?.id;
  }

  /** The canonical JSON indexed from the record file at path. */
  recordJsonAt(kind: RecordKind, path: string): string | undefined {
    const sql =
      kind === "memory"
        ? "SELECT d.json FROM memories m JOIN memory_docs d ON d.rid = m.rid WHERE m.path = ?"
        : "SELECT json FROM relations WHERE path = ?";
    return (this.q(sql).get(path) as { json: string } | undefined)?.json;
  }

  /** recordJsonAt for many files of one kind, in one query (path -> JSON; a path not indexed is missing). */
  recordJsonsAt(kind: RecordKind, paths: readonly string[]): Map<string, string> {
    const sql =
      kind === "memory"
        ? "SELECT m.path, d.json FROM memories m JOIN memory_docs d ON d.rid = m.rid WHERE m.path IN (SELECT value FROM json_each(?))"
        : "SELECT path, json FROM relations WHERE path IN (SELECT value FROM json_each(?))";
    const rows = paths.length ? (this.q(sql).all(JSON.stringify(paths)) as { path: string; json: string }[]) : [];
    return new Map(rows.map((r) => [r.path, r.json]));
  }

  /**
   * Memories whose record keeps texts of a content conflict (content_conflicts), newest first:
   * a scan of the indexed records, the key looked for as text before it is parsed.
   */
  memoriesWithContentConflicts(): string[] {
    const sql = `SELECT d.json FROM memories m JOIN memory_docs d ON d.rid = m.rid
      WHERE m.conflicts > 0 ORDER BY m.created_at DESC, m.id`;
    return (this.q(sql).all() as { json: string }[]).map((r) => r.json);
  }

  /** How many memories keep texts of a content conflict (from the column: no record is read). */
  contentConflictCount(): number {
    return (this.q("SELECT count(*) AS n FROM memories WHERE conflicts > 0").get() as { n: number }).n;
  }

  /**
   * One bounded step (about `pages` pages written) of merging the full-text index's segments into
   * one, dropping what deleted and rewritten rows left behind (FTS5's 'merge' with a negative
   * count: every level at once, as 'optimize' does, but incrementally). True while there is more
   * to merge. It never waits for another process's write: busy is an error here, tried later.
   * A store written one memory at a time (every save and touch rewrites a row) was measured 5-10x
   * slower to query than the same rows merged (an 8-word AND at 10k: ~8 ms against ~1 ms).
   */
  mergeStep(pages: number, busyTimeoutMs: number): boolean {
    const changes = () => this.totalChanges();
    const before = changes();
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      this.db.exec(`INSERT INTO memory_fts(memory_fts, rank) VALUES ('merge', ${-Math.max(1, Math.floor(pages))})`);
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    }
    // SQLite's own test for a merge that had nothing left to do: fewer than two changes
    return changes() - before >= 2;
  }

  /** How many segments the full-text index has (a term is looked up in each of them). */
  fullTextSegments(): number {
    return (this.q("SELECT count(DISTINCT segid) AS n FROM memory_fts_idx").get() as { n: number }).n;
  }

  /**
   * After a bulk write: the full-text index merged into one segment (FTS5 'optimize') when it has
   * more than `most`. A bulk write leaves several (a rebuild at 1k: 16; the 50k bench store: 8),
   * and every term a query names is looked up in each (a recall's ~45 concept phrases at 1k: 9.3
   * against 5.0 ms in process). True when it merged. It never waits for another process's write:
   * busy is an error here (the caller leaves the merge for later).
   */
  mergeFullTextPast(most: number, busyTimeoutMs: number): boolean {
    if (this.fullTextSegments() <= most) return false;
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      this.db.exec("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')");
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    }
    return true;
  }

  /** Rows changed through this connection since it opened (SQLite's total_changes()). */
  totalChanges(): number {
    return (this.q("SELECT total_changes() AS n").get() as { n: number }).n;
  }

  /**
   * Refresh the planner's statistics (after a bulk load): what ANALYZE does, a table at a time with
   * a heartbeat between (under the write lock, one ANALYZE of a 50k index was 130 ms of CPU in
   * which the holder gave no sign of life: seconds under CPU starvation). Each table's statistics
   * commit on their own; a process killed between them leaves some older ones, as good as before.
   */
  analyze(): void {
    const tables = this.q("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
    for (const { name } of tables) {
      heartbeat();
      this.db.exec(`ANALYZE "${name.replaceAll('"', '""')}"`);
    }
  }

  /**
   * How many memories are indexed: the sum of the trigger-kept counts by status (index-counts.ts;
   * every memory has exactly one), a few rows, where count(*) read every memory row (a save
   * deciding its layout: ~0.3 ms at 10k; a cold recall at 50k: ~3 ms).
   */
  memoryCount(): number {
    return (this.q("SELECT coalesce(sum(n), 0) AS n FROM index_counts WHERE what = 'status'").get() as { n: number }).n;
  }

  /**
   * What status reports of the memories, out of the trigger-kept counts (index-counts.ts) in one
   * query of a few rows; the total is the sum by status (every memory has exactly one).
   */
  statusCounts(): { total: number; by_status: Record<string, number>; by_type: Record<string, number>; dangling: number } {
    const rows = this.q("SELECT what, k, n FROM index_counts ORDER BY what, k").all() as { what: string; k: string; n: number }[];
    const out = { total: 0, by_status: {} as Record<string, number>, by_type: {} as Record<string, number>, dangling: 0 };
    for (const r of rows) {
      if (r.what === "status") {
        out.by_status[r.k] = r.n;
        out.total += r.n;
      } else if (r.what === "type") out.by_type[r.k] = r.n;
      else if (r.what === "dangling") out.dangling = r.n;
    }
    return out;
  }

  private filterSql(f: MemoryFilter): { where: string[]; params: Param[] } {
    const where: string[] = [];
    const params: Param[] = [];
    if (f.statuses?.length) {
      where.push(`m.status IN (${f.statuses.map(() => "?").join(", ")})`);
      params.push(...f.statuses);
    }
    if (f.types?.length) {
      where.push(`m.type IN (${f.types.map(() => "?").join(", ")})`);
      params.push(...f.types);
    }
    if (f.project !== undefined) {
      where.push("m.project = ?");
      params.push(f.project);
    }
    if (f.projectOrNone !== undefined) {
      where.push("(m.project = ? OR m.project IS NULL)");
      params.push(f.projectOrNone);
    }
    // IN over the (tag, rid) key: SQLite builds the tag's set of rids once from the primary key;
    // EXISTS was probed once per memory walked (the whole store for a rare tag: ~8 ms at 10k for
    // the memory profile's graph, against 0.01 ms)
    for (const t of f.tags ?? []) {
      where.push("m.rid IN (SELECT rid FROM memory_tags WHERE tag = ?)");
      params.push(t);
    }
    for (const e of f.entities ?? []) {
      where.push("m.rid IN (SELECT rid FROM memory_entities WHERE entity = ?)");
      params.push(e.toLowerCase());
    }
    if (f.since !== undefined) {
      where.push("m.created_at >= ?");
      params.push(f.since);
    }
    if (f.before !== undefined) {
      where.push("m.created_at < ?");
      params.push(f.before);
    }
    return { where, params };
  }

  /**
   * The scoring fields of every memory with one of these statuses, without reading a record: gc
   * and promote score a whole store from this (9 ms for 9,000 rows, against 90 ms reading them
   * out of the indexed JSON).
   */
  scoringRows(statuses: readonly string[]): ScoringRow[] {
    return this.db
      .prepare(`SELECT id, status, created_at, last_used, use_count, strength FROM memories WHERE status IN (${statuses.map(() => "?").join(", ")})`)
      .all(...statuses) as unknown as ScoringRow[];
  }

  /**
   * The fields consolidation compares, of every memory with one of these statuses, in id order:
   * taken out of the records inside SQLite, so a whole store is never parsed into objects. Sorted
   * here, not by SQL: with the scan's small page cache its sort of every row's text spilled to a
   * temporary file (1,351 page writes at 10k).
   */
  clusterRows(statuses: readonly string[]): ClusterRow[] {
    const rows = this.scanning(
      () =>
        this.db
          .prepare(
            `SELECT m.id AS id, m.project AS project, json_extract(d.json, '$.scope') AS scope, json_extract(d.json, '$.content') AS content,
           json_extract(d.json, '$.meta.tags') AS tags, json_extract(d.json, '$.entities') AS entities
         FROM memories m JOIN memory_docs d ON d.rid = m.rid WHERE m.status IN (${statuses.map(() => "?").join(", ")})`,
          )
          .all(...statuses) as unknown as ClusterRow[],
    );
    return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * A read of many records with a small page cache: each page is read once, so the usual 64 MB
   * cache would only hold memory (at 50k memories, a third of consolidate's peak). The map is off
   * too: the pages of every record mapped would count in the process's memory all the same.
   */
  private scanning<T>(fn: () => T): T {
    this.db.exec(`PRAGMA cache_size = -${SCAN_CACHE_KB}; PRAGMA mmap_size = 0`);
    try {
      return fn();
    } finally {
      this.db.exec(`PRAGMA cache_size = -${CACHE_KB}; PRAGMA mmap_size = ${MMAP_BYTES}`);
    }
  }

  /** The canonical JSON of these memories (those indexed), in id order. */
  memoriesJson(ids: readonly string[]): string[] {
    return this.scanning(() =>
      (
        this.q("SELECT d.json AS json FROM memories m JOIN memory_docs d ON d.rid = m.rid WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id").all(
          JSON.stringify(ids),
        ) as { json: string }[]
      ).map((r) => r.json),
    );
  }

  /** Newest first. Returns the canonical JSON of each memory and the total before the limit. */
  listMemories(f: MemoryFilter, limit: number | null): { rows: string[]; total: number } {
    const { where, params } = this.filterSql(f);
    const cond = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const total = (this.db.prepare(`SELECT count(*) AS n FROM memories m ${cond}`).get(...params) as { n: number }).n;
    const rows = this.db
      .prepare(
        // newest first: walk the created_at index backwards and stop at the limit, rather than
        // let the planner collect every row of a status and sort them
        `SELECT d.json FROM (SELECT m.rid, m.created_at, m.id FROM memories m INDEXED BY memories_created ${cond}
           ORDER BY m.created_at DESC, m.id DESC ${limit === null ? "" : "LIMIT ?"}) s
         JOIN memory_docs d ON d.rid = s.rid ORDER BY s.created_at DESC, s.id DESC`,
      )
      .all(...params, ...(limit === null ? [] : [limit])) as { json: string }[];
    return { rows: rows.map((r) => r.json), total };
  }

  /**
   * The user's global rules: memories of these statuses and types with no project whose scope is
   * global, the most confident first (then newest), at most `limit`; found through their own
   * partial index (memories_global), and only the rules returned are read whole.
   */
  globalRules(statuses: readonly string[], types: readonly string[], limit: number): string[] {
    const { where, params } = this.filterSql({ statuses, types });
    const rows = this.db
      .prepare(
        `SELECT d.json FROM (SELECT m.rid, m.confidence, m.created_at, m.id FROM memories m INDEXED BY memories_global
           WHERE ${[...where, "m.scope = 'global'", "m.project IS NULL"].join(" AND ")}
           ORDER BY coalesce(m.confidence, 0) DESC, m.created_at DESC, m.id DESC LIMIT ?) g
         JOIN memory_docs d ON d.rid = g.rid ORDER BY coalesce(g.confidence, 0) DESC, g.created_at DESC, g.id DESC`,
      )
      .all(...params, Math.max(0, Math.floor(limit))) as { json: string }[];
    return rows.map((r) => r.json);
  }

  /**
   * How many memories match an FTS5 expression (and the filter, when given); with `upTo`, counting
   * stops there (the answer is then at most upTo: "upTo or more"), which spares visiting every
   * match of a common word when only a bound matters.
   */
  countMatches(match: string, f: MemoryFilter = {}, upTo?: number): number {
    if (upTo !== undefined && this.reachedBeforeStatuses(match, f, Math.max(0, Math.floor(upTo)))) return Math.max(0, Math.floor(upTo));
    const { where, params } = this.filterSql(f);
    const from = where.length ? "memory_fts JOIN memories m ON m.rid = memory_fts.rowid" : "memory_fts";
    const cond = ["memory_fts MATCH ?", ...where].join(" AND ");
    if (upTo === undefined) return (this.q(`SELECT count(*) AS n FROM ${from} WHERE ${cond}`).get(match, ...params) as { n: number }).n;
    return (this.q(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${cond} LIMIT ?)`).get(match, ...params, Math.max(0, Math.floor(upTo))) as { n: number }).n;
  }

  /**
   * Whether one whole term ("connection", no prefix) filtered by status alone has `upTo` matches,
   * told by the full-text index alone: every full-text row is one memory's (written and dropped
   * together), and at most `excluded` memories fail the statuses (the trigger-kept counts,
   * index-counts.ts), so `upTo + excluded` matches of every memory hold `upTo` that pass. Joining
   * each match to its memory row for its status cost ~1.3 ms of a cold recall at 50k (1,001
   * rows) against ~0.4 ms for the ~4,000 rows of the full-text index alone. false says nothing.
   */
  private reachedBeforeStatuses(match: string, f: MemoryFilter, upTo: number): boolean {
    if (!WHOLE_TERM.test(match) || !f.statuses?.length || upTo === 0) return false;
    if (Object.entries(f).some(([k, v]) => k !== "statuses" && v !== undefined)) return false;
    const { total, passing } = this.q(
      "SELECT coalesce(sum(n), 0) AS total, coalesce(sum(CASE WHEN k IN (SELECT value FROM json_each(?)) THEN n END), 0) AS passing FROM index_counts WHERE what = 'status'",
    ).get(JSON.stringify(f.statuses)) as { total: number; passing: number };
    // fewer pass than upTo: the filtered count cannot reach it
    if (passing < upTo) return false;
    const bound = upTo + total - passing;
    return (this.q("SELECT count(*) AS n FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)").get(match, bound) as { n: number }).n >= bound;
  }

  /**
   * The first `upTo` matches of an FTS5 expression (of every memory, as countMatches without a
   * filter counts them) and how many of those pass the filter, in one pass: recall's hook asks
   * both, and each query of a cold process merges every prefix term's lists again.
   */
  countMatchesPassing(match: string, f: MemoryFilter, upTo: number): { all: number; passing: number } {
    const { where, params } = this.filterSql(f);
    const pass = where.length ? `(${where.join(" AND ")})` : "1";
    // LEFT JOIN: a row of the full-text index counts as countMatches counts it, with or without its memory row
    const sql = `SELECT count(*) AS n, coalesce(sum(pass), 0) AS passing FROM (SELECT ${pass} AS pass FROM memory_fts LEFT JOIN memories m ON m.rid = memory_fts.rowid WHERE memory_fts MATCH ? LIMIT ?)`;
    const r = this.q(sql).get(...params, match, Math.max(0, Math.floor(upTo))) as { n: number; passing: number };
    return { all: r.n, passing: r.passing };
  }

  /**
   * Recall's candidates: the best `limit` matches as memories, with their stored terms (score
   * higher-is-better). `matchesAbout`: what the caller knows of how many memories match (the sum
   * of its terms' counts); only how they are found depends on it (searchMemories' passing set).
   */
  searchWithTerms(match: string, f: MemoryFilter, limit: number, matchesAbout?: number): { memory: Memory; score: number; terms: string | null }[] {
    const bounded = this.boundedSearchReady() ? this.searchBounded(match, f, limit) : null;
    if (bounded) return bounded.map((r) => ({ memory: JSON.parse(r.json) as Memory, score: r.score, terms: r.terms }));
    return this.searchMemories(match, f, limit, false, true, matchesAbout).rows.map((r) => ({ memory: JSON.parse(r.json) as Memory, score: -r.score, terms: r.terms }));
  }

  /**
   * Whether recall's candidates come from the impact postings (store/impact-postings.ts): a store
   * large enough, its postings built, and few memories pending. Then recall needs no narrowing
   * counts either: the search is bounded by the prompt's terms, not by their matches.
   */
  boundedSearchReady(): boolean {
    return boundedReady(this.db, this.memoryCount());
  }

  /** The postings' answer for an OR of quoted words and phrases (null: an expression they do not answer). */
  private searchBounded(match: string, f: MemoryFilter, limit: number): { json: string; score: number; terms: string | null }[] | null {
    const { where, params } = this.filterSql(f);
    return boundedSearch(this.db, match, where, params, limit);
  }

  /**
   * After a command that wrote a lot (a bulk refresh, sync, gc, reindex): the impact postings
   * built, or the pending memories merged into them, in short write transactions (one per step;
   * `around` wraps each, as Store does to take the store's write lock for it and let waiting
   * writers in between). `mergeFrom`: merge from this many pending (reindex and tests: 1).
   */
  settleBoundedSearch(mergeFrom?: number, busyTimeoutMs = 0, around: StepRunner = (step) => step()): "built" | "merged" | "none" {
    // never waits for another process's write (busy is an error here: the caller leaves it for later)
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      return settlePostings(this.db, this.memoryCount(), mergeFrom, (step) => around(() => this.transaction(step)));
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    }
  }

  /**
   * Every project some memory belongs to, in order: one seek of the project index per project
   * (a skip scan), not a pass over every memory row.
   */
  projects(): string[] {
    const rows = this.q(
      `WITH RECURSIVE p(name) AS (SELECT min(project) FROM memories
         UNION ALL SELECT (SELECT min(project) FROM memories WHERE project > p.name) FROM p WHERE p.name IS NOT NULL)
       SELECT name FROM p WHERE name IS NOT NULL`,
    ).all() as { name: string }[];
    return rows.map((r) => r.name);
  }

  /** countMatches, or with no match the store's size (recall asks both through one name). */
  countMatchesOrAll(match: string | null, f: MemoryFilter = {}, upTo?: number): number {
    return match === null ? this.memoryCount() : this.countMatches(match, f, upTo);
  }

  /**
   * Full-text search over content, gist, tags and entities of every indexed memory. bm25 is
   * lower-is-better; tags and entities weigh more than body text. Without withTotal the count of
   * all matches is skipped (total -1).
   */
  searchMemories(match: string, f: MemoryFilter, limit: number | null, withTotal = true, withTerms = false, matchesAbout?: number): { rows: { json: string; score: number; terms: string | null }[]; total: number } {
    const { where, params } = this.filterSql(f);
    const cond = ["memory_fts MATCH ?", ...where].join(" AND ");
    const from = "FROM memory_fts JOIN memories m ON m.rid = memory_fts.rowid";
    const ranked = `SELECT m.rid, bm25(memory_fts, 1.0, 0.8, 2.0, 2.0) AS score, m.last_used, m.id ${from} WHERE ${cond}`;
    const order = "ORDER BY score ASC, last_used DESC, id DESC";
    const lim = limit === null ? "" : "LIMIT ?";
    const args = [match, ...params, ...(limit === null ? [] : [limit])];
    // rank every match once, then fetch the text of only those returned
    const page = (from: string) => `SELECT s.rid, s.score, s.last_used, s.id FROM ${from} s ${order} ${lim}`;
    const docs = (inner: string, extra = "") =>
      `SELECT d.json AS json, p.score AS score, ${withTerms ? "d.terms" : "NULL"} AS terms${extra} FROM (${inner}) p JOIN memory_docs d ON d.rid = p.rid ORDER BY p.score ASC, p.last_used DESC, p.id DESC`;
    if (!withTotal) {
      const few = limit === null ? null : this.passesFew(f, Math.max(SCORED_FIRST, limit * 4), limit);
      if (few && limit !== null && limit > 0 && matchesAbout !== undefined && matchesAbout * SET_FROM_SHARE >= few.passing) return { rows: this.rankedInPassing(match, where, params, limit, docs), total: -1 };
      const best = limit === null || few ? null : this.bestByScore(match, where, params, limit, docs);
      return { rows: best ?? (this.db.prepare(docs(page(`(${ranked})`))).all(...args) as { json: string; score: number; terms: string | null }[]), total: -1 };
    }
    // with the count: the matches are found and scored once (a materialized CTE) and both counted
    // and ranked from there, instead of a count(*) pass before the ranking pass (a common word at
    // 50k: one pass of ~34 ms instead of two of ~15 + ~36)
    const rows = this.db
      .prepare(`WITH s AS MATERIALIZED (${ranked}) ${docs(page("s"), ", (SELECT count(*) FROM s) AS total")}`)
      .all(...args) as { json: string; score: number; terms: string | null; total: number }[];
    // no row returned (no match, or a limit of 0 past them): count apart
    const total = rows.length ? rows[0]!.total : limit === 0 ? this.countMatches(match, f) : 0;
    return { rows: rows.map((r) => ({ json: r.json, score: r.score, terms: r.terms })), total };
  }

  /**
   * Whether a filter by project passes so small a share of the memories that the `scored` best
   * scores would hold fewer than `limit` of them (with some margin): bestByScore would then score
   * every match only to find too few and the full ranking score them all again (the hook's
   * project or none, in a store of many projects: ~4 ms of a cold process's ~40). Either way the
   * answer is the same; this only chooses the cheaper way. Counted on the project index, at most
   * as far as the answer needs.
   */
  private passesFew(f: MemoryFilter, scored: number, limit: number): { passing: number } | null {
    if (f.project === undefined && f.projectOrNone === undefined) return null;
    const total = this.memoryCount();
    // enough when their share of the scored rows is 1.5 times the page
    const enough = Math.ceil((PASS_MARGIN * limit * total) / scored);
    if (enough >= total) return { passing: total };
    const upTo = "SELECT count(*) AS n FROM (SELECT 1 FROM memories WHERE project = ? LIMIT ?)";
    const name = f.project ?? f.projectOrNone!;
    let n = (this.q(upTo).get(name, enough) as { n: number }).n;
    if (f.project === undefined && n < enough) n += (this.q("SELECT count(*) AS n FROM (SELECT 1 FROM memories WHERE project IS NULL LIMIT ?)").get(enough - n) as { n: number }).n;
    return n < enough ? { passing: n } : null;
  }

  /**
   * The `limit` best matches by score (then last used, then id), as the full ranking gives them,
   * with the filter applied as a set of the rids that pass it, built once from the memories'
   * indexes, instead of a lookup of each match's memory row: where a filter by project passes
   * few memories and the matches are many, those lookups were most of the search (the hook at
   * 50k, ~7,000 matches of a concept's products: ~12 of ~16.5 ms; with the set ~9.5). Only the
   * matches that pass and score within the page's last score are joined, for the tie-break.
   */
  private rankedInPassing(match: string, where: string[], params: Param[], limit: number, docs: (inner: string, extra?: string) => string): { json: string; score: number; terms: string | null }[] {
    const cond = where.length ? `WHERE ${where.join(" AND ")}` : "";
    // "+rowid": a filter on each match; a bare rowid IN (...) has FTS5 run the query once per rid
    const scored = `SELECT rowid AS rid, bm25(memory_fts, 1.0, 0.8, 2.0, 2.0) AS score FROM memory_fts WHERE memory_fts MATCH ? AND +rowid IN (SELECT m.rid FROM memories m ${cond})`;
    // every match scoring at most the limit-th best score: any of the page's rows after the tie-break
    const page = `SELECT t.rid, t.score, m.last_used, m.id FROM t CROSS JOIN memories m ON m.rid = t.rid
      WHERE t.score <= coalesce((SELECT score FROM t ORDER BY score LIMIT 1 OFFSET ?), t.score) ORDER BY t.score ASC, m.last_used DESC, m.id DESC LIMIT ?`;
    return this.db.prepare(`WITH t AS MATERIALIZED (${scored}) ${docs(page)}`).all(match, ...params, limit - 1, limit) as { json: string; score: number; terms: string | null }[];
  }

  /**
   * The `limit` best matches by score (then last used, then id), as the full ranking would give
   * them, from the SCORED_FIRST best scores of the full-text index alone: scoring every match is
   * unavoidable, but joining each to its memory row for the filter and the tie-break cost as much
   * again (a common word at 50k: ~6,000 rows, and a cold process reads their pages). null when
   * those cannot be shown to hold the same answer (too few pass the filter, or the last one ties
   * with a score left out): the caller then ranks every match.
   */
  private bestByScore(
    match: string,
    where: string[],
    params: Param[],
    limit: number,
    docs: (inner: string, extra?: string) => string,
  ): { json: string; score: number; terms: string | null }[] | null {
    const scored = Math.max(SCORED_FIRST, limit * 4);
    const top = `SELECT rowid AS rid, bm25(memory_fts, 1.0, 0.8, 2.0, 2.0) AS score FROM memory_fts WHERE memory_fts MATCH ? ORDER BY score LIMIT ?`;
    const cond = where.length ? `WHERE ${where.join(" AND ")}` : "";
    // CROSS JOIN keeps the scored rows outside: the planner otherwise walked every memory of the
    // statuses asked for (its index) and probed the few scored rows for each
    const page = `SELECT t.rid, t.score, m.last_used, m.id FROM t CROSS JOIN memories m ON m.rid = t.rid ${cond} ORDER BY t.score ASC, m.last_used DESC, m.id DESC LIMIT ?`;
    const rows = this.db
      .prepare(`WITH t AS MATERIALIZED (${top}) ${docs(page, ", (SELECT count(*) FROM t) AS scored, (SELECT max(score) FROM t) AS edge")}`)
      .all(match, scored, ...params, limit) as { json: string; score: number; terms: string | null; scored: number; edge: number }[];
    const out = () => rows.map((r) => ({ json: r.json, score: r.score, terms: r.terms }));
    if (rows.length === 0) return null;
    // fewer scored than asked for: those were every match
    if (rows[0]!.scored < scored) return out();
    // a match left out scores at least the edge (lower is better): the last kept must beat it
    // strictly, or one left out could tie with it and come first by last use or id
    if (rows.length === limit && rows[rows.length - 1]!.score < rows[0]!.edge) return out();
    return null;
  }

  // --- relations ---------------------------------------------------------------------------

  relationPath(id: string): string | undefined {
    return (this.q("SELECT path FROM relations WHERE id = ?").get(id) as { path: string } | undefined)?.path;
  }

  putRelation(r: Relation, path: string, json: string): void {
    this.q(
      `INSERT INTO relations(id, path, from_id, to_id, type, json) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET path = excluded.path, from_id = excluded.from_id, to_id = excluded.to_id,
       type = excluded.type, json = excluded.json`,
    ).run(r.id, path, r.from_memory_id, r.to_memory_id, r.relation_type, json);
  }

  /** Ids of every relation from or to any of these memories (one query for many). */
  relationIdsTouching(memoryIds: readonly string[]): string[] {
    const list = JSON.stringify(memoryIds);
    return (
      this.q("SELECT id FROM relations WHERE from_id IN (SELECT value FROM json_each(?1)) OR to_id IN (SELECT value FROM json_each(?1)) ORDER BY id").all(list) as { id: string }[]
    ).map((r) => r.id);
  }

  relationsFrom(id: string): string[] {
    return (this.q("SELECT json FROM relations WHERE from_id = ? ORDER BY id").all(id) as { json: string }[]).map((r) => r.json);
  }

  relationsTo(id: string): string[] {
    return (this.q("SELECT json FROM relations WHERE to_id = ? ORDER BY id").all(id) as { json: string }[]).map((r) => r.json);
  }

  /** [from, to] of every relation of this type to any of these memories (one query for many). */
  relationsOfTypeTo(type: string, memoryIds: readonly string[]): [string, string][] {
    return this.relationsOfTypesTo([type], memoryIds).map((r) => [r.from, r.to]);
  }

  /** Id, from and to of every relation of these types to any of these memories (one query for many). */
  relationsOfTypesTo(types: readonly string[], memoryIds: readonly string[]): { id: string; from: string; to: string }[] {
    if (memoryIds.length === 0 || types.length === 0) return [];
    const rows = this.q("SELECT id, from_id, to_id FROM relations WHERE type IN (SELECT value FROM json_each(?1)) AND to_id IN (SELECT value FROM json_each(?2)) ORDER BY id").all(JSON.stringify(types), JSON.stringify(memoryIds)) as { id: string; from_id: string; to_id: string }[];
    return rows.map((r) => ({ id: r.id, from: r.from_id, to: r.to_id }));
  }

  findRelation(from: string, to: string, type: string): string | undefined {
    return (
      this.q("SELECT id FROM relations WHERE from_id = ? AND to_id = ? AND type = ? LIMIT 1").get(from, to, type) as
        | { id: string }
        | undefined
    )?.id;
  }

  relationCount(): number {
    return (this.q("SELECT count(*) AS n FROM relations").get() as { n: number }).n;
  }

  /**
   * Relations with an endpoint that is not an indexed memory. Provenance (consolidated_from,
   * split_from) names the memory it replaced, which is gone on purpose: only its `from` must exist.
   */
  danglingRelations(): { id: string; from_id: string; to_id: string }[] {
    // candidates from the two id indexes alone (no read of the relations' JSON pages, most of the
    // table), then the full condition on those few rows
    return this.q(
      `WITH bad(rid) AS (
         SELECT rowid FROM relations INDEXED BY relations_from WHERE NOT EXISTS (SELECT 1 FROM memories a WHERE a.id = from_id)
         UNION SELECT rowid FROM relations INDEXED BY relations_to WHERE NOT EXISTS (SELECT 1 FROM memories b WHERE b.id = to_id))
       SELECT r.id, r.from_id, r.to_id FROM bad JOIN relations r ON r.rowid = bad.rid
       WHERE NOT EXISTS (SELECT 1 FROM memories a WHERE a.id = r.from_id)
          OR (r.type NOT IN ('consolidated_from', 'split_from') AND NOT EXISTS (SELECT 1 FROM memories b WHERE b.id = r.to_id))
       ORDER BY r.id`,
    ).all() as { id: string; from_id: string; to_id: string }[];
  }
}
