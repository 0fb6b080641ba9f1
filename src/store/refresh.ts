import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { FileStat, StoreFs } from "./fs-port.ts";
import type { DirRow, FileRow, FileStamp, IndexDb } from "./index-db.ts";
import { idFromFileName, isShardDirName, placeOf, type RecordKind, topDir, topDirs } from "./layout.ts";
import { isTempName } from "./atomic-write.ts";
import { folderCurrent, trusted } from "./racy.ts";
import { addStamp, emptySums, sameSums, type StampSums } from "./stamp-sums.ts";
import type { Codec, ReadResult } from "./codec.ts";
import type { SeenFolder, SeenFolders } from "./folder-snapshot.ts";
import { DIR, FILE, folderLstat, type FolderLstat, NONE, OTHER } from "./folder-lstat.ts";
import { nodeFs } from "./fs-port.ts";
import { sha1Hex } from "../sync/sha1.ts";
import { heartbeat } from "./lock-heartbeat.ts";

// Keeping the index true to the files, whoever changed them (another memsync process, git, an
// editor). A folder's mtime moves whenever an entry in it is added, removed or renamed over, and
// every write memsync or git makes is one of those, so an unchanged folder needs no listing.
// A folder seen too soon after its last change is not trusted (racy.ts, git's racily clean rule).
// Edits made in place by an editor are found by a full refresh (memsync status, reindex), which
// stats every file and compares the stats by folder sums where it can (stamp-sums.ts).

export { RACY_FINE_MS, RACY_MS, trusted } from "./racy.ts";

export interface Change {
  row: FileRow;
  /** null until parsed: a plan made without the codec only says which files need reading. */
  result: ReadResult<RecordKind> | null;
  /** The text read (when parsed and readable): what an outside edit's journal entry records. */
  text?: string;
}

export interface Plan {
  dirs: { path: string; mtime: number | null }[];
  upserts: Change[];
  deletes: string[];
  /** Paths that changed on disk in folders the index already knew: edits no memsync write made. */
  outside: string[];
  /** Files found unchanged by content after their racy window: trusted from now on. */
  settles: string[];
  /**
   * Files found at a new inode with their row's mtime, size and bytes (a store copied with cp -a,
   * a backup restored): their rows take the new inode, not a re-index journaled as an outside edit.
   */
  moved: { path: string; ino: number }[];
  temps: string[];
  /** Symbolic links found in the record folders (status reports them; writes refuse to go through one). */
  links: string[];
  /**
   * When its folders were listed, if it is applied later than that (a look confirmed under the
   * lock, confirmLook): what the index records as their check and the settled files' (racy.ts),
   * so a hand edit made since, in the tick of a folder's mtime, leaves that folder untrusted.
   */
  at?: number;
}

export interface RefreshContext {
  fs: StoreFs;
  index: IndexDb;
  root: string;
  now: () => number;
  /** Present when files may be parsed; without it a plan only finds what changed. */
  codec: Codec | null;
  /** The record folders as threads saw them just before (parallel-snapshot.ts): read instead of the disk where present. */
  seen?: SeenFolders;
  /** The index's record folders, read ahead (readIndexFolders): a full refresh reads them instead of the index. */
  folders?: IndexFolders;
}

/**
 * What a full refresh reads of the index's record folders: each kind's folder sums, and each top
 * folder's row and recorded shard folders. status reads them while its threads stat, so the look
 * after the threads does not wait for them; a row changed since makes a difference the look
 * finds, and the locked refresh that follows reads everything again.
 */
export interface IndexFolders {
  sums: Map<RecordKind, Map<string, StampSums>>;
  tops: Map<string, { rec: DirRow | undefined; subs: DirRow[] }>;
}

export function readIndexFolders(index: IndexDb, kinds: readonly RecordKind[] = ["memory", "relation"]): IndexFolders {
  const folders: IndexFolders = { sums: new Map(), tops: new Map() };
  for (const kind of kinds) {
    folders.sums.set(kind, index.folderSums(kind));
    for (const top of topDirs(kind)) folders.tops.set(top, { rec: index.dir(top), subs: index.subdirs(top) });
  }
  return folders;
}

