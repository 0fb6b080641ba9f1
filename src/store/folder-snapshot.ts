import fs from "node:fs";
import { isTempName } from "./atomic-write.ts";
import type { FileStat } from "./fs-port.ts";
import { addStamp, emptySums, type StampSums } from "./stamp-sums.ts";

// What a full refresh's compare by sums (refresh.ts, stamp-sums.ts) needs of one record folder,
// made ahead of it by any thread: the folder's stat, then, from one listing, the sums of its
// record files' stamps and the names of its temp files and symbolic links, each name stat'ed
// exactly as the refresh would (lstat; a link's target stat'ed when its name is a record's). The
// per-file work is done where the stats are made, so the refresh's own thread does one lookup
// per folder; a folder whose sums do not match, or that the snapshot lacks or could not read
// whole (an error other than "not found"), is compared from the disk as before.
// Threads (parallel-snapshot.ts) send folders back in a compact form: one array of numbers and
// one string of names joined by "/" (which no name holds).

const GONE = 0; // nothing there (ENOENT, ENOTDIR): the port's null
const FILE = 1;
const DIR = 2;
const OTHER = 3;
const UNREAD = -1; // an error other than "not found": the disk answers when asked

/** Per folder: unit, stat (code, mtime, size, ino), read whole (1/0), sums (n, mtimeHigh, mtimeLow, size, mixed), temp and link counts. */
const FOLDER_NUMS = 13;

export interface EncodedFolders {
  names: string;
  nums: Float64Array;
}

/** What the refresh reads of a folder in place of the disk. */
export interface SeenFolder {
  /** The folder's stat (a link followed), null when nothing was there; undefined: ask the disk. */
  stat: FileStat | null | undefined;
  /** undefined: not read whole; compare from the disk. */
  sums?: { disk: StampSums; temps: string[]; links: string[] };
}

/** Folders by absolute path. */
export type SeenFolders = Map<string, SeenFolder>;

class Unreadable extends Error {}

function notFound(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A stat as the port makes it: undefined for nothing there; Unreadable for any other failure. */
function statOf(take: () => fs.Stats | undefined): fs.Stats | undefined {
  try {
    return take();
  } catch (e) {
    if (notFound(e)) return undefined;
    throw new Unreadable();
  }
}

/** Collects the folders one thread takes. */
export class FolderRecorder {
  private readonly names: string[] = [];
  private readonly nums: number[] = [];

  /** Take one folder (absolute path) as unit `unit`. */
  take(unit: number, dir: string): void {
    const { nums } = this;
    nums.push(unit);
    let st: fs.Stats | undefined;
    try {
      st = statOf(() => fs.statSync(dir, { throwIfNoEntry: false }));
      if (!st) nums.push(GONE, 0, 0, 0);
      else nums.push(st.isFile() ? FILE : st.isDirectory() ? DIR : OTHER, Math.floor(st.mtimeMs), st.size, st.ino);
    } catch {
      nums.push(UNREAD, 0, 0, 0);
    }
    const seen = st?.isDirectory() ? this.read(dir) : null;
    if (!seen) {
      nums.push(0, 0, 0, 0, 0, 0, 0, 0);
      return;
    }
    const { sums, temps, links } = seen;
    nums.push(1, sums.n, sums.mtimeHigh, sums.mtimeLow, sums.size, sums.mixed, temps.length, links.length);
    for (const n of temps) this.names.push(n);
    for (const n of links) this.names.push(n);
  }

  /** The sums and names the refresh's compare by sums makes of this folder (refresh.ts unchangedBySums); null if unreadable. */
  private read(dir: string): { sums: StampSums; temps: string[]; links: string[] } | null {
    const sums = emptySums();
    const temps: string[] = [];
    const links: string[] = [];
    try {
      for (const name of fs.readdirSync(dir)) {
        if (isTempName(name)) {
          temps.push(name);
          continue;
        }
        const record = name.endsWith(".json") && !name.startsWith(".");
        const p = `${dir}/${name}`;
        let st = statOf(() => fs.lstatSync(p, { throwIfNoEntry: false }));
        if (st?.isSymbolicLink()) {
          links.push(name);
          // a record file reached through a link is indexed by what it points at
          st = record ? statOf(() => fs.statSync(p, { throwIfNoEntry: false })) : undefined;
        }
        if (record && st?.isFile()) addStamp(sums, Math.floor(st.mtimeMs), st.size, st.ino);
      }
    } catch {
      return null;
    }
    return { sums, temps, links };
  }

  encoded(): EncodedFolders {
    return { names: this.names.join("/"), nums: Float64Array.from(this.nums) };
  }
}

/** Add what one thread took; `paths[unit]` is each unit's folder. Returns the units added. */
export function addEncoded(seen: SeenFolders, enc: EncodedFolders, paths: readonly string[]): number[] {
  const names = enc.names === "" ? [] : enc.names.split("/");
  const { nums } = enc;
  const units: number[] = [];
  let n = 0;
  for (let i = 0; i < nums.length; i += FOLDER_NUMS) {
    const unit = nums[i]!;
    const path = paths[unit];
    if (path === undefined) throw new Error(`folder snapshot: unit ${unit} out of range`);
    const code = nums[i + 1]!;
    const stat = code === UNREAD ? undefined : code === GONE ? null : { mtime: nums[i + 2]!, size: nums[i + 3]!, ino: nums[i + 4]!, isDir: code === DIR, isFile: code === FILE };
    const folder: SeenFolder = { stat };
    if (nums[i + 5] === 1) {
      const disk: StampSums = { n: nums[i + 6]!, mtimeHigh: nums[i + 7]!, mtimeLow: nums[i + 8]!, size: nums[i + 9]!, mixed: nums[i + 10]!, unsure: 0 };
      const temps = names.slice(n, (n += nums[i + 11]!));
      const links = names.slice(n, (n += nums[i + 12]!));
      folder.sums = { disk, temps, links };
    }
    seen.set(path, folder);
    units.push(unit);
  }
  return units;
}
