import type { StoreFs } from "./fs-port.ts";
import type { IndexDb } from "./index-db.ts";
import { type RecordKind, topDirs } from "./layout.ts";
import { folderCurrent } from "./racy.ts";

// Whether a quick refresh of these kinds would find nothing, told by the folders' mtimes alone in
// one tight loop: every top folder and every recorded shard folder has the mtime recorded for it,
// recorded long enough after it (racy.ts), or a top folder is absent and the index knows nothing
// under it. Exactly the folders refresh.ts planRefresh stats when it finds nothing, with the same
// rule; anything else (a folder moved, missing, untrusted or new to the index) says false and
// the caller plans as before, which lists what moved. A cold recall at 50k spent ~6 ms in the
// planner's walk of the 2 × 256 shard folders (its per-folder calls, not the stats: ~2.5 ms),
// and the stats stay: a hand edit inside a shard folder shows only in that folder's mtime.
// One walk for the Store (quickUnchanged) and the settled reads without it (settled-index.ts),
// each giving it the index and the disk through its own handles (FolderLook).

/** A folder's row in the index. */
export interface RecordedFolder {
  mtime: number;
  checked_at: number;
}

/** What the walk reads, from the index and the disk. */
export interface FolderLook {
  /** A top folder's row, and its recorded shard folders, each by its path under shardsAt's prefix. */
  recorded(top: string): { rec: RecordedFolder | undefined; subs: readonly (RecordedFolder & { path: string })[] };
  /** Whether the index knows any file directly in this top folder. */
  knowsFilesIn(top: string): boolean;
  /** The folders' stat: a top folder's by `base + top`, a shard folder's by `shardsAt(top).at + path`. */
  disk: Pick<StoreFs, "folderMtime">;
  /** The store's folder, with its slash. */
  base: string;
  /** The prefix of a top folder's shard paths, and what to do once they are stat'ed (the settled read stats them from inside the top folder). */
  shardsAt(top: string): { at: string; done?: () => void };
}

/** Whether every folder of these kinds is as the index recorded it, trusted (the module's comment). */
export function foldersUnchanged(look: FolderLook, kinds: readonly RecordKind[]): boolean {
  const disk = look.disk;
  for (const kind of kinds) {
    for (const top of topDirs(kind)) {
      const { rec, subs } = look.recorded(top);
      const mtime = disk.folderMtime(look.base + top);
      if (mtime === null) {
        // absent and unknown to the index: planRefresh has nothing to forget there
        if (rec !== undefined || subs.length > 0 || look.knowsFilesIn(top)) return false;
        continue;
      }
      if (!folderCurrent(rec, mtime)) return false;
      const { at, done } = look.shardsAt(top);
      try {
        for (const sub of subs) if (!folderCurrent(sub, disk.folderMtime(at + sub.path))) return false;
      } finally {
        done?.();
      }
    }
  }
  return true;
}

/** The Store's quick check: its index, its file system port. */
export function quickUnchanged(fs: StoreFs, index: IndexDb, root: string, kinds: readonly RecordKind[]): boolean {
  const base = `${root}/`;
  const shards = { at: base };
  return foldersUnchanged(
    {
      recorded: (top) => ({ rec: index.dir(top), subs: index.subdirs(top) }),
      knowsFilesIn: (top) => index.filesIn(top).length > 0,
      disk: fs,
      base,
      shardsAt: () => shards,
    },
    kinds,
  );
}