export function emptyPlan(): Plan {
  return { dirs: [], upserts: [], deletes: [], outside: [], settles: [], moved: [], temps: [], links: [] };
}

export function planIsEmpty(p: Plan): boolean {
  return p.dirs.length === 0 && p.upserts.length === 0 && p.deletes.length === 0 && p.settles.length === 0 && p.moved.length === 0;
}

/** Whether applying the plan parses record files (and so needs the schemas). */
export function planNeedsCodec(p: Plan): boolean {
  return p.upserts.length > 0 || p.deletes.length > 0;
}

/**
 * A plan made by a lock-free look (without the schemas), taken under the lock in place of listing
 * its folders again, when nothing it found or records moved since: each folder it records still
 * at the mtime it saw (or still gone), each file it takes in still at the stamps it saw (then read
 * and parsed, as the listing would), each settled or moved file still at its row's stamps, each
 * file it deletes still absent. null when anything differs: the caller plans again. The caller
 * checks that the index is the one the look read (IndexDb.dataVersion taken before it) and that
 * the look's clock was its start (`at`): a folder that changed since in a tick of its own has
 * another mtime (what this checks, or the next refresh's listing finds), and one that changed in
 * the tick the look saw is recorded as checked then, still racy, so the next refresh lists it.
 */
export function confirmLook(ctx: RefreshContext, look: Plan, at: number): Plan | null {
  for (const d of look.dirs) if (folderMtime(ctx, d.path, undefined) !== d.mtime) return null;
  const stamped = (path: string, want: { mtime: number; size: number; ino: number } | undefined): boolean => {
    const st = ctx.fs.stat(`${ctx.root}/${path}`);
    return want !== undefined && st?.isFile === true && st.mtime === want.mtime && st.size === want.size && st.ino === want.ino;
  };
  for (const path of look.settles) if (!stamped(path, ctx.index.file(path))) return null;
  for (const { path, ino } of look.moved) {
    const row = ctx.index.file(path);
    if (!row || !stamped(path, { ...row, ino })) return null;
  }
  for (const path of look.deletes) if (ctx.fs.stat(`${ctx.root}/${path}`)?.isFile) return null;
  const upserts: Change[] = [];
  for (const change of look.upserts) {
    if (!stamped(change.row.path, change.row)) return null;
    if (change.result) {
      upserts.push(change); // (a name that is no record's: nothing to read)
      continue;
    }
    if (!ctx.codec) return null;
    const { row } = change;
    let text: string | undefined;
    let result: ReadResult<RecordKind>;
    try {
      text = ctx.fs.readText(`${ctx.root}/${row.path}`);
      result = ctx.codec.parseRecordText(row.kind, text, row.id!);
    } catch (e) {
      result = { ok: false, problem: `unreadable (${(e as { code?: string }).code ?? String(e)})` };
    }
    const problem = result.ok ? null : result.problem;
    upserts.push({ row: { ...row, problem, seen: problem !== null && text !== undefined ? bytesSeen(text) : null }, result, text });
  }
  return { ...look, upserts, at };
}

/** Work out what differs between the files and the index, reading only what may have changed. */
export function planRefresh(ctx: RefreshContext, full: boolean, kinds: readonly RecordKind[] = ["memory", "relation"]): Plan {
  const plan = emptyPlan();
  // the shared folders and the machine-local ones (scope local): one more stat per kind when
  // there is no local record
  for (const kind of kinds) {
    // a full refresh compares most folders by their sums, and loads rows only for the others
    const rowsIn = full ? lazyRows(ctx, kind) : rowsFromIndex(ctx);
    const sums = full ? (ctx.folders?.sums.get(kind) ?? ctx.index.folderSums(kind)) : null;
    for (const top of topDirs(kind)) scanTop(ctx, plan, kind, top, full, "all", rowsIn, sums);
  }
  return plan;
}

/**
 * The plan for one folder a write is about to change: a shard alone, or a top folder with its
 * shard list (a new shard changes the top folder, so it must be current before it is recorded).
 */
