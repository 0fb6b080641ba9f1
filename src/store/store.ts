import { corrupt, invalidInput, notFound, readOnlyStore, unavailable } from "../core/errors.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { StoreMeta } from "../core/model/store-meta.ts";
import { type Layout, layoutSettingsFrom, STORAGE_VERSION } from "../core/model/vocab.ts";
import { metaProblem } from "../core/model/meta-check.ts";
import { parseJsonText } from "../core/model/validate.ts";
import { refuseUnwritable } from "./record-limits.ts";

export { MAX_RECORD_BYTES } from "./record-limits.ts";
import { randomHex, removeOldTemps, storeLevelTemps, TEMP_SUFFIX, tempNameFor, writeAtomic } from "./atomic-write.ts";
import type { Codec, ReadResult } from "./codec.ts";
import { diskRefusal } from "./disk-errors.ts";
import { FolderReads, type SeenFolders } from "./folder-snapshot.ts";
import { loadSyncAll, nodeFs, type StoreFs } from "./fs-port.ts";
import type { FileCreator, MadeStat } from "./parallel-create.ts";
import { BULK_MARKER, recoverBulkWrite, removeBulkMarker, writeBulkMarker } from "./bulk-write.ts";
import { type ClusterRow, type FileRow, IndexDb, isIndexDamage, type MemoryFilter, type ScoringRow } from "./index-db.ts";
import { withScopeRules } from "../core/scope.ts";
import { keepSharedTexts } from "../core/local-kept-texts.ts";
import { allCandidatePaths, candidatePaths, dirOf, idFromFileName, isMachineLocalPath, KIND_DIR, LOCAL_DIR, LOCAL_KIND_DIR, LOCAL_RECORDS, lookupPaths, META_FILE, type Place, placeOf, recordPath, type RecordKind, topDir } from "./layout.ts";
import { applyPlan, bytesSeen, confirmLook, emptyPlan, type IndexFolders, type Plan, planDir, planIsEmpty, planNeedsCodec, planPaths, planRefresh, planWrittenFolders, type RefreshContext, sameAsIndexed, trusted } from "./refresh.ts";
import { ALL_KINDS, RefreshWatch } from "./refresh-watch.ts";
import { quickUnchanged } from "./quick-unchanged.ts";
import { EV } from "./watch-events.ts";
import { flattenLocalRecords } from "./local-flatten.ts";
import { faultPoint } from "../sync/fault.ts";
import { fillJournal, hasFillMarker, writeFillMarker } from "./journal-fill.ts";
import { journaledAsFound } from "./journaled.ts";
import { appendJournal, JOURNAL_FILE, type JournalEntry, type RedoStamp, RESCAN_NO_RECORDS } from "./journal.ts";
import { crashedRedo, ensureRedoMarker, recoverRedo, redoAvailable } from "./redo.ts";
import { WriteLock } from "./write-lock.ts";
import { heartbeat } from "./lock-heartbeat.ts";
import { busyAsUnavailable, writersProgress } from "./lock-terms.ts";
import { FIXED_PATHS, INDEX_FILE, LOCK_FILE } from "./fixed-paths.ts";
import { PrivateIndex, storeWriteProbe, storeWriteRefusal } from "./read-only.ts";
import { mark } from "../runtime/cold-trace.ts";

// The per-file store: record files are the truth, the index mirrors them. Reads refresh the index
// from whatever changed on disk and are served from it while a file is provably unchanged;
// writes happen inside the index's write transaction, which both serializes writers across
// processes and keeps the index in step with the files.

export interface OpenOptions {
  fs?: StoreFs;
  /** How long a writer waits for another process's write to finish. */
  busyTimeoutMs?: number;
  /**
   * The longest any wait for the write lock lasts, however busy its holder (a server's requests:
   * serve --lock-wait); none: as long as the holder shows progress (a CLI command).
   */
  lockWaitMostMs?: number;
  nowMs?: () => number;
}

export interface WriteOptions {
  /** Thousands of new record files: made durable together at the end, not one fsync each. */
  bulk?: boolean;
  /**
   * The caller commits this change itself, holding the write lock throughout (an import): it is
   * given the texts the change left, and its journal entry is a `fill` one (journal-fill.ts).
   */
  fill?: (texts: Map<string, string | null>) => void;
}

export { FIXED_PATHS, INDEX_FILE, LOCK_FILE } from "./fixed-paths.ts";

let codecLoad: Promise<Codec> | undefined;

/**
 * SQLite errors that mean the index file was moved or replaced under an open connection (I/O
 * error, or "readonly" for a moved database): opening it again is the cure.
 */
function isIoError(e: unknown): boolean {
  return e instanceof Error && /disk I\/O error|SQLITE_IOERR|attempt to write a readonly database|SQLITE_READONLY/i.test(e.message);
}

/**
 * A bulk write merges the full-text index when it has more segments than this (a small import
 * into a merged store adds one or two: merged only once they add up, so its cost, ~0.7 s at 50k,
 * is not paid by every bulk write).
 */
const FULL_TEXT_SEGMENTS_MOST = 4;
/** The store's write lock let go between two steps of a postings settle (Store.settleStep): longer than a waiter that has waited a second polls (12-37 ms). */
const SETTLE_STEP_GAP_MS = 50;
const settleGapSleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Open the index, riding out a moment when another process is replacing a damaged one (its
 * side files are moved and SQLite reports an I/O error): wait briefly and open again.
 */
