import type { Stats } from "node:fs";
import { isTempName } from "./atomic-write.ts";
import { DIR as IS_DIR, FILE as IS_FILE, folderLstat, type FolderLstat, NONE, OTHER as IS_OTHER } from "./folder-lstat.ts";
import type { FileStat } from "./fs-port.ts";
import { type FolderScan, scanFolder } from "./folder-scan.ts";
import { lazyFs } from "./lazy-fs.ts";
import { addStamp, emptySums, type StampSums } from "./stamp-sums.ts";

// What a full refresh's compare by sums (refresh.ts, stamp-sums.ts) needs of one record folder,
// made ahead of it by any thread: the folder's stat, then, from one listing, the sums of its
// record files' stamps and the names of its temp files, symbolic links and shard folders (a top
// folder's tell the refresh which shard folders there are), each name stat'ed
// exactly as the refresh would (lstat; a link's target stat'ed when its name is a record's). The
// per-file work is done where the stats are made, so the refresh's own thread does one lookup
// per folder; a folder whose sums do not match, or that the snapshot lacks or could not read
// whole (an error other than "not found"), is compared from the disk as before.
// Threads (parallel-snapshot.ts) write each folder's numbers into shared memory.

const GONE = 0; // nothing there (ENOENT, ENOTDIR): the port's null
const FILE = 1;
const DIR = 2;
const OTHER = 3;
const UNREAD = -1; // an error other than "not found": the disk answers when asked
const SHARD_NAME = /^[0-9a-f]{2}$/; // layout.ts isShardDirName, without its module graph in the thread

/** Per folder: stat (code, mtime, size, ino), read whole (1/0), sums (n, mtimeHigh, mtimeLow, size, mixed), temp and link counts. */
export const FOLDER_NUMS = 12;

// What the threads of parallel-snapshot.ts share (here, so that the worker's module loads no more
// than this one).
/** What a worker is sent: shared memory (see DONE and SHARD_SLOTS) and the folders, by unit number. */
export interface SnapshotJob {
  claims: SharedArrayBuffer;
  results: SharedArrayBuffer;
  /** The top folders' shard folders (units below `tops`), SHARD_SLOTS numbers each. */
  shards: SharedArrayBuffer;
  tops: number;
  paths: string[];
  id: number;
  /** Fault injection for tests (MEMSYNC_STAT_WORKER_FAULT): "start", "midway", "hang". */
  fault?: string;
}

/** What a worker posts: a finished folder's temp files and links (few folders have any), or that it is done. */
export type SnapshotNote = { unit: number; temps: string[]; links: string[] } | { end: true };

/**
 * A top folder's shard folders in shared memory, so the usual read (shard folders, no temp file
 * nor link) needs no message, whose delivery waits on the main thread's event loop: their count,
 * then each one's number (its two hex digits), in listing order. 00-ff: 256 at most.
 */
export const SHARD_SLOTS = 257;

/** Write a top folder's shard folder names (SHARD_NAME each) at `at`. */
export function putShards(slots: Int16Array, at: number, shards: readonly string[]): void {
  slots[at] = shards.length;
  for (let k = 0; k < shards.length; k++) slots[at + 1 + k] = parseInt(shards[k]!, 16);
}

/** The names putShards wrote at `at`. */
export function getShards(slots: Int16Array, at: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < slots[at]!; k++) out.push(slots[at + 1 + k]!.toString(16).padStart(2, "0"));
  return out;
}

/**
 * The shared memory of one snapshot over n folders: claims[0] is the next unit to take,
 * claims[1 + u] who took unit u (a worker's id; the main thread leaves 0), claims[1 + n + u]
 * DONE or DONE_NOTED once the worker wrote unit u's numbers at results[u * FOLDER_NUMS] (and a
 * top folder's shard folders at shards[u * SHARD_SLOTS]).
 */
export const DONE = 1;
/** Done, and its names posted before the flag was set. */
export const DONE_NOTED = 2;

/** What a thread found of one folder: FOLDER_NUMS numbers, and the names of its temp files, links and shard folders (in listing order). */
export interface FolderRead {
  nums: number[];
  temps: string[];
  links: string[];
  shards: string[];
}

/** What the refresh reads of a folder in place of the disk. */
export interface SeenFolder {
  /** The folder's stat (a link followed), null when nothing was there; undefined: ask the disk. */
  stat: FileStat | null | undefined;
  /** undefined: not read whole; compare from the disk. */
  sums?: { disk: StampSums; temps: string[]; links: string[] };
  /**
   * A top folder's shard folders, from its read (made after the folder's stat above: a shard
   * folder made or removed in between is one the refresh finds new or gone, a difference that
   * sends it to the locked refresh): the refresh takes them instead of listing the folder again
   * when that stat shows the recorded listing. Store-relative paths (`memories/ab`).
   */
  shards?: string[];
  /**
   * A top folder's: every shard folder in `shards` was seen settled (refresh.ts shardSettledBy,
   * asked by status's look with the index folders it compares with), so the look need not visit
   * them one by one.
   */
  shardsSettled?: boolean;
}

/** Folders by store-relative path (as the refresh names them: no path made per folder to look one up). */
export type SeenFolders = Map<string, SeenFolder>;

class Unreadable extends Error {}