export function planDir(ctx: RefreshContext, kind: RecordKind, dir: string): Plan {
  const plan = emptyPlan();
  const top = topDir(kind, placeOf(dir));
  // the top folder's own files and its list of shards, not what the shards hold: recording the
  // top folder's state says nothing of theirs (a shard's files change the shard's mtime only), and
  // looking into each of its 256 shards made every write of a flat-folder record 256 stats dearer
  if (dir === top || !ctx.fs.stat(`${ctx.root}/${dir}`)?.isDir) scanTop(ctx, plan, kind, top, false, "new");
  else scanLeaf(ctx, plan, kind, dir, ctx.index.dir(dir), false);
  return plan;
}

/**
 * The plan for the record files a checkout just wrote (store-relative paths; others are ignored).
 * In a folder the index knows, only those files are stat'ed and read (a pull of 100 files into the
 * flat folder need not stat its other ~1,000), and the folder's recorded mtime is left as it was:
 * its mtime moved, so the next refresh lists it and compares every file as always (an edit made in
 * place to another file there is found then, as it would have been before the pull). A folder the
 * index does not know yet (a new shard) is found through its top folder's listing, as a refresh
 * would find it. Nothing else is looked at (the 1,024 shard folders of the store are left to the
 * next refresh, which looks at every folder anyway).
 */
export function planWrittenFolders(ctx: RefreshContext, paths: Iterable<string>): Plan {
  const plan = emptyPlan();
  const all = [...paths];
  const tops = new Set<string>();
  const known = new Set<string>();
  for (const [dir, kind] of recordFolders(all)) {
    if (ctx.index.dir(dir) === undefined) tops.add(`${kind}\0${topDir(kind, placeOf(dir))}`);
    else known.add(dir);
  }
  const listed = new Set<string>();
  for (const key of tops) {
    const [kind, top] = key.split("\0") as [RecordKind, string];
    scanTop(ctx, plan, kind, top, false, "new");
    listed.add(top); // (its own files were compared by that listing)
  }
  const files = all.filter((p) => {
    const dir = p.slice(0, Math.max(0, p.lastIndexOf("/")));
    return known.has(dir) && !listed.has(dir);
  });
  if (files.length) mergePlans(plan, planPaths(ctx, files));
  return plan;
}

/** Add what `more` found to `plan`. */
function mergePlans(plan: Plan, more: Plan): void {
  plan.dirs.push(...more.dirs);
  plan.upserts.push(...more.upserts);
  plan.deletes.push(...more.deletes);
  plan.outside.push(...more.outside);
  plan.settles.push(...more.settles);
  plan.moved.push(...more.moved);
  plan.temps.push(...more.temps);
  plan.links.push(...more.links);
}

/** The record folder (a top folder or one of its shards) of each path that is in one, with its kind. */
function recordFolders(paths: Iterable<string>): Map<string, RecordKind> {
  const out = new Map<string, RecordKind>();
  for (const path of paths) {
    const slash = path.lastIndexOf("/");
    if (slash < 0) continue;
    const dir = path.slice(0, slash);
    if (out.has(dir)) continue;
    const kind = (["memory", "relation"] as const).find((k) => {
      const top = topDir(k, placeOf(path));
      return dir === top || (dir.startsWith(`${top}/`) && isShardDirName(dir.slice(top.length + 1)));
    });
    if (kind) out.set(dir, kind);
  }
  return out;
}

/**
 * The plan for these record files alone (store-relative paths; others are ignored): what a pull
 * is about to overwrite. Each is stat'ed against its row (racily clean ones read), so an edit
 * made in place there, which leaves its folder's mtime as it was, is found without looking at any
 * other file.
 */
export function planPaths(ctx: RefreshContext, paths: readonly string[]): Plan {
  const plan = emptyPlan();
  const byDir = new Map<string, { kind: RecordKind; names: string[] }>();
  const folders = recordFolders(paths);
  for (const path of new Set(paths)) {
    const dir = path.slice(0, Math.max(0, path.lastIndexOf("/")));
    const kind = folders.get(dir);
    if (!kind) continue;
    let d = byDir.get(dir);
    if (!d) byDir.set(dir, (d = { kind, names: [] }));
    d.names.push(path.slice(dir.length + 1));
  }
  for (const [dir, { kind, names }] of byDir) {
    const wanted = new Set(names.map((n) => `${dir}/${n}`));
    const rows = new Map(ctx.index.stampsIn(dir).filter((r) => wanted.has(r.path)).map((r) => [r.path, r]));
    // a name with no file: scanFiles skips it, and its row (left in `rows`) becomes a delete
    scanFiles(ctx, plan, kind, dir, names, indexedBefore(ctx, kind, dir), rows);
  }
  return plan;
}

