import { faultPoint } from "../sync/fault.ts";
import type { StoreFs } from "./fs-port.ts";
import type { IndexDb } from "./index-db.ts";
import { LOCAL_KIND_DIR, LOCAL_RECORDS, type RecordKind } from "./layout.ts";
import { folderCurrent } from "./racy.ts";

// Machine-local records (scope `local`) used to go to shard folders once the whole store held
// shard_threshold memories, shared ones included: at 10k, 1,514 local records in 467 folders of
// ~3 files, which every status lists and stats (issue 16: -13% of status CPU with them flat). New
// local records now go flat until the local place itself holds the threshold (StoreTx.shardsNew);
// this moves those already in shard folders flat, once, under the write lock.
//
// Kill-safe by construction: each file moves by one rename that never replaces anything
// (renameNoReplace), so at any instant every record is at exactly one of its two candidate paths,
// which reads accept alike. The index rows move in the writer's transaction; a kill before it
// commits leaves rows naming the old paths in folders whose mtimes changed, so the next refresh
// lists both folders and indexes the files where they are (deletes before upserts: no duplicate).
// A flat file already there for the same id (a real second copy) is left alone, and reported as
// before.

export interface FlattenContext {
  fs: StoreFs;
  root: string;
  index: IndexDb;
  now(): number;
}

const KINDS: readonly RecordKind[] = ["memory", "relation"];

/**
 * Move local records out of shard folders while the local place is under `threshold`. Costs two
 * lookups in the index's folder rows when there is nothing to move (no stat, no listing).
 * Returns how many files moved.
 */
export function flattenLocalRecords(ctx: FlattenContext, threshold: number): number {
  const shardsByKind = KINDS.map((kind) => ({ kind, shards: ctx.index.subdirs(LOCAL_KIND_DIR[kind]) })).filter((k) => k.shards.length > 0);
  if (shardsByKind.length === 0) return 0;
  if (ctx.index.memoryCountUnder(LOCAL_RECORDS, threshold) >= threshold) return 0;
  const moved = { n: 0 };
  try {
    for (const { kind, shards } of shardsByKind) flattenKind(ctx, kind, shards.map((s) => s.path), moved);
  } catch (e) {
    // a file the disk would not move (no permission, a busy or odd file system) stops the moving,
    // not the write it came with: what moved has its rows, the rest is tried by the next write
    if (!/^E[A-Z0-9]+$/.test(String((e as { code?: unknown }).code))) throw e; // errno names alone (not ERR_SQLITE_*)
  }
  return moved.n;
}

function flattenKind(ctx: FlattenContext, kind: RecordKind, shards: string[], moved: { n: number }): void {
  const { fs, root, index } = ctx;
  const top = LOCAL_KIND_DIR[kind];
  // the top folder's row is recorded again afterwards only if the index had it right before:
  // then its listing is the old one plus exactly the names moved in
  const topRow = index.dir(top);
  const topBefore = fs.folderMtime(`${root}/${top}`);
  // nothing is moved through a symbolic link (the store refuses to write through one)
  if (topBefore === null || fs.isLink(`${root}/${top}`)) return;
  const topCurrent = folderCurrent(topRow, topBefore);
  const movedBefore = moved.n;
  for (const dir of shards) {
    let names: string[];
    try {
      if (fs.isLink(`${root}/${dir}`)) continue;
      names = fs.readdirNames(`${root}/${dir}`);
    } catch {
      continue; // gone, or not a folder: the next refresh sees what is there
    }
    const rows = new Map(index.stampsIn(dir).map((r) => [r.path, r]));
    let left = 0;
    for (const name of names) {
      const from = `${dir}/${name}`;
      const row = rows.get(from);
      const st = row ? fs.lstat(`${root}/${from}`) : null;
      // only a file the index has as it is: its row moves with it (anything else waits for a refresh)
      if (!row || row.problem !== null || !st?.isFile || st.isLink || st.mtime !== row.mtime || st.size !== row.size || st.ino !== row.ino) {
        left++;
        continue;
      }
      const to = `${top}/${name}`;
      if (!fs.renameNoReplace(`${root}/${from}`, `${root}/${to}`)) {
        left++;
        continue;
      }
      faultPoint("flatten");
      index.moveFile(from, to, top);
      moved.n++;
    }
    if (left === 0 && fs.rmdirIfEmpty(`${root}/${dir}`)) index.deleteDir(dir);
  }
  if (moved.n > movedBefore) {
    fs.fsyncDir(`${root}/${top}`);
    const after = fs.folderMtime(`${root}/${top}`);
    if (topCurrent && after !== null) index.setDir(top, after, ctx.now());
  }
}