function notFound(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A stat as the port makes it: undefined for nothing there; Unreadable for any other failure. */
function statOf(take: () => Stats | undefined): Stats | undefined {
  try {
    return take();
  } catch (e) {
    if (notFound(e)) return undefined;
    throw new Unreadable();
  }
}

/** Stat and read one folder (absolute path) as the refresh's compare by sums would (refresh.ts unchangedBySums). */
export function readFolder(dir: string): FolderRead {
  let scan: FolderScan | null = null;
  try {
    scan = scanFolder(dir);
  } catch {
    // unreadable midway: the refresh compares it from the disk (and meets the error there)
    return { nums: [UNREAD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], temps: [], links: [], shards: [] };
  }
  if (scan) {
    // one open, one listing (folder-scan.ts); the odd names as below, by node:fs
    const { sums, odd } = scan;
    const temps: string[] = [];
    const links: string[] = [];
    const shards = scan.shards.filter((name) => SHARD_NAME.test(name));
    try {
      for (const name of odd) oddName(dir, name, sums, temps, links, shards);
    } catch {
      return { nums: [DIR, scan.mtime, scan.size, scan.ino, 0, 0, 0, 0, 0, 0, 0, 0], temps: [], links: [], shards: [] };
    }
    const nums = [DIR, scan.mtime, scan.size, scan.ino, 1, sums.n, sums.mtimeHigh, sums.mtimeLow, sums.size, sums.mixed, temps.length, links.length];
    return { nums, temps, links, shards };
  }
  const nums: number[] = [];
  const fs = lazyFs();
  let st: Stats | undefined;
  try {
    st = statOf(() => fs.statSync(dir, { throwIfNoEntry: false }));
    if (!st) nums.push(GONE, 0, 0, 0);
    else nums.push(st.isFile() ? FILE : st.isDirectory() ? DIR : OTHER, Math.floor(st.mtimeMs), st.size, st.ino);
  } catch {
    nums.push(UNREAD, 0, 0, 0);
  }
  const sums = emptySums();
  const temps: string[] = [];
  const links: string[] = [];
  const shards: string[] = [];
  if (!st?.isDirectory()) {
    nums.push(0, 0, 0, 0, 0, 0, 0, 0);
    return { nums, temps, links, shards };
  }
  let fast: FolderLstat | null = null;
  try {
    const names = fs.readdirSync(dir);
    fast = folderLstat(dir);
    for (const name of names) {
      if (isTempName(name)) {
        temps.push(name);
        continue;
      }
      const record = name.endsWith(".json") && !name.startsWith(".");
      // the usual answers from the fast call; a link, or a name it could not stat, from node:fs
      const kind = fast ? fast.lstat(name) : NONE;
      if (fast && (kind === IS_FILE || kind === IS_DIR || kind === IS_OTHER)) {
        const s = fast.stamp;
        if (record && kind === IS_FILE) addStamp(sums, s[0]!, s[1]!, s[2]!);
        else if (!record && kind === IS_DIR && SHARD_NAME.test(name)) shards.push(name);
        continue;
      }
      oddName(dir, name, sums, temps, links, shards);
    }
  } catch {
    // unreadable: the refresh compares it from the disk (and meets the error there)
    nums.push(0, 0, 0, 0, 0, 0, 0, 0);
    return { nums, temps: [], links: [], shards: [] };
  } finally {
    fast?.close();
  }
  nums.push(1, sums.n, sums.mtimeHigh, sums.mtimeLow, sums.size, sums.mixed, temps.length, links.length);
  return { nums, temps, links, shards };
}

/** One name through node:fs: a temp file noted, else lstat'ed (a link's target stat'ed when its name is a record's). Throws Unreadable. */
function oddName(dir: string, name: string, sums: StampSums, temps: string[], links: string[], shards: string[]): void {
  if (isTempName(name)) {
    temps.push(name);
    return;
  }
  const record = name.endsWith(".json") && !name.startsWith(".");
  const p = `${dir}/${name}`;
  const fs = lazyFs();
  let fst = statOf(() => fs.lstatSync(p, { throwIfNoEntry: false }));
  if (fst?.isSymbolicLink()) {
    links.push(name);
    // a record file reached through a link is indexed by what it points at
    fst = record ? statOf(() => fs.statSync(p, { throwIfNoEntry: false })) : undefined;
  }
  if (record && fst?.isFile()) addStamp(sums, Math.floor(fst.mtimeMs), fst.size, fst.ino);
  // a shard folder as a listing with types tells it (a link to a folder is none)
  else if (!record && fst?.isDirectory() && SHARD_NAME.test(name)) shards.push(name);
}

/** A folder as the refresh reads it, from its FOLDER_NUMS numbers at `at`. */
export function seenFolder(nums: ArrayLike<number>, at: number, temps: string[], links: string[]): SeenFolder {
  const code = nums[at]!;
  const stat = code === UNREAD ? undefined : code === GONE ? null : { mtime: nums[at + 1]!, size: nums[at + 2]!, ino: nums[at + 3]!, isDir: code === DIR, isFile: code === FILE };
  if (nums[at + 4] !== 1) return { stat };
  const disk: StampSums = { n: nums[at + 5]!, mtimeHigh: nums[at + 6]!, mtimeLow: nums[at + 7]!, size: nums[at + 8]!, mixed: nums[at + 9]!, unsure: 0 };
  return { stat, sums: { disk, temps, links } };
}

/**
 * The record folders read as a full refresh first asks for them, on this thread (no idle core for
 * a stat thread, or none started): each folder read whole once (readFolder: one open and one
 * listing where folder-scan.ts can), so the look asks no more of the disk for it. Made fresh for
 * one look: what a later refresh reads is read again.
 */
export class FolderReads extends Map<string, SeenFolder> {
  constructor(private readonly root: string) {
    super();
  }

  /** `dir`: store-relative. */
  override get(dir: string): SeenFolder {
    let folder = super.get(dir);
    if (folder === undefined) {
      const read = readFolder(`${this.root}/${dir}`);
      folder = seenFolder(read.nums, 0, read.temps, read.links);
      if (folder.sums) folder.shards = read.shards.map((name) => `${dir}/${name}`);
      super.set(dir, folder);
    }
    return folder;
  }
}