/** The index's files of a folder, as path -> row. */
type RowsIn = (dir: string) => Map<string, FileStamp>;

const rowsFromIndex =
  (ctx: RefreshContext): RowsIn =>
  (dir) =>
    new Map(ctx.index.stampsIn(dir).map((r) => [r.path, r]));

/**
 * For a full refresh: a folder's rows when its sums did not settle it; past a few such folders
 * (a first refresh after a copy, which moved every inode) every row of the kind in one query.
 */
function lazyRows(ctx: RefreshContext, kind: RecordKind): RowsIn {
  let all: RowsIn | null = null;
  let asked = 0;
  const one = rowsFromIndex(ctx);
  return (dir) => {
    if (!all && ++asked > 16) all = prefetchedRows(ctx, kind);
    return all ? all(dir) : one(dir);
  };
}

/** Every row of the kind in one query, grouped by folder (not a query per shard). */
function prefetchedRows(ctx: RefreshContext, kind: RecordKind): RowsIn {
  const byDir = new Map<string, Map<string, FileStamp>>();
  for (const r of ctx.index.stampsOfKind(kind)) {
    let m = byDir.get(r.dir);
    if (!m) byDir.set(r.dir, (m = new Map()));
    m.set(r.path, r);
  }
  return (dir) => byDir.get(dir) ?? new Map();
}

/** `shards`: "all" looks into every shard folder (a refresh); "new" only into those the index does not know yet (a write into the top folder). */
function scanTop(
  ctx: RefreshContext,
  plan: Plan,
  kind: RecordKind,
  top: string,
  full: boolean,
  shards: "all" | "new" = "all",
  rowsIn: RowsIn = rowsFromIndex(ctx),
  sums: Map<string, StampSums> | null = null,
): void {
  const mtime = folderMtime(ctx, top);
  const ahead = full ? ctx.folders?.tops.get(top) : undefined;
  const rec = ahead ? ahead.rec : ctx.index.dir(top);
  const recordedSubs = ahead ? ahead.subs : ctx.index.subdirs(top);
  if (mtime === null) {
    if (rec || ctx.index.filesIn(top).length) forgetDir(ctx, plan, top);
    for (const sub of recordedSubs) forgetDir(ctx, plan, sub.path);
    return;
  }
  const listed = folderCurrent(rec, mtime);
  const asSeen = full && listed && sums ? shardsAsSeen(ctx, plan, top, sums) : null;
  // every shard folder listed seen settled against these same index folders (shardSettledBy: each
  // a recorded one), and as many recorded: the recorded ones are the listed ones, so nothing to
  // forget and no shard folder to visit (status's look, the compare done while the threads stat)
  if (asSeen && ahead && ctx.seen?.get(top)?.shardsSettled === true && recordedSubs.length === asSeen.length) {
    noteDir(ctx, plan, top, mtime, rec);
    return;
  }
  const known = new Map<string, DirRow>();
  for (const d of recordedSubs) known.set(d.path, d);
  let subs: string[];
  if (!full && listed) {
    subs = [...known.keys()];
  } else if (asSeen) {
    subs = asSeen;
    const present = new Set(subs);
    for (const d of recordedSubs) if (!present.has(d.path)) forgetDir(ctx, plan, d.path);
    noteDir(ctx, plan, top, mtime, rec);
  } else {
    const entries = ctx.fs.readdir(`${ctx.root}/${top}`);
    for (const e of entries) if (e.isLink) plan.links.push(`${top}/${e.name}`);
    const names = entries.filter((e) => !e.isDir).map((e) => e.name);
    if (!(listed && sums && unchangedBySums(plan, top, ctx.seen?.get(top)?.sums ?? folderSums(ctx, top, names, false), sums, false))) scanFiles(ctx, plan, kind, top, names, rec !== undefined, rowsIn(top));
    subs = entries.filter((e) => e.isDir && isShardDirName(e.name)).map((e) => `${top}/${e.name}`);
    const present = new Set(subs);
    for (const d of recordedSubs) if (!present.has(d.path)) forgetDir(ctx, plan, d.path);
    noteDir(ctx, plan, top, mtime, rec);
  }
  const seen = full && sums ? ctx.seen : undefined;
  for (const sub of subs) {
    if (shards !== "all" && known.has(sub)) continue;
    const rec = known.get(sub);
    // the usual shard folder of a status (a thread read it whole, its recorded listing stands,
    // its sums are the index's, no temp file nor link): what scanLeaf finds, without its calls
    // (~1.5 µs a folder in the interpreter, after the look)
    if (seen && rec && settledShard(seen.get(sub), rec, sums!.get(sub))) continue;
    scanLeaf(ctx, plan, kind, sub, rec, full, rowsIn, sums);
  }
}

