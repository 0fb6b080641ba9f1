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

export function quickUnchanged(fs: StoreFs, index: IndexDb, root: string, kinds: readonly RecordKind[]): boolean {
  for (const kind of kinds) {
    for (const top of topDirs(kind)) {
      const rec = index.dir(top);
      const subs = index.subdirs(top);
      const mtime = fs.folderMtime(`${root}/${top}`);
      if (mtime === null) {
        // absent and unknown to the index: planRefresh has nothing to forget there
        if (rec !== undefined || subs.length > 0 || index.filesIn(top).length > 0) return false;
        continue;
      }
      if (!folderCurrent(rec, mtime)) return false;
      const base = `${root}/`;
      for (const sub of subs) {
        const m = fs.folderMtime(base + sub.path);
        if (!folderCurrent(sub, m)) return false;
      }
    }
  }
  return true;
}