function openIndexRetrying(path: string, busyTimeoutMs: number, fs: StoreFs = nodeFs): IndexDb {
  const deadline = Date.now() + Math.min(busyTimeoutMs, 5_000);
  for (;;) {
    try {
      return IndexDb.open(path, busyTimeoutMs);
    } catch (e) {
      if (!isIoError(e) || Date.now() > deadline) throw e;
      // a full disk gives the same I/O error, and waiting does not cure it
      const free = fs.freeBytes(path.slice(0, path.lastIndexOf("/")));
      if (free !== null && free < 256 * 1024) throw new Error(`${e instanceof Error ? e.message : String(e)} (no space left on the device)`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** Whether any shared record folder holds a file (a look at each folder until one is found). */
function hasSharedRecordFile(fs: StoreFs, root: string): boolean {
  const holds = (dir: string, depth: number): boolean => {
    let entries;
    try {
      entries = fs.readdir(`${root}/${dir}`);
    } catch {
      return false;
    }
    return entries.some((e) => (e.isDir ? depth === 0 && holds(`${dir}/${e.name}`, 1) : true));
  };
  return Object.values(KIND_DIR).some((top) => holds(top, 0));
}

/** The schemas and serializers, loaded on first need (see codec.ts). */
export function loadCodec(): Promise<Codec> {
  codecLoad ??= import("./codec.ts");
  return codecLoad;
}

/** The fixed paths of a store that are symbolic links (status reports them). */
export function linkedFixedPaths(fs: StoreFs, root: string): string[] {
  return FIXED_PATHS.filter((rel) => fs.isLink(`${root}/${rel}`));
}

function linkRefusal(root: string, rel: string): Error {
  return unavailable(`${root}/${rel} is a symbolic link: memsync reads and writes only inside its store (make it a real ${rel.endsWith(".json") || rel.endsWith(".jsonl") || rel.includes(".db") || rel.endsWith("lock") ? "file" : "folder"})`, { path: rel });
}

/** The raw .meta.json of a store, checked only for being a store this version can use. */
export function readRawMeta(fs: StoreFs, root: string): Record<string, unknown> {
  const path = `${root}/${META_FILE}`;
  if (!fs.stat(path)?.isFile) throw unavailable(`no memsync store at ${root} (create one with: memsync init)`, { root });
  let text: string;
  try {
    text = fs.readText(path);
  } catch (e) {
    throw unavailable(`cannot read ${path}: ${(e as { code?: string }).code ?? String(e)}`);
  }
  const json = parseJsonText(text);
  if (!json.ok) throw unavailable(`store metadata ${path} is unusable: ${json.problem}`);
  const raw = json.value as Record<string, unknown>;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw unavailable(`store metadata ${path} is not a JSON object`);
  if (raw.storage_version !== STORAGE_VERSION) {
    throw unavailable(`store ${root} has storage_version ${JSON.stringify(raw.storage_version)}; this memsync reads version ${STORAGE_VERSION}`);
  }
  // every command refuses a .meta.json the schema would refuse, in the schema's words (status and
  // writes validate it with the schema too; reads never load the schema library)
  const problem = metaProblem(raw);
  if (problem) throw unavailable(`store metadata ${path} is unusable: ${problem}`);
  return raw;
}

/** Old versions of records a transaction replaced, kept until it succeeds (StoreTx.keepOld). */
const BACKUP_PREFIX = "replaced-";

/** A backup's name (a killed process leaves its backups in the machine-local folder). */
const isBackupName = (name: string) => name.startsWith(BACKUP_PREFIX) && name.endsWith(TEMP_SUFFIX);

/**
 * The texts a refresh found at the paths changed outside memsync (null: gone), so that the edit's
 * commit holds what was found, not what a later memsync write made of the file. A text that
 * did not decode cleanly as UTF-8 (it would not give back the file's bytes) or a file that could
 * not be read is left out: the commit reads that one from disk.
 */
function outsideTexts(plan: Plan, paths: readonly string[]): Record<string, string | null> {
  const texts = new Map<string, string | undefined>();
  for (const u of plan.upserts) texts.set(u.row.path, u.text);
  const files: Record<string, string | null> = {};
  for (const p of paths) {
    if (!texts.has(p)) files[p] = null;
    else {
      const t = texts.get(p);
      if (t !== undefined && !t.includes("\uFFFD")) files[p] = t;
    }
  }
  return files;
}

export class Store {
  private readonly ctx: RefreshContext;
  private parsedMeta: StoreMeta | undefined;
  private lock: WriteLock | undefined;
  /** Steps of the current postings settle taken (the first needs no gap before it). */
  private settleStepsTaken = 0;
  private journalBuffer: JournalEntry[] = [];
  /** During a pull's absorb: the paths its checkout wrote (changes there are already committed). */
  private absorbing: ReadonlySet<string> | null = null;
  /** The record folders' watch of a long-running process (watchFolders). */
  private watch: RefreshWatch | null = null;
  /** Folders found not to be symbolic links by this process (each is looked at once). */
  private readonly notLinks = new Set<string>();
  /** Replaced records' backups are removed without waiting (removeBackupsLater). */
  backupsLater = false;

  /** OpenOptions.lockWaitMostMs: set once, as the store is opened, before the lock is first used. */
  private lockWaitMostMs: number | undefined;

  private constructor(
    readonly root: string,
    readonly fs: StoreFs,
    private readonly rawMeta: Record<string, unknown>,
    private indexDb: IndexDb,
    private indexIno: number | undefined,
    readonly nowMs: () => number,
    private readonly busyTimeoutMs: number,
    /** A store this process may not write: the index is a private copy, and every write is refused (read-only.ts). */
    private readonly privateIndex: PrivateIndex | null = null,
  ) {
    this.ctx = { fs, index: indexDb, root, now: nowMs, codec: null };
  }

  /** Whether the store is read-only for this process (a read-only mount, another user's files): reads only. */
  get readOnly(): boolean {
    return this.privateIndex !== null;
  }

  /** Where the index this store uses is: the store's own, or a read-only store's private copy. */
  private get indexPath(): string {
    return this.privateIndex?.indexPath ?? `${this.root}/${INDEX_FILE}`;
  }

  /** Refuse a write on a read-only store, before anything is done (every write path calls it first). */
  requireWritable(): void {
    if (this.privateIndex) throw readOnlyStore(this.root);
  }

  /**
   * A store this process may not write, opened for reads: its index copied into a private folder
   * (or built there from the files when no copy could be taken), nothing recovered or journaled.
   */
  private static openReadOnly(root: string, fs: StoreFs, meta: Record<string, unknown>, opts: OpenOptions): Store {
    const busy = opts.busyTimeoutMs ?? 15_000;
    let copy: PrivateIndex;
    try {
      copy = PrivateIndex.make(root);
    } catch (e) {
      const why = (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e));
      throw unavailable(`the store at ${root} is read-only, and no private folder for a copy of its index could be made in the temp folder (${why}): set TMPDIR to a writable folder`);
    }
    try {
      let index: IndexDb;
      try {
        index = IndexDb.open(copy.indexPath, busy);
      } catch (e) {
        if (!isIndexDamage(e) || !copy.copied) throw e;
        // a copy taken while a writer elsewhere changed the files in a way the stamps missed: built from the files instead
        for (const suffix of ["", "-wal", "-shm"]) {
          try {
            fs.unlink(`${copy.indexPath}${suffix}`);
          } catch {
            // not there
          }
        }
        index = IndexDb.open(copy.indexPath, busy);
      }
      return new Store(root, fs, meta, index, undefined, opts.nowMs ?? Date.now, busy, copy);
    } catch (e) {
      copy.remove();
      throw unavailable(`cannot open a private copy of the read-only store's index (${root}): ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  static async open(root: string, opts: OpenOptions = {}): Promise<Store> {
    const fs = opts.fs ?? nodeFs;
    const meta = readRawMeta(fs, root);
    // before anything is opened or made there (ten lstat calls, once per process)
    for (const rel of FIXED_PATHS) if (fs.isLink(`${root}/${rel}`)) throw linkRefusal(root, rel);
    // a store on the disk this process may not write (one access(2) call): read from a private index
    const real = fs === nodeFs;
    if (real && storeWriteRefusal(root)) return Store.openReadOnly(root, fs, meta, opts);
    fs.mkdirp(`${root}/${LOCAL_DIR}`);
    // a bulk write died here: its recovery (under the lock, at the first locked step) may flush
    if (fs.stat(`${root}/${BULK_MARKER}`)) await loadSyncAll();
    const busy = opts.busyTimeoutMs ?? 15_000;
    const path = `${root}/${INDEX_FILE}`;
    // the inode is taken before the open: if the open finds damage, recovery then knows which
    // file was damaged, and never moves aside a good index another process put there meanwhile
    const ino = fs.stat(path)?.ino;
    let index: IndexDb;
    try {
      index = openIndexRetrying(path, busy, fs);
    } catch (e) {
      // SQLite could not open or make the index, and no file can be made beside it: read-only after
      // all (a read-only mount that access(2) does not report, as under Deno)
      if (!isIndexDamage(e) && real && storeWriteProbe(root)) return Store.openReadOnly(root, fs, meta, opts);
      if (!isIndexDamage(e)) throw unavailable(`cannot open the index ${path}: ${e instanceof Error ? e.message : String(e)}`);
      // a placeholder until recovery puts a fresh index in place
      const store = new Store(root, fs, meta, IndexDb.open(":memory:", busy), ino, opts.nowMs ?? Date.now, busy);
      store.lockWaitMostMs = opts.lockWaitMostMs;
      if (crashedRedo(fs, root)) await store.recoverRedo();
      await store.recoverIndex(ino);
      return store;
    }
    const store = new Store(root, fs, meta, index, ino, opts.nowMs ?? Date.now, busy);
    store.lockWaitMostMs = opts.lockWaitMostMs;
    // the machine restarted since writes that were durable only in the journal: before anything
    // reads the files, each the crash lost is written again (store/redo.ts)
    if (crashedRedo(fs, root)) await store.recoverRedo();
    // a new index cannot tell what changed before it existed: the next commit compares every file
    // (only those no change took, when there was no record file to miss)
    if (index.created) {
      const none = !hasSharedRecordFile(fs, root);
      appendJournal(fs, root, { op: "rescan", message: none ? RESCAN_NO_RECORDS : "", paths: [], at: store.nowSeconds() });
    }
    return store;
  }

  get index(): IndexDb {
    return this.indexDb;
  }

  /** A value that changes whenever the index was written, by this store or any other process. */
  indexState(): string {
    return `${this.indexDb.dataVersion()}|${this.indexDb.totalChanges()}`;
  }

  /**
   * After a bulk write (a rebuild, an import, a refresh that took in hundreds of records): the
   * planner's statistics made again, and the full-text index merged when it has more than
   * FULL_TEXT_SEGMENTS_MOST segments (IndexDb.mergeFullTextPast). A merge refused (another
   * process writing) or failed changes nothing and is left for the next bulk write: it only
   * makes searches faster.
   */
  private settleAfterBulk(): void {
    this.settleStepsTaken = 0;
    this.indexDb.analyze();
    this.mergeFullText();
    this.settlePostings();
  }

  /**
   * recall's impact postings built, or the memories pending there merged in (IndexDb
   * settleBoundedSearch), by a command that writes a lot anyway: never a save's or a hook's
   * path. Refused (another process writing) or failed, left for the next one: until then recall
   * scores the pending memories from their text, or asks FTS5. `mergeFrom`: merge from this many
   * pending (default store/impact-postings.ts MERGE_FROM).
   */
  private settlePostings(mergeFrom?: number): void {
    try {
      this.indexDb.settleBoundedSearch(mergeFrom, this.busyTimeoutMs, (step) => this.settleStep(step));
    } catch (e) {
      if (isIndexDamage(e)) throw e;
    }
  }

  /**
   * One step of a postings settle under the store's write lock, as every write of the index is.
   * Taken here for the step alone, the lock is let go for SETTLE_STEP_GAP_MS before the next: a
   * writer of another process waiting for it (polling every 25-75 ms, WriteLock.pollInterval)
   * gets its turn between steps instead of after the whole build (13.6 s of CPU at 50k). Held
   * already (a large pull's absorb), each step's commit is the progress its waiters see.
   */
  private settleStep<T>(step: () => T): T {
    const lock = this.writeLock();
    if (lock.held) {
      heartbeat();
      return step();
    }
    if (this.settleStepsTaken++ > 0) Atomics.wait(settleGapSleeper, 0, 0, SETTLE_STEP_GAP_MS);
    return lock.hold(step);
  }

  /** settlePostings for a command that writes a lot (sync, gc, reindex), under the store's guard. */
  settleBoundedSearch(mergeFrom?: number): Promise<void> {
    this.settleStepsTaken = 0;
    return this.guarded(async () => this.settlePostings(mergeFrom));
  }

  /** Whether recall's candidates come from the impact postings (IndexDb.boundedSearchReady). */
  boundedSearchReady(): Promise<boolean> {
    return this.guarded(async () => this.indexDb.boundedSearchReady());
  }

  /** The full-text index merged when it has many segments (settleAfterBulk); refused or failed, left as it is. */
  private mergeFullText(): void {
    try {
      this.indexDb.mergeFullTextPast(FULL_TEXT_SEGMENTS_MOST, this.busyTimeoutMs);
    } catch (e) {
      if (isIndexDamage(e)) throw e;
    }
  }

  /** One bounded step of merging the full-text index (IndexDb.mergeStep); true while there is more. */
  mergeIndexStep(pages: number): Promise<boolean> {
    return this.guarded(() => this.indexDb.mergeStep(pages, this.busyTimeoutMs));
  }

  /**
   * A long-running process checkpoints the index's WAL in its idle time (ops/index-upkeep.ts):
   * SQLite's own checkpoint, run by the commit that fills 1,000 pages, copied them inside a
   * request (one touch in 35 to 100 waited for it). Commits checkpoint only past `pages` now.
   */
  deferCheckpoints(pages: number): void {
    this.indexDb.deferCheckpoints(pages);
  }

  /**
   * A long-running process's writes do not wait for the removal of the replaced records' backups
   * (StoreTx.keepOld): an unlink in the machine-local folder, which waits for the file system's
   * journal, ~0.1 ms on a quiet disk and 1-5 ms on a busy one, after the change is already made.
   * A command's process removes them before it ends, as before.
   */
  removeBackupsLater(): void {
    this.backupsLater = true;
  }

  /** Copy the index's WAL into its file without waiting (IndexDb.checkpoint); true when all of it was. */
  checkpointIndex(): Promise<boolean> {
    return this.guarded(() => this.indexDb.checkpoint(this.busyTimeoutMs));
  }

  /**
   * Watch the record folders (a long-running process: ops/kept-store.ts), so that a quick refresh
   * that could find nothing is skipped (store/refresh-watch.ts). Without inotify (Deno, not Linux)
   * nothing changes: every refresh stats the folders.
   */
  async watchFolders(): Promise<void> {
    // the watch sees the real folders: a store over another fs (tests) is not watched
    if (this.watch || this.fs !== nodeFs) return;
    // loaded here only: a command's process never watches
    const { openFolderWatch } = await import("./folder-watch.ts");
    const w = await openFolderWatch();
    if (w && !this.watch) this.watch = new RefreshWatch(w, this.fs, this.root);
    else w?.close();
  }

  /**
   * This process is about to make these events in a record folder, keeping the index in step
   * with them (RefreshWatch.expect); null when no watch is kept.
   */
  get expectOwn(): ((dir: string, name: string, mask: number) => void) | null {
    const w = this.watch;
    return w ? (dir, name, mask) => w.expect(dir, name, mask) : null;
  }

  close(): void {
    this.watch?.close();
    this.indexDb.close();
    this.lock?.close();
    this.privateIndex?.remove();
    mark("store closed");
  }

  /** Seconds since the epoch, the unit records use. */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** Load the schemas; after this, parsing and writing are synchronous. */
  async codec(): Promise<Codec> {
    this.ctx.codec ??= await loadCodec();
    return this.ctx.codec;
  }

  private get loadedCodec(): Codec {
    if (!this.ctx.codec) throw new Error("codec not loaded: await store.codec() first");
    return this.ctx.codec;
  }

  /** .meta.json's settings as they are on disk, unvalidated (read paths that must not load the schemas). */
  get rawSettings(): unknown {
    return this.rawMeta.settings;
  }

  /**
   * The layout settings: the validated .meta.json's once parsed (it may have been read again since
   * open), else the ones read at open, checked there by the schema's rules (readRawMeta).
   */
  get layoutSettings(): { layout: Layout; shard_threshold: number } {
    return this.parsedMeta ? this.parsedMeta.settings : layoutSettingsFrom(this.rawMeta.settings);
  }

  /** The validated .meta.json (needs the codec). */
  get meta(): StoreMeta {
    this.parsedMeta ??= this.loadedCodec.parseStoreMeta(this.rawMeta, `${this.root}/${META_FILE}`);
    return this.parsedMeta;
  }

  /** .meta.json as it is on disk now (another process or a pull may have changed it since open). */
  rereadMeta(): StoreMeta {
    this.parsedMeta = this.loadedCodec.parseStoreMeta(readRawMeta(this.fs, this.root), `${this.root}/${META_FILE}`);
    return this.parsedMeta;
  }

  /**
   * Bring the index up to date with the files. Quick by default (only folders whose mtime moved);
   * full re-stats every file, which also finds edits made in place. Takes the write lock, and
   * loads the schemas, only when something changed.
   */
  refresh(full = false, kinds?: readonly RecordKind[], opts: { lookFirst?: boolean; seen?: SeenFolders; folders?: IndexFolders; quickFailed?: boolean } = {}): Promise<Plan> {
    return this.guarded(async () => {
      if (full) {
        // `lookFirst` (status): a lock-free look, and the lock only when it found something to
        // apply, so writers beside a check of a healthy store never wait for its O(store) stats;
        // a change found costs the stats twice. `seen`: the look reads the record folders as
        // threads saw them (parallel-snapshot.ts), and `folders` the index's folders read while
        // they stat; what the lock then applies is stat'ed and read again.
        if (opts.lookFirst) {
          // without the threads' reads, each folder read whole once, on this thread, as they would
          const seen = opts.seen ?? (this.fs === nodeFs ? new FolderReads(this.root) : undefined);
          const look = planRefresh({ ...this.ctx, codec: null, ...(seen ? { seen } : {}), ...(opts.folders ? { folders: opts.folders } : {}) }, true, kinds);
          if (planIsEmpty(look) && look.temps.length === 0) return look;
        }
        // a full refresh stats every record file: do that once, under the lock, schemas at hand
        // (a lock-free look first, then again under the lock, would stat everything twice)
        await this.codec();
        const applied = this.locked(() => {
          const plan = planRefresh(this.ctx, true, kinds);
          if (!planIsEmpty(plan) || plan.temps.length) this.apply(plan, true);
          return plan;
        });
        if (applied.upserts.length > 500) this.settleAfterBulk();
        return applied;
      }
      // a long-running process's watch (watchFolders): no folder of these kinds changed and no
      // other process wrote the index since the last scan, so this one would find nothing
      const watch = this.absorbing ? null : this.watch;
      const version = watch ? this.indexDb.dataVersion() : "";
      if (watch?.unchanged(kinds ?? ALL_KINDS, version)) return emptyPlan();
      const token = watch?.begin(kinds ?? ALL_KINDS, version);
      if (this.lock?.held) {
        // the lock is held already (a sync's commit, inside the pull's hold): no other memsync
        // process can write meanwhile, so one plan under it, schemas at hand, not a lock-free look
        // first and the same listing again (after a pull, its folder of ~1,000 files stat'ed twice)
        await this.codec();
        const applied = this.locked(() => {
          const plan = planRefresh(this.ctx, full, kinds);
          if (!planIsEmpty(plan)) this.apply(plan);
          return plan;
        });
        if (applied.upserts.length > 500) this.indexDb.analyze();
        watch?.done(token);
        return applied;
      }
      // the common case (nothing changed) told without the planner's walk: the same folders stat'ed, the same rule.
      // `quickFailed`: the caller's own check of these folders (a settled read's) has just failed;
      // the check is only a shortcut to "nothing", so the look below decides as it would after it
      if (!opts.quickFailed) {
        const unchanged = quickUnchanged(this.fs, this.indexDb, this.root, kinds ?? ALL_KINDS);
        mark("refresh: quick check");
        if (unchanged) {
          watch?.done(token);
          return emptyPlan();
        }
      }
      for (;;) {
        // the index the look reads, and the look's clock fixed at its start: under the lock its
        // plan stands in for a second listing when neither moved since (confirmLook)
        const version = this.indexDb.dataVersion();
        const at = this.ctx.now();
        const plan = planRefresh({ ...this.ctx, codec: null, now: () => at }, full, kinds);
        mark("refresh: look (folders listed)");
        if (planIsEmpty(plan)) {
          watch?.done(token);
          return plan;
        }
        if (planNeedsCodec(plan)) await this.codec();
        mark("refresh: schemas");
        const applied = this.locked(() => {
          mark("refresh: lock held");
          const confirmed = this.indexDb.dataVersion() === version ? confirmLook(this.ctx, plan, at) : null;
          const fresh = confirmed ?? planRefresh(this.ctx, full, kinds);
          mark(confirmed ? "refresh: the look confirmed under the lock (files parsed)" : "refresh: plan under the lock (files parsed)");
          if (planNeedsCodec(fresh) && !this.ctx.codec) return null; // files changed meanwhile: load the schemas, then again
          this.apply(fresh);
          mark("refresh: index rows, journal check");
          return fresh;
        });
        mark("refresh: committed, unlocked");
        // many records came in at once (a first index, a large pull): refresh the planner's statistics
        if (applied && applied.upserts.length > 500) this.settleAfterBulk();
        if (applied) {
          watch?.done(token);
          return applied;
        }
      }
    });
  }

  /**
   * Take into the index changes memsync itself made to the working tree from git history (a
   * pull's checkout wrote `written`): they are already committed, so they are not journaled as
   * outside edits. Only those files are looked at in folders the index knows (planWrittenFolders);
   * anything else a listing finds changed (a new shard's files, or, at the next refresh, an edit
   * made in place to another file of a folder the checkout wrote into) is journaled as usual.
   */
  async absorb(written: Iterable<string>): Promise<void> {
    const paths = new Set(written);
    if (paths.size === 0) return;
    this.absorbing = paths;
    try {
      await this.guarded(async () => {
        await this.codec();
        // one plan, under the lock (the pull holds it: nothing else can write meanwhile), of the
        // files the checkout wrote; every other file is as the commit before it left it
        const plan = this.locked(() => {
          const p = planWrittenFolders(this.ctx, paths);
          this.apply(p);
          return p;
        });
        if (plan.upserts.length > 500) this.settleAfterBulk(); // a large pull
      });
    } finally {
      this.absorbing = null;
    }
  }

  /**
   * Bring the index up to date for these record files alone, under the lock (a pull about to
   * overwrite them): an edit made in place there (its folder's mtime unchanged, so no quick
   * refresh sees it) is found and journaled. Returns the paths found changed outside memsync.
   */
  async refreshPaths(paths: readonly string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    return this.guarded(async () => {
      await this.codec();
      return this.locked(() => {
        const plan = planPaths(this.ctx, paths);
        if (planIsEmpty(plan)) return [];
        this.apply(plan);
        return plan.outside.filter((p) => !isMachineLocalPath(p));
      });
    });
  }

  /** Rebuild the index from the files alone, in a fresh index file. */
  async rebuildIndex(): Promise<void> {
    this.requireWritable();
    await this.recoverIndex(this.indexIno);
  }

  /**
   * Run a change holding the store's write lock, on an index refreshed under that lock. `kinds`
   * names the records whose index the change reads (relations, to find a duplicate or a memory's
   * relations); none for a change that only reads files. Every folder a change writes into is
   * brought up to date before its new state is recorded, so that hides nothing either.
   */
  async write<T>(fn: (tx: StoreTx) => T, kinds: readonly RecordKind[] = ["memory", "relation"], opts: WriteOptions = {}): Promise<T> {
    this.requireWritable();
    await this.codec();
    if (opts.bulk) await loadSyncAll();
    // the lock is waited for without blocking the thread (a server answers what needs no lock
    // meanwhile, its health first), then held through every step below
    const release = await this.takeWriteLock();
    try {
      return await this.writeHolding(fn, kinds, opts);
    } finally {
      release();
    }
  }

  /** SQLite's "database is locked" from the write lock's wait, said as the store being busy; anything else as it is. */
  private busyAsUnavailable(e: unknown): unknown {
    return busyAsUnavailable(e, this.root);
  }

  private async takeWriteLock(): Promise<() => void> {
    try {
      return await this.writeLock().take();
    } catch (e) {
      throw this.busyAsUnavailable(e);
    }
  }

  private async writeHolding<T>(fn: (tx: StoreTx) => T, kinds: readonly RecordKind[], opts: WriteOptions): Promise<T> {
    let started = false;
    let tx: StoreTx | undefined;
    const attempt = () => {
      tx = undefined;
      const out = this.locked(
        () => {
          this.apply(planRefresh(this.ctx, false, kinds), true);
          this.removeOldJournalTemps();
          if (this.layoutSettings.layout === "auto") flattenLocalRecords(this.ctx, this.layoutSettings.shard_threshold);
          started = true;
          tx = new StoreTx(this, this.loadedCodec, this.ctx, kinds, opts.bulk === true);
          const out = fn(tx);
          tx.settlePlaces();
          tx.recordDirs();
          // records of scope local never reach the journal (so never a commit); nor does their text
          // through a message, when a change touched both kinds
          const shared = tx.changed.filter((p) => !isMachineLocalPath(p));
          if (shared.length) {
            const message = shared.length === tx.changed.length ? (tx.message ?? `${tx.op}: ${shared.length} files`) : (tx.sharedMessage ?? `${tx.op}: ${shared.length} shared file${shared.length === 1 ? "" : "s"}`);
            // what the change left at each path goes with it: its commit holds exactly that, whatever
            // later changes do to the same files before the commit runs
            const paths = [...new Set(shared)];
            const files = Object.fromEntries([...tx.left].filter(([p]) => !isMachineLocalPath(p)));
            const redo = tx.redoStamps.size ? { redo: Object.fromEntries(tx.redoStamps) } : {};
            let fill = {};
            if (opts.fill) {
              opts.fill(new Map(Object.entries(files)));
              if (tx.createdFiles.length) {
                // the caller commits these texts itself; the entry keeps only those of files it
                // replaced, and the marker (durable first) has a dead caller's filled in from disk
                for (const p of tx.createdFiles) delete files[p];
                writeFillMarker(this.fs, this.root, this.nowMs());
                this.fillOwned = true;
                fill = { fill: true };
              }
            }
            this.journalBuffer.push({ op: tx.op, message, paths, files, ...redo, ...fill, at: this.nowSeconds() });
          }
          return out;
        },
        // the records it replaced get their old file back (under the lock, so no later writer's
        // change is overwritten), so a failed update changes nothing
        () => {
          (tx as StoreTx | undefined)?.stopCreating();
          (tx as StoreTx | undefined)?.restoreReplaced();
        },
      );
      (tx as StoreTx | undefined)?.dropBackups();
      return out;
    };
    try {
      const out = attempt();
      // an import: thousands of full-text rows (the planner's statistics are left as they were)
      if (opts.bulk) this.mergeFullText();
      return out;
    } catch (e) {
      // a change that failed partway (a full disk refused the journal or the index): the index
      // rolled back, and the records it made are removed again, so a failed save leaves no file
      if (started && !isIndexDamage(e)) tx?.undoCreated();
      const refusal = diskRefusal(e);
      if (refusal) throw unavailable(refusal);
      if (isIoError(e) && !started) {
        this.reopenIndex();
        return attempt();
      }
      if (isIoError(e)) {
        // the index failed under the change (replaced meanwhile): the change was rolled back, but
        // its journal entry may already be written, so the caller is asked to check
        this.reopenIndex();
        throw unavailable("the local index was damaged during this change and has been rebuilt from the files; check the result (memsync get/list) before repeating it");
      }
      if (!isIndexDamage(e)) throw e;
      await this.recoverIndex(this.indexIno);
      if (started) {
        throw unavailable("the local index was damaged during this change and has been rebuilt from the files; check the result (memsync get/list) before repeating it");
      }
      return attempt();
    }
  }

  /**
   * Apply a refresh plan (holding the lock); changes it found that no memsync write made are
   * journaled, so the next commit takes them too.
   */
  apply(plan: Plan, removeLeftovers = false): void {
    applyPlan(this.ctx, plan);
    // a writer removes the temp files killed processes left in the folders it just listed
    // (and a full refresh, which lists every folder); those still there are reported by status
    if (removeLeftovers && plan.temps.length && !this.privateIndex) {
      const removed = new Set(removeOldTemps(this.fs, this.root, plan.temps, this.nowMs()));
      if (removed.size) plan.temps = plan.temps.filter((t) => !removed.has(t));
    }
    const written = this.absorbing;
    const outside = plan.outside.filter((p) => !isMachineLocalPath(p) && !written?.has(p));
    // a read-only store's edits are journaled by whoever writes it
    if (outside.length && !this.privateIndex) {
      const all = [...new Set(outside)].sort();
      // a file whose own write journaled it as it is now (a save that left its index row to this
      // refresh: ops/save-unindexed.ts) is no outside edit
      const own = journaledAsFound(this.fs, this.root, outsideTexts(plan, all));
      const paths = all.filter((p) => !own.has(p));
      if (paths.length) this.journalBuffer.push({ op: "edit", message: `edit: ${paths.length} file${paths.length === 1 ? "" : "s"} changed outside memsync`, paths, files: outsideTexts(plan, paths), at: this.nowSeconds() });
    }
  }

  /**
   * An edit made outside memsync to a file a transaction is about to replace or remove (found by
   * StoreTx): journaled before the transaction's own entry, with the text found, so history shows
   * the edit and then the change made on top of it.
   */
  journalOutside(path: string, text: string | undefined): void {
    if (this.absorbing?.has(path) || isMachineLocalPath(path)) return;
    const files: Record<string, string | null> = {};
    if (text !== undefined && !text.includes("\uFFFD")) files[path] = text;
    this.journalBuffer.push({ op: "edit", message: "edit: 1 file changed outside memsync", paths: [path], files, at: this.nowSeconds() });
  }

  private journalTempsChecked = false;

  /** Set by a bulk transaction that wrote its marker (bulk-write.ts). */
  bulkMarked = false;

  /**
   * Set while this process holds a `fill` journal entry of its own (journal-fill.ts), which it
   * commits from memory: the marker then is not a dead writer's.
   */
  fillOwned = false;

  /** Holding the write lock: a dead writer's `fill` entry gets its texts from disk before any write. */
  private recoverFill(): void {
    if (!this.fillOwned && hasFillMarker(this.fs, this.root)) fillJournal(this.fs, this.root);
  }

  /**
   * Shared record files are written without their own fsyncs, the journal's line being their
   * durable point (store/redo.ts); only where a crash of the machine can be told apart.
   */
  readonly redoWrites = redoAvailable();

  /** Write again what a crash of the machine lost of the journal's writes (holding the lock); returns those paths. */
  async recoverRedo(): Promise<string[]> {
    this.requireWritable();
    await loadSyncAll();
    return this.writeLock().hold(() => (crashedRedo(this.fs, this.root) ? recoverRedo(this.fs, this.root) : []));
  }

  /**
   * Once per process, in a write: temp files a killed process left at the store's top and in its
   * machine-local folder (the journal's among them), once old enough that no live writer owns them.
   */
  private removeOldJournalTemps(): void {
    if (this.journalTempsChecked) return;
    this.journalTempsChecked = true;
    // one listing of the store's folder and one of the machine-local folder: the store-level temp
    // files (a journal rewrite's among them) and the old backups of replaced records
    removeOldTemps(this.fs, this.root, storeLevelTemps(this.fs, this.root, LOCAL_DIR, isBackupName), this.nowMs());
  }

  /** Run a read against the index; if SQLite finds the index damaged, rebuild it and retry once. */
  private async guarded<T>(fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (isIndexDamage(e)) await this.recoverIndex(this.indexIno);
      else if (isIoError(e)) this.reopenIndex();
      else throw e;
      return await fn();
    }
  }

  /** Open the index file again (another process replaced it under this connection). */
  private reopenIndex(): void {
    const path = this.indexPath;
    const ino = this.fs.stat(path)?.ino;
    this.indexDb.adopt(openIndexRetrying(path, this.busyTimeoutMs, this.fs));
    this.indexIno = ino;
    // a new index cannot tell what changed before it existed: the next commit compares every file
    if (this.indexDb.created && !this.privateIndex) appendJournal(this.fs, this.root, { op: "rescan", message: "", paths: [], at: this.nowSeconds() });
  }

  /**
   * Holding the write lock: if the index file is no longer the one this process opened (another
   * process replaced a damaged one, or it was removed), open the one there now. Its connection to
   * the old file would read a file no one keeps up to date and fail with I/O errors midway.
   */
  private reopenIfReplaced(): void {
    if (this.privateIndex) return; // no other process has it
    const ino = this.fs.stat(`${this.root}/${INDEX_FILE}`)?.ino;
    if (ino === undefined || ino !== this.indexIno) this.reopenIndex();
  }

  /** Run asynchronous work (git) holding the store's write lock, so no write interleaves. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.requireWritable();
    try {
      return await this.writeLock().holdAsync(() => {
        this.recoverFill();
        return fn();
      });
    } catch (e) {
      throw this.busyAsUnavailable(e);
    }
  }

  private writeLock(): WriteLock {
    // a waiter keeps waiting while writers make progress (see WriteLock.open): every change
    // commits to the index's WAL or appends to the journal
    this.lock ??= WriteLock.open(this.privateIndex?.lockPath ?? `${this.root}/${LOCK_FILE}`, this.busyTimeoutMs, writersProgress(this.fs, this.root), { mostMs: this.lockWaitMostMs });
    return this.lock;
  }

  /**
   * Hold the write lock and one index transaction. Journal entries gathered meanwhile are written
   * just before the transaction commits: after the files (a crash then leaves an entry for a
   * change that happened), and not at all when the change is refused and rolled back.
   */
  private locked<T>(fn: () => T, onFail?: () => void): T {
    try {
      return this.writeLock().hold(() => {
        // a read-only store: nothing of a dead writer's can be finished here (its next writer does)
        if (!this.indexDb.inTransaction && !this.privateIndex) {
          this.reopenIfReplaced();
          // a bulk write whose process died left its marker: make its files durable (or, after a
          // crash of the machine, remove those it left torn) before anything reads them
          if (this.fs.stat(`${this.root}/${BULK_MARKER}`)) {
            recoverBulkWrite(this.fs, this.root);
            this.bulkMarked = false; // (this process's own, from an attempt that failed: written again if needed)
          }
          this.recoverFill();
        }
        try {
          const out = this.indexDb.transaction(() => {
            this.journalBuffer = [];
            try {
              const out = fn();
              if (!this.privateIndex) for (const entry of this.journalBuffer) appendJournal(this.fs, this.root, entry);
              return out;
            } finally {
              this.journalBuffer = [];
            }
          });
          // (a change committed is progress a waiter sees, in the WAL: the silence trace counts it too)
          if (!this.indexDb.inTransaction) heartbeat();
          // the change is in the journal and the index: a bulk write's marker goes (under the lock,
          // so no other process takes it for one left by a dead writer)
          if (!this.indexDb.inTransaction && this.bulkMarked) removeBulkMarker(this.fs, this.root);
          this.bulkMarked = false;
          return out;
        } catch (e) {
          // still holding the lock: undo what must not outlive the rolled-back transaction
          onFail?.();
          throw e;
        }
      });
    } catch (e) {
      throw this.busyAsUnavailable(e);
    }
  }

  /**
   * Replace the index with a fresh one built from the files, holding the write lock. If another
   * process already replaced the file this one opened (its inode differs), use theirs.
   */
  private async recoverIndex(openedIno: number | undefined): Promise<void> {
    await this.codec();
    const path = this.indexPath;
    this.writeLock().hold(() => {
      const now = this.fs.stat(path)?.ino;
      // a read-only store's private copy: no other process replaces it, it is rebuilt in place
      if (this.privateIndex || (now !== undefined && now === openedIno)) {
        this.replaceIndexFile(path);
      } else {
        // another process replaced it already, or it is gone: use (or make) the one there now
        try {
          this.reopenIndex();
        } catch (e) {
          if (!isIndexDamage(e)) throw e;
          this.replaceIndexFile(path);
        }
        this.indexDb.transaction(() => applyPlan(this.ctx, planRefresh(this.ctx, true)));
        this.settleAfterBulk();
      }
      // what changed while there was no index is not known: the next commit compares every file
      if (!this.privateIndex) appendJournal(this.fs, this.root, { op: "rescan", message: "", paths: [], at: this.nowSeconds() });
    });
  }

  /**
   * Holding the write lock: build a new index from the files in a temp file, then put it in the
   * damaged one's place. Processes open the index without the lock, so the file at the index's
   * path is always whole: the damaged one, or the complete new one (a rename), never an empty file
   * paired with the damaged one's WAL (SQLite pairs them by name, and replaying an old WAL into a
   * new file makes it malformed). The damaged file is kept beside it for inspection.
   */
  private replaceIndexFile(path: string): void {
    const dir = path.slice(0, path.lastIndexOf("/"));
    const temp = `${dir}/.${path.slice(dir.length + 1)}.${randomHex(6)}${TEMP_SUFFIX}`;
    const fresh = IndexDb.open(temp, this.busyTimeoutMs);
    try {
      const ctx = { ...this.ctx, index: fresh };
      fresh.transaction(() => applyPlan(ctx, planRefresh(ctx, true)));
      fresh.analyze();
      // no other process has this file yet: merged before it takes the index's place
      fresh.mergeFullTextPast(FULL_TEXT_SEGMENTS_MOST, this.busyTimeoutMs);
      fresh.settleBoundedSearch(1, this.busyTimeoutMs);
    } catch (e) {
      fresh.close();
      for (const suffix of ["", "-wal", "-shm"]) this.tryUnlink(`${temp}${suffix}`);
      throw e;
    }
    // the last connection closing folds the WAL into the file and removes its side files
    fresh.close();
    const aside = `${path}.damaged-${this.nowMs()}`;
    for (const suffix of ["-wal", "-shm"]) {
      try {
        this.fs.rename(`${path}${suffix}`, `${aside}${suffix}`);
      } catch {
        // no such side file
      }
    }
    try {
      this.fs.link(path, aside);
    } catch {
      // gone, or links not supported here: the damaged file is simply replaced
    }
    this.fs.rename(temp, path);
    this.reopenIndex();
  }

  private tryUnlink(path: string): void {
    try {
      this.fs.unlink(path);
    } catch {
      // not there
    }
  }

  /**
   * Forget which folders were found not to be symbolic links, so that each is looked at again (a
   * store kept open across requests, ops/kept-store.ts, calls this before each).
   */
  forgetLinkChecks(): void {
    this.notLinks.clear();
  }

  /** Refuse a folder (relative) that is a symbolic link; each is looked at once per process. */
  refuseLink(rel: string): void {
    if (this.notLinks.has(rel)) return;
    if (this.fs.isLink(`${this.root}/${rel}`)) throw linkRefusal(this.root, rel);
    this.notLinks.add(rel);
  }

  /**
   * Where a record's file is, and its stat. A record is at its flat or its sharded path; the
   * id was validated before it got here (recordPath refuses anything else).
   */
  locate(kind: RecordKind, id: string): { path: string; stat: NonNullable<ReturnType<StoreFs["stat"]>> } | null {
    heartbeat(); // (a change looks up thousands in one hold of the lock: gc, consolidate)
    // where the index has the record first: one stat instead of two for a sharded record
    // (and a file moved by hand into another shard folder, where the index found it: layout.ts)
    const known = kind === "memory" ? this.indexDb.memoryPath(id) : this.indexDb.relationPath(id);
    for (const rel of lookupPaths(kind, id, known)) {
      const st = this.fs.stat(`${this.root}/${rel}`);
      if (st?.isFile) return { path: rel, stat: st };
    }
    return null;
  }

  /**
   * Read a memory. Served from the index when the file is provably the one indexed (same stat,
   * indexed well after its last change); otherwise parsed from the file, which is the truth.
   */
  async readMemory(id: string): Promise<{ path: string; result: ReadResult<"memory"> } | null> {
    const lookedAt = this.nowMs(); // before the stat: the time its bytes are proved at, at the latest
    const at = this.locate("memory", id);
    if (!at) return null;
    const json = await this.guarded(() => {
      const row = this.indexDb.file(at.path);
      if (!row || row.problem !== null || row.mtime !== at.stat.mtime || row.size !== at.stat.size) return undefined;
      if (row.ino === at.stat.ino) {
        if (trusted(row.mtime, row.indexed_at)) return this.indexDb.recordJsonAt("memory", at.path);
        return sameAsIndexed(this.ctx, "memory", at.path) ? this.indexDb.recordJsonAt("memory", at.path) : undefined;
      }
      // the same mtime and size at another inode (a store copied with cp -a, a backup restored):
      // its bytes, once proved the indexed ones, heal the row, so the next read trusts its stat
      // (and a plain get takes the settled read again) instead of parsing the file every time
      if (!sameAsIndexed(this.ctx, "memory", at.path)) return undefined;
      this.healInode(row, at.stat.ino, lookedAt);
      return this.indexDb.recordJsonAt("memory", at.path);
    });
    if (json) return { path: at.path, result: { ok: true, record: JSON.parse(json) as Memory } };
    const codec = await this.codec();
    return { path: at.path, result: codec.readRecordFile(this.fs, `${this.root}/${at.path}`, "memory", id) };
  }

  /** A row's new inode, its bytes just compared (IndexDb.moveFileInode); busy, read-only or failed, left for a later read. */
  private healInode(row: FileRow, ino: number, comparedAt: number): void {
    try {
      this.indexDb.moveFileInode(row, ino, comparedAt, this.busyTimeoutMs);
    } catch {
      // an optimisation only: the answer is the compared bytes either way
    }
  }

  /** Memory or relation ids starting or ending with an abbreviation's hex digits, as the index knows them. */
  idsAbbreviated(kind: "memory" | "relation", hex: string, limit: number): Promise<string[]> {
    return this.guarded(() => this.indexDb.idsAbbreviated(kind, hex, limit));
  }

  relationsOf(id: string): Promise<{ outgoing: Relation[]; incoming: Relation[] }> {
    return this.guarded(() => this.relationsNow(id));
  }

  /** Relations of a memory as the index has them now (inside a transaction, or after refresh). */
  relationsNow(id: string): { outgoing: Relation[]; incoming: Relation[] } {
    return {
      outgoing: this.indexDb.relationsFrom(id).map((j) => JSON.parse(j) as Relation),
      incoming: this.indexDb.relationsTo(id).map((j) => JSON.parse(j) as Relation),
    };
  }

  list(filter: MemoryFilter, limit: number | null): Promise<{ memories: Memory[]; total: number }> {
    return this.guarded(() => {
      const { rows, total } = this.indexDb.listMemories(filter, limit);
      return { memories: rows.map((j) => JSON.parse(j) as Memory), total };
    });
  }

  /** The user's global rules (IndexDb.globalRules), from the index (refresh first). */
  globalRules(statuses: readonly string[], types: readonly string[], limit: number): Promise<Memory[]> {
    return this.guarded(() => this.indexDb.globalRules(statuses, types, limit).map((j) => JSON.parse(j) as Memory));
  }

  /** What consolidation compares of each memory with these statuses, from the index (refresh first). */
  clusterRows(statuses: readonly string[]): Promise<ClusterRow[]> {
    return this.guarded(() => this.indexDb.clusterRows(statuses));
  }

  /** These memories as the index has them (refresh first), in id order; ids not indexed are left out. */
  memoriesByIds(ids: readonly string[]): Promise<Memory[]> {
    return this.guarded(() => this.indexDb.memoriesJson(ids).map((j) => JSON.parse(j) as Memory));
  }

  /** Memories with unresolved content conflicts, from the index (refresh first). */
  withContentConflicts(): Promise<Memory[]> {
    return this.guarded(() => this.indexDb.memoriesWithContentConflicts().map((j) => JSON.parse(j) as Memory));
  }

  /** Ranked matches; total counts every match (-1 when withTotal is false, which saves a count). */
  search(match: string, filter: MemoryFilter, limit: number | null, withTotal = true): Promise<{ hits: { memory: Memory; score: number }[]; total: number }> {
    return this.guarded(() => {
      const { rows, total } = this.indexDb.searchMemories(match, filter, limit, withTotal);
      return { hits: rows.map((r) => ({ memory: JSON.parse(r.json) as Memory, score: -r.score })), total };
    });
  }

  /**
   * Ranked matches, best first, each with what recall compares it by as the index made it
   * (core/memory-terms.ts storedTerms; null when not made). No count.
   */
  searchWithTerms(match: string, filter: MemoryFilter, limit: number, matchesAbout?: number): Promise<{ memory: Memory; score: number; terms: string | null }[]> {
    return this.guarded(() => this.indexDb.searchWithTerms(match, filter, limit, matchesAbout));
  }

  /**
   * How many memories match an FTS5 expression (and the filter); also the store's size (no match
   * given). With `upTo`, counting stops there: the answer is at most upTo, meaning "upTo or more".
   */
  countMatches(match: string | null, filter: MemoryFilter = {}, upTo?: number): Promise<number> {
    return this.guarded(() => this.indexDb.countMatchesOrAll(match, filter, upTo));
  }

  /** Every project some memory belongs to, from the index (IndexDb.projects). */
  projects(): Promise<string[]> {
    return this.guarded(() => this.indexDb.projects());
  }

  /** The first `upTo` matches of every memory and how many of them pass the filter (IndexDb.countMatchesPassing). */
  countMatchesPassing(match: string, filter: MemoryFilter, upTo: number): Promise<{ all: number; passing: number }> {
    return this.guarded(() => this.indexDb.countMatchesPassing(match, filter, upTo));
  }

  /** [from, to] of every relation of this type to any of these memories, from the index (refresh first). */
  relationsOfTypeTo(type: string, memoryIds: readonly string[]): Promise<[string, string][]> {
    return this.guarded(() => this.indexDb.relationsOfTypeTo(type, memoryIds));
  }

  /** Id, from and to of every relation of these types to any of these memories, from the index. */
  relationsOfTypesTo(types: readonly string[], memoryIds: readonly string[]): Promise<{ id: string; from: string; to: string }[]> {
    return this.guarded(() => this.indexDb.relationsOfTypesTo(types, memoryIds));
  }

  /** The decay-scoring fields of every memory with these statuses, from the index (refresh first). */
  scoringRows(statuses: readonly string[]): Promise<ScoringRow[]> {
    return this.guarded(() => this.indexDb.scoringRows(statuses));
  }

  /** Whether new records go to shard folders (see README: Layout). */
  shardsNewRecords(): boolean {
    const { layout, shard_threshold } = this.layoutSettings;
    if (layout !== "auto") return layout === "sharded";
    return this.indexDb.memoryCount() >= shard_threshold;
  }
}

/** The changes of one write transaction. Every method keeps files and index in step. */
export class StoreTx {
  private readonly touched = new Set<string>();

  private readonly current = new Set<string>();

  /** Folders with removals not yet fsynced. */
  private readonly unsynced = new Set<string>();

  /** Record files this transaction made (not replaced): removed again if it fails. */
  private readonly created: string[] = [];

  get createdFiles(): readonly string[] {
    return this.created;
  }

  /** Record files this transaction replaced: each old file kept under a temp name until it succeeds. */
  private readonly replaced = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly codec: Codec,
    private readonly ctx: RefreshContext,
    /** Kinds whose folders were all brought up to date under this transaction's lock, just before it began. */
    private readonly refreshed: readonly RecordKind[] = [],
    /** New record files are written without an fsync each and made durable together (recordDirs). */
    private readonly bulk = false,
  ) {}

  /** New record files written in bulk, not yet durable. */
  private readonly unsyncedFiles: string[] = [];

  /** A bulk write's new files being made off this thread (parallel-create.ts), and their index rows to come. */
  private creating: FileCreator | null | undefined;
  private readonly pendingRows: { rel: string; dir: string; kind: RecordKind; id: string }[] = [];

  private creator(): FileCreator | null {
    if (this.creating === undefined) this.creating = this.store.fs.parallelCreator?.() ?? null;
    return this.creating;
  }

  /**
   * Wait for the files being made (throws the first that failed), then index them: before
   * anything reads, replaces or removes a file, and before the flush that makes them durable.
   */
  private settleCreated(): void {
    if (this.pendingRows.length) this.indexMade(this.creating?.settle() ?? []);
  }

  /** Index rows for the next files made, in order, with their stats (null: stat here). */
  private indexMade(made: readonly (MadeStat | null)[]): void {
    const { fs, root } = this.store;
    for (const [i, { rel, dir, kind, id }] of this.pendingRows.splice(0, made.length).entries()) {
      const st = made[i] ?? fs.stat(`${root}/${rel}`);
      if (st) this.store.index.putFile({ path: rel, dir, kind, id, mtime: st.mtime, size: st.size, ino: st.ino, indexed_at: this.store.nowMs(), problem: null });
    }
  }

  /** The transaction failed or ended: no thread is still making a file once this returns. */
  stopCreating(): void {
    this.creating?.close();
    this.creating = null;
  }

  /**
   * Shared paths written or removed without an fsync of their own: the stamp the journal entry
   * keeps for each, so that after a crash its text is put back where the disk lost it (redo.ts).
   */
  readonly redoStamps = new Map<string, RedoStamp>();
  private redoMarked = false;

  /** Whether a change at this path may wait for a later durable point, its journal line being its own. */
  private logged(rel: string): boolean {
    if (this.bulk || !this.store.redoWrites || isMachineLocalPath(rel)) return false;
    if (!this.redoMarked) {
      ensureRedoMarker(this.store.fs, this.store.root);
      this.redoMarked = true;
    }
    return true;
  }

  /** Paths this transaction wrote or removed, in order. */
  readonly changed: string[] = [];
  /** What this transaction left at each path it changed: the text written, or null (removed). */
  readonly left = new Map<string, string | null>();
  op = "change";
  message: string | undefined;
  /** The message to commit when this change also touched local records (it must not quote them). */
  sharedMessage: string | undefined;

  /** Relations written by this transaction, and memories it moved between places (scope changes). */
  private readonly relationsPut = new Map<string, Relation>();
  private readonly moved = new Set<string>();
  /** Memories this transaction removed from the local place (a relation to one stays local). */
  private readonly goneLocal = new Set<string>();
  /** Records moved between places: their old text, put back if the transaction fails. */
  private readonly movedFrom: { path: string; text: string }[] = [];

  /**
   * Where each record this transaction looked for is (null: nowhere), kept up to date by its own
   * writes and removals. It holds the write lock, so no other writer moves them meanwhile; an
   * import looked each new record up five times (up to four stats each, most of its stats).
   */
  private readonly located = new Map<string, string | null>();

  /** Records the index has in a shard folder not their own (read once, by the first listing lookup). */
  private outOfShard: Set<string> | undefined;

  /** The record's path (Store.locate), looked up once per transaction. */
  private where(kind: RecordKind, id: string): string | undefined {
    const key = `${kind}:${id}`;
    let at = this.located.get(key);
    if (at === undefined) {
      const listed = this.bulk ? this.byListing(kind, id) : undefined;
      if (listed === undefined) this.settleCreated(); // the disk decides: every file made first
      at = listed !== undefined ? listed : (this.store.locate(kind, id)?.path ?? null);
      this.located.set(key, at);
    }
    return at ?? undefined;
  }

  /**
   * A bulk transaction's record folders as it listed them, once each (an absent folder: empty),
   * kept up to date by its own writes and removals: an import asked Store.locate about each new
   * record, up to four failed stats and an index query each (a tenth of a 10k import's profile).
   * Per folder: true for a file, false for an entry a listing cannot judge (a link: stat it).
   */
  private readonly listings = new Map<string, Map<string, boolean> | null>();

  private listing(dir: string): Map<string, boolean> | null {
    let names = this.listings.get(dir);
    if (names === undefined) {
      try {
        names = new Map();
        for (const e of this.store.fs.readdir(`${this.store.root}/${dir}`)) if (!e.isDir) names.set(e.name, e.isFile);
      } catch (e) {
        const code = (e as { code?: string }).code;
        names = code === "ENOENT" || code === "ENOTDIR" ? new Map() : null;
      }
      this.listings.set(dir, names);
    }
    return names;
  }

  /**
   * Where a record is by the listings: its path when exactly one candidate holds a file, null when
   * none holds anything, undefined when the listings cannot tell (Store.locate decides: a link, a
   * second copy, a folder that could not be listed).
   */
  private byListing(kind: RecordKind, id: string): string | null | undefined {
    // a record moved by hand into another shard folder is not at its candidate paths: locate finds it
    this.outOfShard ??= this.store.index.misplacedRecords();
    if (this.outOfShard.has(`${kind}:${id}`)) return undefined;
    let found: string | null = null;
    for (const rel of allCandidatePaths(kind, id)) {
      const names = this.listing(dirOf(rel));
      if (names === null) return undefined;
      const entry = names.get(rel.slice(rel.lastIndexOf("/") + 1));
      if (entry === undefined) continue;
      if (entry === false || found !== null) return undefined;
      found = rel;
    }
    return found;
  }

  /** This transaction put a record's file at rel. */
  private placed(kind: RecordKind, id: string, rel: string): void {
    this.located.set(`${kind}:${id}`, rel);
    this.listings.get(dirOf(rel))?.set(rel.slice(rel.lastIndexOf("/") + 1), true);
  }

  /** This transaction removed the file at rel: looked up again if asked (a second copy may be there). */
  private unplaced(rel: string): void {
    this.listings.get(dirOf(rel))?.delete(rel.slice(rel.lastIndexOf("/") + 1));
    const id = idFromFileName(rel.slice(rel.lastIndexOf("/") + 1));
    if (id === null) return;
    this.located.delete(`memory:${id}`);
    this.located.delete(`relation:${id}`);
  }

  /** Record folders this transaction knows exist (a stat each, once). */
  private readonly dirsThere = new Set<string>();

  /**
   * Name the change for history: its kind and its commit message, and (when it touches local
   * records too) the message that may be committed instead, which must not quote a local record.
   */
  note(op: string, message: string, sharedMessage?: string): void {
    this.op = op;
    this.message = message;
    this.sharedMessage = sharedMessage;
  }

  /** Bring one folder's index up to date before this transaction writes into it. */
  private freshen(kind: RecordKind, dir: string): void {
    this.store.refuseLink(dir); // every folder a transaction writes into comes through here
    if (this.current.has(dir)) return;
    const top = topDir(kind, placeOf(dir));
    // a shard folder that is not there yet, under a top folder this transaction brought up to
    // date already: nothing to look at (scanning the top again for each new shard made a bulk
    // write list and stat every file it had written, once per shard)
    if (dir !== top && this.current.has(top) && !this.store.fs.stat(`${this.store.root}/${dir}`)?.isDir) {
      this.current.add(dir);
      return;
    }
    // the refresh this transaction began with, under the same lock, looked at every folder of
    // the kind (a folder that does not exist yet included, through its top folder's listing):
    // planning the folder again found the same (it listed a racy folder of 900 files twice)
    if (!this.refreshed.includes(kind) && !this.racilyUnchanged(dir)) this.store.apply(planDir(this.ctx, kind, dir), true);
    this.current.add(dir);
    if (dir !== top && !this.store.fs.stat(`${this.store.root}/${dir}`)?.isDir) this.current.add(top);
  }

  /**
   * Folders written without being listed first, with the time of their last listing: each was
   * unchanged since that listing but listed too recently after its last change to be trusted (the
   * racy window, refresh.ts), which the next write into it always was at 100 writes/s. Listing it
   * again cannot make it trusted either, so the write goes ahead and its folder is recorded with
   * that older listing time, still untrusted: the next refresh lists it whole and finds whatever
   * changed outside memsync meanwhile, as it would have here (the flat folder's ~900 stats on
   * every write of an old memory).
   */
  private readonly listedAt = new Map<string, number>();

  private racilyUnchanged(dir: string): boolean {
    const rec = this.store.index.dir(dir);
    if (!rec || trusted(rec.mtime, rec.checked_at)) return false;
    const st = this.store.fs.stat(`${this.store.root}/${dir}`);
    if (!st?.isDir || st.mtime !== rec.mtime) return false;
    this.listedAt.set(dir, rec.checked_at);
    return true;
  }

  get now(): number {
    return this.store.nowSeconds();
  }

  /** The current memory, read from its file; refuses a missing or corrupt one. */
  memory(id: string): Memory {
    return this.read("memory", id);
  }

  relation(id: string): Relation {
    return this.read("relation", id);
  }

  /**
   * The current memory without parsing its file when the index provably has it (same stat,
   * indexed well after its last change); otherwise as memory(id). For passes over many records.
   */
  memoryQuick(id: string): Memory {
    this.settleCreated();
    const path = this.indexedAsIs("memory", id);
    const json = path === null ? undefined : this.store.index.recordJsonAt("memory", path);
    return json ? (JSON.parse(json) as Memory) : this.memory(id);
  }

  /**
   * The record's path when its file is provably the one the index holds (same stat, indexed well
   * after its last change), so what the index says of it is what the file says; else null.
   */
  indexedAsIs(kind: RecordKind, id: string): string | null {
    this.settleCreated();
    const at = this.store.locate(kind, id);
    const row = at && this.store.index.file(at.path);
    const same = at && row && row.problem === null && row.mtime === at.stat.mtime && row.size === at.stat.size && row.ino === at.stat.ino;
    return same && trusted(row.mtime, row.indexed_at) ? at.path : null;
  }

  private read<K extends RecordKind>(kind: K, id: string): K extends "memory" ? Memory : Relation {
    this.settleCreated();
    const at = this.store.locate(kind, id);
    if (!at) throw notFound(`${kind} ${id} not found`, { id });
    // a record read to be changed is not read through a link (the file, or its shard folder)
    this.store.refuseLink(dirOf(at.path));
    if (this.store.fs.isLink(`${this.store.root}/${at.path}`)) throw linkRefusal(this.store.root, at.path);
    const r = this.codec.readRecordFile(this.store.fs, `${this.store.root}/${at.path}`, kind, id);
    if (!r.ok) throw corrupt(`${kind} ${id} cannot be used: ${at.path} is ${r.problem}`, { id });
    return r.record as K extends "memory" ? Memory : Relation;
  }

  /** .meta.json as it is now, read under the lock. */
  meta(): StoreMeta {
    return this.store.rereadMeta();
  }

  /**
   * Change .meta.json as part of this transaction (a setting, the time of the last gc): read under
   * the lock, so a concurrent change to it is not overwritten, and committed with the rest.
   */
  updateMeta(change: (meta: StoreMeta) => StoreMeta): StoreMeta {
    const next = change(structuredClone(this.meta()));
    const checked = this.codec.validate("meta", next);
    if (!checked.ok) throw new Error(`invalid store metadata: ${checked.problem}`);
    // kept, as a replaced record is: a change that fails after this (a maintenance command taking
    // the role, then finding its memory gone) puts the old file back rather than leave a change no
    // journal entry names (never committed: the clones would differ, and git status show it)
    this.keepOld(META_FILE);
    writeAtomic(this.store.fs, this.store.root, META_FILE, checked.text);
    this.changed.push(META_FILE);
    this.left.set(META_FILE, checked.text);
    return this.store.rereadMeta();
  }

  memoryExists(id: string): boolean {
    return this.where("memory", id) !== undefined;
  }

  relationExists(id: string): boolean {
    return this.where("relation", id) !== undefined;
  }

  /**
   * Write a memory where its scope says: scope local under .memsync/local/ (never committed),
   * any other in the shared folders. A memory whose scope changed to or from local moves in this
   * same transaction (one operation, one journal entry). A global one is written anonymised.
   */
  putMemory(m: Memory, made?: { json: string; terms: string }): string {
    // `made`: m with the scope rules applied already, its canonical text and its recall terms
    // (an import's, made on a thread by the same functions)
    const memory = made ? m : withScopeRules(m);
    const place: Place = memory.scope === "local" ? "local" : "shared";
    const json = made ? made.json : this.codec.memoryToJson(memory);
    const before = this.where("memory", memory.id);
    const path = this.write("memory", memory.id, json, place);
    this.store.index.putMemory(memory, path, json, made?.terms);
    if (before && placeOf(before) !== place) this.moved.add(memory.id);
    return path;
  }

  /** A relation with a local memory at either end is local too (it would name that memory). */
  putRelation(r: Relation): string {
    const json = this.codec.relationToJson(r);
    const path = this.write("relation", r.id, json, this.relationPlace(r));
    this.store.index.putRelation(r, path, json);
    this.relationsPut.set(r.id, r);
    return path;
  }

  /** Whether a memory's file is not where its scope says (an edit by hand). */
  misplaced(m: Memory): boolean {
    const at = this.where("memory", m.id);
    return at !== undefined && placeOf(at) !== (m.scope === "local" ? "local" : "shared");
  }

  private isLocalMemory(id: string): boolean {
    if (this.goneLocal.has(id)) return true;
    const at = this.where("memory", id);
    return at !== undefined && placeOf(at) === "local";
  }

  private relationPlace(r: Relation): Place {
    return this.isLocalMemory(r.from_memory_id) || this.isLocalMemory(r.to_memory_id) ? "local" : "shared";
  }

  /**
   * At the end of a transaction: every relation it wrote, and every relation of a memory it moved,
   * is put where its ends now say (a relation written before its memory, as split does, or one
   * whose memory changed scope). A relation file that cannot be read stays where it is.
   */
  settlePlaces(): void {
    this.settleCreated();
    const ids = new Set(this.relationsPut.keys());
    if (this.moved.size) for (const rid of this.store.index.relationIdsTouching([...this.moved])) ids.add(rid);
    for (const rid of [...ids].sort()) {
      // one this transaction wrote and that is where its ends still say: nothing to read back
      const put = this.relationsPut.get(rid);
      const was = put && this.where("relation", rid);
      if (put && was !== undefined && placeOf(was) === this.relationPlace(put)) continue;
      const at = this.store.locate("relation", rid);
      if (!at) continue;
      const read = this.codec.readRecordFile(this.store.fs, `${this.store.root}/${at.path}`, "relation", rid);
      if (!read.ok) continue;
      const place = this.relationPlace(read.record);
      if (placeOf(at.path) === place) continue;
      const json = this.codec.relationToJson(read.record);
      this.store.index.putRelation(read.record, this.write("relation", rid, json, place), json);
    }
  }

  /**
   * A record this machine keeps local came back into the shared folders from the remote (another
   * machine used it while this one made it local, and a use wins over a deletion in a merge):
   * the local copy wins and the shared one is removed again (the next commit deletes it). A
   * shared relation naming a memory that is local here becomes local. Returns whether it changed.
   */
  keepLocal(kind: RecordKind, id: string): boolean {
    this.settleCreated();
    const { fs, root } = this.store;
    const exists = (p: string) => fs.stat(`${root}/${p}`)?.isFile === true;
    const shared = candidatePaths(kind, id, "shared").filter(exists);
    if (shared.length === 0) return false;
    const local = candidatePaths(kind, id, "local").find(exists);
    if (!local) {
      if (kind !== "relation") return false;
      const read = this.codec.readRecordFile(fs, `${root}/${shared[0]}`, "relation", id);
      if (!read.ok || this.relationPlace(read.record) === "shared") return false;
      this.putRelation(read.record); // moves it
      return true;
    }
    const read = this.codec.readRecordFile(fs, `${root}/${local}`, kind, id);
    if (!read.ok) return false; // a corrupt local copy: both stay, status reports them
    // a text another machine wrote meanwhile stays, in the local copy (core/local-kept-texts.ts)
    if (kind === "memory") {
      const copies = shared.map((p) => this.codec.readRecordFile(fs, `${root}/${p}`, "memory", id)).flatMap((r) => (r.ok ? [r.record] : []));
      read.record = keepSharedTexts(read.record as Memory, copies);
    }
    for (const p of shared) {
      this.freshen(kind, dirOf(p));
      this.removeAt(p);
    }
    // the local copy is the record again (the index may have set it aside as a duplicate)
    this.freshen(kind, dirOf(local));
    if (kind === "memory") this.putMemory(read.record as Memory);
    else this.putRelation(read.record as Relation);
    return true;
  }

  removeMemory(id: string): boolean {
    const at = this.where("memory", id);
    if (at && placeOf(at) === "local") this.goneLocal.add(id);
    return this.remove("memory", id);
  }

  removeRelation(id: string): boolean {
    return this.remove("relation", id);
  }

  relationsOf(id: string): { outgoing: Relation[]; incoming: Relation[] } {
    return this.store.relationsNow(id);
  }

  /** Ids of every relation from or to any of these memories. */
  relationIdsTouching(memoryIds: readonly string[]): string[] {
    return this.store.index.relationIdsTouching(memoryIds);
  }

  findRelation(from: string, to: string, type: string): string | undefined {
    return this.store.index.findRelation(from, to, type);
  }

  /** An earlier memory that says the same (see Memory.fingerprint), from the index. */
  findByFingerprint(fingerprint: string, project: string | null): string | undefined {
    return this.store.index.findByFingerprint(fingerprint, project);
  }

  /** The decay-scoring fields of every memory with these statuses, as the index has them now. */
  scoringRows(statuses: readonly string[]): ScoringRow[] {
    return this.store.index.scoringRows(statuses);
  }

  /** Once new records go to shards they do for the rest of the transaction (counting the index per record made a bulk write quadratic). */
  private sharding = false;
  /** The index's count of memories when this transaction first asked, and the new ones it wrote since. */
  private countedMemories: number | undefined;
  private newMemories = 0;
  /** The same for the local place alone. */
  private shardingLocal = false;
  private countedLocal: number | undefined;
  private newLocal = 0;

  private shardsNew(place: Place): boolean {
    const { layout, shard_threshold } = this.store.layoutSettings;
    if (place === "local") {
      // local records are counted apart: shards sized for the whole store held ~3 files each
      // (local-flatten.ts)
      if (this.shardingLocal) return true;
      if (layout !== "auto") return (this.shardingLocal = layout === "sharded");
      this.countedLocal ??= this.store.index.memoryCountUnder(LOCAL_RECORDS, shard_threshold);
      return (this.shardingLocal = this.countedLocal + this.newLocal >= shard_threshold);
    }
    if (this.sharding) return true;
    if (layout !== "auto") return (this.sharding = layout === "sharded");
    // counted once, then kept by hand: a count(*) per record made a bulk write quadratic
    this.countedMemories ??= this.store.index.memoryCount();
    return (this.sharding = this.countedMemories + this.newMemories >= shard_threshold);
  }

  private write(kind: RecordKind, id: string, json: string, place: Place): string {
    refuseUnwritable(kind, id, json);
    const { fs, root } = this.store;
    // a record keeps the path it has in its place; a new one goes where the layout says, which
    // needs the count of records: on an index that has never seen this store (a fresh clone),
    // look first. A record in the other place (its scope changed) moves: written here, removed there.
    const found = this.where(kind, id);
    // anything but a new record's file (a replacement, a move) reads or replaces files: those
    // being made are made first
    if (!this.bulk || found !== undefined) this.settleCreated();
    const existing = found !== undefined && placeOf(found) === place ? found : undefined;
    heartbeat(); // (a gc, a consolidation or an import writes thousands in one hold of the lock)
    const top = topDir(kind, place);
    if (!existing && !this.store.index.dir(top)) this.freshen(kind, top);
    const rel = existing ?? recordPath(kind, id, this.shardsNew(place), place);
    if (kind === "memory" && found === undefined) this.newMemories++;
    if (kind === "memory" && !existing && place === "local") this.newLocal++;
    const dir = dirOf(rel);
    this.freshen(kind, dir);
    if (found !== undefined && found !== rel) {
      this.freshen(kind, dirOf(found));
      this.movedFrom.push({ path: found, text: fs.readText(`${root}/${found}`) });
    }
    if (existing) this.noticeEditInPlace(kind, rel);
    if (!this.dirsThere.has(dir)) {
      if (!fs.stat(`${root}/${dir}`)?.isDir) {
        fs.mkdirp(`${root}/${dir}`);
        this.touched.add(top);
      }
      this.dirsThere.add(dir);
    }
    if (existing) this.keepOld(rel);
    // in bulk, a new file waits for the one flush at the end; a replaced one stays durable at
    // once (after a machine crash a torn new file can only be one no one was told of, which the
    // marker lets the next command remove; a torn replacement would lose the old record)
    const deferred = this.bulk && !existing;
    if (deferred && !this.store.bulkMarked) {
      writeBulkMarker(fs, root, this.store.nowMs());
      this.store.bulkMarked = true;
    }
    const logged = !deferred && this.logged(rel);
    const name = rel.slice(dir.length + 1);
    const expect = this.store.expectOwn;
    const onTemp = expect
      ? (temp: string) => {
          expect(dir, temp, EV.CREATE | EV.CLOSE_WRITE | EV.MOVED_FROM);
          expect(dir, name, EV.MOVED_TO);
        }
      : undefined;
    // a bulk write's new file is made off this thread where the store's disk port can; its index
    // row waits until it is there (settleCreated)
    const creator = deferred ? this.creator() : null;
    if (creator) {
      const temp = tempNameFor(name);
      onTemp?.(temp);
      creator.create(`${root}/${dir}`, temp, name, json);
      this.pendingRows.push({ rel, dir, kind, id });
      // the rows of files made meanwhile go in now, beside the threads, not all at the end
      if (this.pendingRows.length >= 256) this.indexMade(creator.ready());
    } else {
      writeAtomic(fs, `${root}/${dir}`, name, json, !deferred && !logged, onTemp);
      faultPoint("record");
    }
    if (deferred) {
      this.unsyncedFiles.push(rel);
      this.unsynced.add(dir);
    }
    if (!existing) this.created.push(rel);
    this.changed.push(rel);
    this.left.set(rel, json);
    const st = creator ? null : fs.stat(`${root}/${rel}`);
    if (logged) {
      if (st) this.redoStamps.set(rel, [st.ino, st.mtime]);
      else fs.fsyncDir(`${root}/${dir}`); // gone already (a racing hand removal): nothing to redo, as before
    }
    if (st) {
      this.store.index.putFile({ path: rel, dir, kind, id, mtime: st.mtime, size: st.size, ino: st.ino, indexed_at: this.store.nowMs(), problem: null });
    }
    this.touched.add(dir);
    if (found !== undefined && found !== rel) this.removeAt(found);
    this.placed(kind, id, rel);
    return rel;
  }

  /**
   * Remove many records at once (gc): the files one by one, the index rows in a few statements
   * (row by row, removing thousands of memories spent most of its time in SQLite). Returns the
   * ids removed; ids with no file are skipped.
   */
  removeMany(kind: RecordKind, ids: readonly string[]): string[] {
    this.settleCreated();
    const removed: string[] = [];
    const paths: string[] = [];
    const found = ids.flatMap((id) => {
      heartbeat(); // (gc removes thousands in one hold of the lock)
      const at = this.store.locate(kind, id);
      return at ? [{ id, at }] : [];
    });
    // every folder brought up to date before any file goes: a folder looked at later would take
    // this call's own removals (still in the index until the end) for changes made outside memsync
    for (const { at } of found) {
      heartbeat();
      this.freshen(kind, dirOf(at.path));
    }
    for (const { at } of found) {
      heartbeat(); // (a stat and a row read each: 0.2 s silent for gc's 5,348 at 10k, load 13)
      this.noticeEditInPlace(kind, at.path);
    }
    for (const { id, at } of found) {
      heartbeat();
      const dir = dirOf(at.path);
      this.store.fs.unlink(`${this.store.root}/${at.path}`);
      this.unplaced(at.path);
      this.changed.push(at.path);
      this.left.set(at.path, null);
      // no folder fsync for these removals (gc's hundreds of folders): a crash can only bring a
      // removed file back, never lose one, and the next gc removes it again
      this.touched.add(dir);
      paths.push(at.path);
      removed.push(id);
    }
    this.store.index.deleteFiles(kind, paths);
    return removed;
  }

  private remove(kind: RecordKind, id: string): boolean {
    this.settleCreated();
    const at = this.store.locate(kind, id);
    if (!at) return false;
    this.freshen(kind, dirOf(at.path));
    this.noticeEditInPlace(kind, at.path);
    this.removeAt(at.path);
    return true;
  }

  /**
   * Keep a record file's old version before the first replacement in this transaction: a second
   * name for the same file (a hard link, so a full disk does not refuse it), named as a temp file
   * so that one a killed process leaves is cleared like the others.
   */
  private keepOld(rel: string): void {
    if (this.replaced.has(rel)) return;
    const { fs, root } = this.store;
    // in the machine-local folder: a name made and removed in a record folder would move its
    // mtime after the transaction recorded it, and the next read would list the folder again
    const backup = `${LOCAL_DIR}/${BACKUP_PREFIX}${randomHex(8)}${TEMP_SUFFIX}`;
    try {
      fs.link(`${root}/${rel}`, `${root}/${backup}`);
    } catch {
      return; // a file system without hard links: the write goes on as before, unguarded
    }
    this.replaced.set(rel, backup);
  }

  /** The transaction failed: each replaced record gets its old file back (a rename). Best effort. */
  restoreReplaced(): void {
    const { fs, root } = this.store;
    for (const [rel, backup] of this.replaced) {
      try {
        fs.rename(`${root}/${backup}`, `${root}/${rel}`);
        fs.fsyncDir(`${root}/${dirOf(rel)}`);
        // the record was never replaced (its new file could not be written): both names are the
        // one file, and rename(2) then leaves both; the backup name goes
        if (fs.stat(`${root}/${backup}`)) fs.unlink(`${root}/${backup}`);
      } catch {
        // the next refresh indexes whatever is there; the backup, if left, is cleared when old
      }
    }
    this.replaced.clear();
  }

  /** The transaction succeeded: the old versions go. */
  dropBackups(): void {
    for (const backup of this.replaced.values()) {
      if (this.store.backupsLater) {
        // one left by a failure is cleared later as an old temp file
        this.store.fs.unlinkSoon(`${this.store.root}/${backup}`);
        continue;
      }
      try {
        this.store.fs.unlink(`${this.store.root}/${backup}`);
      } catch {
        // cleared later as an old temp file
      }
    }
    this.replaced.clear();
  }

  /** Remove a record file (its folder is current). */
  private removeAt(rel: string): void {
    heartbeat();
    this.settleCreated();
    const dir = dirOf(rel);
    this.store.expectOwn?.(dir, rel.slice(dir.length + 1), EV.DELETE);
    this.store.fs.unlink(`${this.store.root}/${rel}`);
    faultPoint("record");
    this.unplaced(rel);
    const made = this.created.indexOf(rel);
    if (made >= 0) {
      // made and removed by this transaction (a relation written before its memory, then moved
      // where its ends say): no change at that path at all
      this.created.splice(made, 1);
      this.left.delete(rel);
      this.redoStamps.delete(rel);
      for (let i = this.changed.indexOf(rel); i >= 0; i = this.changed.indexOf(rel)) this.changed.splice(i, 1);
      // and a failure must not put it back (it may name a local memory)
      for (let i = this.movedFrom.findIndex((m) => m.path === rel); i >= 0; i = this.movedFrom.findIndex((m) => m.path === rel)) this.movedFrom.splice(i, 1);
    } else {
      this.changed.push(rel);
      this.left.set(rel, null);
    }
    // a logged removal is redone after a crash (redo.ts); any other's folder is fsynced once, at
    // the end of the transaction (gc removes thousands of files)
    if (made < 0 && this.logged(rel)) this.redoStamps.set(rel, [0, Date.now()]);
    else this.unsynced.add(dir);
    this.store.index.deleteFile(rel);
    this.touched.add(dir);
  }

  /**
   * A file this transaction is about to replace or remove, changed in place outside memsync since
   * the index saw it (an editor that rewrites the same file leaves its folder's mtime as it was,
   * so the folder's refresh cannot see it): journal that edit first. One index row per file; the
   * bytes are compared only in the racy moment when the stat cannot tell.
   */
  private noticeEditInPlace(kind: RecordKind, rel: string): void {
    if (this.left.has(rel)) return; // written by this transaction already
    const abs = `${this.store.root}/${rel}`;
    const st = this.store.fs.stat(abs);
    const row = this.store.index.file(rel);
    if (!st?.isFile || !row) return;
    const same = row.mtime === st.mtime && row.size === st.size && row.ino === st.ino;
    if (same && (trusted(row.mtime, row.indexed_at) || (row.problem === null && sameAsIndexed(this.ctx, kind, rel)))) return;
    let text: string | undefined;
    try {
      text = this.store.fs.readText(abs);
    } catch {
      text = undefined;
    }
    if (text !== undefined && row.problem === null && text === this.store.index.recordJsonAt(kind, rel)) return;
    // a corrupt file as the index saw it: its edit was journaled then
    if (text !== undefined && row.problem !== null && row.seen && bytesSeen(text) === row.seen) return;
    this.store.journalOutside(rel, text);
  }

  /**
   * Remove the record files this transaction made (it failed; the index rolled back), and put
   * back those it moved to the other place. Best effort.
   */
  undoCreated(): void {
    this.stopCreating(); // a file still being made would outlive its removal
    for (const { path, text } of this.movedFrom.splice(0)) {
      try {
        writeAtomic(this.store.fs, `${this.store.root}/${dirOf(path)}`, path.slice(dirOf(path).length + 1), text);
      } catch {
        return; // the disk refuses even this: the copy in the other place stays, so nothing is lost
      }
    }
    for (const rel of this.created.splice(0)) {
      try {
        this.store.fs.unlink(`${this.store.root}/${rel}`);
      } catch {
        // already gone, or the disk refuses even this: the next refresh indexes what is there
      }
    }
  }

  /**
   * Remember the folders this transaction changed, as they are now. Called at its end, before
   * its journal entry: the removals become durable here, one fsync per folder.
   */
  recordDirs(): void {
    const { fs, root } = this.store;
    this.settleCreated();
    this.stopCreating();
    if (this.unsyncedFiles.length) {
      // the bulk write's files become durable here, before its journal entry: at once where the
      // file system can (syncfs), else one by one (removed since: nothing to sync)
      if (fs.syncAll(root)) this.unsynced.clear();
      else for (const rel of this.unsyncedFiles) if (fs.stat(`${root}/${rel}`)?.isFile) fs.fsyncFile(`${root}/${rel}`);
      this.unsyncedFiles.length = 0;
    }
    for (const dir of this.unsynced) fs.fsyncDir(`${root}/${dir}`);
    this.unsynced.clear();
    const now = this.store.nowMs();
    for (const dir of this.touched) {
      const st = this.store.fs.stat(`${this.store.root}/${dir}`);
      // a folder written without a listing keeps its last listing's time (racilyUnchanged)
      if (st?.isDir) this.store.index.setDir(dir, st.mtime, this.listedAt.get(dir) ?? now);
    }
  }
}