/**
 * A shard folder a scanLeaf of a full refresh would leave as it is, decided from the threads'
 * read alone: read whole, its recorded mtime the one seen and trusted (so its listing stands), no
 * temp file nor link, its files' sums the index's (`indexed`).
 */
function settledShard(folder: SeenFolder | undefined, rec: DirRow, indexed: StampSums | undefined): boolean {
  const found = folder?.sums;
  return found !== undefined && folder!.stat?.isDir === true && folder!.stat.mtime === rec.mtime && found.temps.length === 0 && found.links.length === 0 && trusted(rec.mtime, rec.checked_at) && sameSums(found.disk, indexed);
}

/**
 * For status's threads (parallel-snapshot.ts finish): whether a shard folder as seen is one the
 * look's scanTop, given these index folders (read ahead, as the look then reads them), skips as
 * settled. Asked as each folder's read comes in, while the threads still stat, so that part of
 * the compare is shared with them instead of following the look (issue 16, status13). false for
 * a folder the index records no row of (a top folder, a new shard folder, another place).
 */
export function shardSettledBy(folders: IndexFolders): (dir: string, folder: SeenFolder) => boolean {
  const recorded = new Map<string, { rec: DirRow; sums: Map<string, StampSums> | undefined }>();
  for (const [kind, sums] of folders.sums) {
    for (const top of topDirs(kind)) for (const rec of folders.tops.get(top)?.subs ?? []) recorded.set(rec.path, { rec, sums });
  }
  return (dir, folder) => {
    const r = recorded.get(dir);
    return r !== undefined && settledShard(folder, r.rec, r.sums?.get(dir));
  };
}

function scanLeaf(
  ctx: RefreshContext,
  plan: Plan,
  kind: RecordKind,
  dir: string,
  rec: DirRow | undefined,
  full: boolean,
  rowsIn: RowsIn = rowsFromIndex(ctx),
  sums: Map<string, StampSums> | null = null,
): void {
  const seen = ctx.seen?.get(dir); // looked up once: most folders of a status end at the sums
  const mtime = folderMtime(ctx, dir, seen);
  if (mtime === null) {
    if (rec) forgetDir(ctx, plan, dir);
    return;
  }
  const listed = folderCurrent(rec, mtime);
  if (!full && listed) return;
  // its names alone: each is lstat'ed next, which tells a link or a folder as the listing would
  if (listed && sums && unchangedBySums(plan, dir, seen?.sums ?? folderSums(ctx, dir, ctx.fs.readdirNames(`${ctx.root}/${dir}`), true), sums, true)) return;
  const entries = ctx.fs.readdir(`${ctx.root}/${dir}`);
  for (const e of entries) if (e.isLink) plan.links.push(`${dir}/${e.name}`);
  const names = entries.filter((e) => !e.isDir).map((e) => e.name);
  scanFiles(ctx, plan, kind, dir, names, rec !== undefined || indexedBefore(ctx, kind, dir), rowsIn(dir));
  noteDir(ctx, plan, dir, mtime, rec);
}

/**
 * Whether what differs in this folder changed outside memsync: the folder was indexed before, or
 * it is a shard folder new under a top folder that was. memsync's own writes into a new shard
 * are in the index before any refresh looks (the transaction adds their rows), a pull's are taken
 * by absorb, and a first index (a clone, a rebuild) knows no top folder: a file the index lacks
 * in a new shard was put there by hand (a record moved into `memories/ab/`), and must be
 * journaled, or the next commit takes its old path's deletion alone and every other machine
 * loses the memory.
 */
function indexedBefore(ctx: RefreshContext, kind: RecordKind, dir: string): boolean {
  if (ctx.index.dir(dir) !== undefined) return true;
  const top = topDir(kind, placeOf(dir));
  return dir !== top && ctx.index.dir(top) !== undefined;
}

/**
 * A top folder whose recorded listing stands, read by the threads (folder-snapshot.ts): when its
 * files add up to the index's sums, its links and shard folders as their listing found them (the
 * folder not listed again here); null otherwise. A folder with temp files is left to the listing
 * here, which also reports a temp file that is a link as a link.
 */
function shardsAsSeen(ctx: RefreshContext, plan: Plan, top: string, sums: Map<string, StampSums>): string[] | null {
  const seen = ctx.seen?.get(top);
  if (!seen?.shards || !seen.sums || seen.sums.temps.length > 0 || !sameSums(seen.sums.disk, sums.get(top))) return null;
  for (const name of seen.sums.links) plan.links.push(`${top}/${name}`);
  return seen.shards;
}

/** A record folder's mtime (null: no folder there): as the threads saw it (`seen`: its entry, when the caller has it), if they did, else from the disk. */
function folderMtime(ctx: RefreshContext, dir: string, seen: SeenFolder | undefined = ctx.seen?.get(dir)): number | null {
  const stat = seen?.stat;
  if (stat === undefined) return ctx.fs.folderMtime(`${ctx.root}/${dir}`);
  return stat?.isDir ? stat.mtime : null;
}

/**
 * A folder whose listing cannot have changed (its mtime the recorded one, trusted): whether its
 * files' stamps (`found`: the sums, temp files and links of its names, stat'ed here or by the
 * threads, folder-snapshot.ts: the same stats, the same terms) add up to the index's sums, so
 * none was edited in place (stamp-sums.ts). When they do, the temp files and links found are
 * noted; when not, the caller compares row by row. `findLinks`: the names came from a plain
 * listing, so each was lstat'ed (else the caller noted the links).
 */
function unchangedBySums(plan: Plan, dir: string, found: NonNullable<SeenFolder["sums"]>, sums: Map<string, StampSums>, findLinks: boolean): boolean {
  if (!sameSums(found.disk, sums.get(dir))) return false;
  for (const name of found.temps) plan.temps.push(`${dir}/${name}`);
  if (findLinks) for (const name of found.links) plan.links.push(`${dir}/${name}`);
  return true;
}

/** The stamp sums of a folder's record files, and its temp files and (with findLinks) links, from the disk. */
function folderSums(ctx: RefreshContext, dir: string, names: string[], findLinks: boolean): NonNullable<SeenFolder["sums"]> {
  const disk = emptySums();
  const temps: string[] = [];
  const links: string[] = [];
  const base = `${ctx.root}/${dir}/`;
  // the usual answers through statx where there is one (folder-lstat.ts); a link, or a name it
  // could not stat, through the port as before
  let fast: FolderLstat | null = null;
  try {
    fast = ctx.fs === nodeFs ? folderLstat(`${ctx.root}/${dir}`) : null;
  } catch {
    // the port meets the error itself
  }
  try {
    for (const name of names) {
      heartbeat(); // (every loop over a store's files under the lock beats: lock-heartbeat.ts)
      if (isTempName(name)) {
        temps.push(name);
        continue;
      }
      const record = name.endsWith(".json") && !name.startsWith(".");
      if (!record && !findLinks) continue;
      const kind = fast ? fast.lstat(name) : NONE;
      if (fast && (kind === FILE || kind === DIR || kind === OTHER)) {
        const s = fast.stamp;
        if (record && kind === FILE) addStamp(disk, s[0]!, s[1]!, s[2]!);
        continue;
      }
      portStamp(ctx, base, name, record, findLinks, disk, links);
    }
  } finally {
    fast?.close();
  }
  return { disk, temps, links };
}

/** One name's stamp through the port: lstat (findLinks) or stat, a link's target stat'ed when its name is a record's. */
function portStamp(ctx: RefreshContext, base: string, name: string, record: boolean, findLinks: boolean, disk: StampSums, links: string[]): void {
  let st: (FileStat & { isLink?: boolean }) | null = findLinks ? ctx.fs.lstat(base + name) : ctx.fs.stat(base + name);
  if (findLinks && st?.isLink) {
    links.push(name);
    // a record file reached through a link is indexed by what it points at, as a listing's stat does
    st = record ? ctx.fs.stat(base + name) : null;
  }
  if (record && st?.isFile) addStamp(disk, st.mtime, st.size, st.ino);
}

/** Record a folder's new state only when it tells the next run something new. */
function noteDir(ctx: RefreshContext, plan: Plan, dir: string, mtime: number, rec: { mtime: number; checked_at: number } | undefined): void {
  if (!rec || rec.mtime !== mtime || (!trusted(rec.mtime, rec.checked_at) && trusted(mtime, ctx.now()))) {
    plan.dirs.push({ path: dir, mtime });
  }
}

function forgetDir(ctx: RefreshContext, plan: Plan, dir: string): void {
  for (const row of ctx.index.filesIn(dir)) {
    plan.deletes.push(row.path);
    plan.outside.push(row.path);
  }
  plan.dirs.push({ path: dir, mtime: null });
}

/** `known`: the folder was indexed before, so what differs now changed outside memsync. */
function scanFiles(ctx: RefreshContext, plan: Plan, kind: RecordKind, dir: string, names: string[], known: boolean, rows: Map<string, FileStamp>): void {
  // the texts the index has for the racily clean files, fetched together (a query per file was
  // most of a commit's refresh after a large write: every file it made is racy then)
  const racyPaths: string[] = [];
  for (const [p, r] of rows) if (r.problem === null && !trusted(r.mtime, r.indexed_at)) racyPaths.push(p);
  const racy = ctx.index.recordJsonsAt(kind, racyPaths);
  const indexedText = (path: string): string | undefined => (racy.has(path) ? racy.get(path) : ctx.index.recordJsonAt(kind, path));
  for (const name of names) {
    heartbeat();
    if (isTempName(name)) {
      plan.temps.push(`${dir}/${name}`);
      continue;
    }
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const path = `${dir}/${name}`;
    const st = ctx.fs.stat(`${ctx.root}/${path}`);
    if (!st?.isFile) continue;
    const row = rows.get(path);
    rows.delete(path);
    const same = row && row.mtime === st.mtime && row.size === st.size && row.ino === st.ino;
    if (same && !row.problem?.startsWith("duplicate")) {
      if (trusted(row.mtime, row.indexed_at)) continue;
      // racily clean: the stat cannot prove the file unchanged, its bytes can
      if (row.problem === null ? sameText(ctx, path, indexedText(path)) : sameSeen(ctx, path)) {
        if (trusted(st.mtime, ctx.now())) plan.settles.push(path);
        continue;
      }
    }
    // the same mtime and size at another inode (a copied store): its bytes tell; a re-index would
    // parse every file of the copy and journal each as an edit made outside memsync
    if (row && row.problem === null && row.ino !== st.ino && row.mtime === st.mtime && row.size === st.size && sameText(ctx, path, indexedText(path))) {
      plan.moved.push({ path, ino: st.ino });
      continue;
    }
    const id = idFromFileName(name);
    let text: string | undefined;
    let result: ReadResult<RecordKind> | null = null;
    if (!id) result = { ok: false, problem: "file name is not <uuid>.json" };
    else if (ctx.codec) {
      try {
        text = ctx.fs.readText(`${ctx.root}/${path}`);
        result = ctx.codec.parseRecordText(kind, text, id);
      } catch (e) {
        result = { ok: false, problem: `unreadable (${(e as { code?: string }).code ?? String(e)})` };
      }
    }
    const problem = result && !result.ok ? result.problem : null;
    plan.upserts.push({
      row: { path, dir, kind, id, mtime: st.mtime, size: st.size, ino: st.ino, indexed_at: ctx.now(), problem, seen: problem !== null && text !== undefined ? bytesSeen(text) : null },
      result,
      text,
    });
    if (known) plan.outside.push(path);
  }
  for (const path of rows.keys()) {
    plan.deletes.push(path);
    plan.outside.push(path);
  }
}

/** Whether a record file holds exactly the canonical JSON the index has for it. */
export function sameAsIndexed(ctx: Pick<RefreshContext, "fs" | "index" | "root">, kind: RecordKind, path: string): boolean {
  return sameText(ctx, path, ctx.index.recordJsonAt(kind, path));
}

/**
 * What the index keeps of a file with a problem (FileRow.seen): a hash of its text, or null when
 * the text did not decode cleanly (two such files could read the same: never taken as unchanged).
 */
export function bytesSeen(text: string): string | null {
  return text.includes("\uFFFD") ? null : sha1Hex(new TextEncoder().encode(text));
}

/** Whether a file with a problem holds the bytes the index saw there (its racy moment, as sameText for a valid one). */
function sameSeen(ctx: Pick<RefreshContext, "fs" | "index" | "root">, path: string): boolean {
  const seen = ctx.index.file(path)?.seen;
  if (!seen) return false;
  try {
    return bytesSeen(ctx.fs.readText(`${ctx.root}/${path}`)) === seen;
  } catch {
    return false;
  }
}

/** Whether a record file holds exactly this text (undefined: the index has none). */
function sameText(ctx: Pick<RefreshContext, "fs" | "root">, path: string, indexed: string | undefined): boolean {
  if (indexed === undefined) return false;
  try {
    return ctx.fs.readText(`${ctx.root}/${path}`) === indexed;
  } catch {
    return false;
  }
}

/** Apply a plan; the caller holds the write transaction. */
export function applyPlan(ctx: RefreshContext, plan: Plan): void {
  const { index } = ctx;
  const now = plan.at ?? ctx.now();
  for (const path of plan.settles) index.settleFile(path, now);
  for (const { path, ino } of plan.moved) index.settleFileAt(path, ino, now);
  if (!planNeedsCodec(plan)) {
    applyDirs(ctx, plan, now);
    return;
  }
  const codec = ctx.codec;
  if (!codec) throw new Error("applyPlan: this plan parses files and needs the codec");
  const upserts = [...plan.upserts];
  for (const path of plan.deletes) {
    heartbeat();
    const gone = index.deleteFile(path);
    // a copy set aside as a duplicate of the deleted file is now the record
    if (gone?.id && gone.problem === null) {
      for (const dup of index.duplicatesOf(gone.kind, gone.id)) {
        if (upserts.some((u) => u.row.path === dup.path)) continue;
        const result = codec.readRecordFile(ctx.fs, `${ctx.root}/${dup.path}`, dup.kind, dup.id);
        upserts.push({ row: { ...dup, problem: result.ok ? null : result.problem }, result });
      }
    }
  }
  for (const { row, result } of upserts) {
    heartbeat();
    let problem = row.problem;
    if (result === null) throw new Error(`applyPlan: ${row.path} was not parsed`);
    if (result.ok && row.id) {
      if (row.kind === "memory") {
        const other = index.memoryPath(row.id);
        if (other && other !== row.path && index.file(other)?.problem === null) {
          problem = `duplicate: memory ${row.id} is also stored at ${other}`;
        } else {
          const m = result.record as Memory;
          index.putMemory(m, row.path, codec.memoryToJson(m));
        }
      } else {
        const other = index.relationPath(row.id);
        if (other && other !== row.path && index.file(other)?.problem === null) {
          problem = `duplicate: relation ${row.id} is also stored at ${other}`;
        } else {
          const r = result.record as Relation;
          index.putRelation(r, row.path, codec.relationToJson(r));
        }
      }
    } else {
      // a file that turned bad no longer backs a record
      index.deleteFile(row.path);
    }
    index.putFile({ ...row, problem });
  }
  applyDirs(ctx, plan, now);
}

function applyDirs(ctx: RefreshContext, plan: Plan, now: number): void {
  for (const d of plan.dirs) {
    if (d.mtime === null) ctx.index.deleteDir(d.path);
    else ctx.index.setDir(d.path, d.mtime, now);
  }
}
