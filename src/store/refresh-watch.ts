import type { StoreFs } from "./fs-port.ts";
import type { FolderWatch, WatchEvent } from "./folder-watch.ts";
import { OWN_BITS } from "./watch-events.ts";
import { isShardDirName, LOCAL_DIR, LOCAL_RECORDS, type RecordKind, topDirs } from "./layout.ts";

// When a long-running process may skip the quick refresh (store.ts refresh): the quick refresh
// stats every record folder (~500 for memories at 10k, as many for relations) to find what
// another process, a pull or a hand edit changed, and most requests of a server find nothing. A
// kind's scan is skipped only when, since its last complete scan:
// - no watched folder of that kind had an event (an entry added, removed or renamed, an attribute
//   changed, a file written in place, the folder itself removed or moved; or the queue overflowed),
//   the watches being set on every folder of the kind, and on the folders above them, before that
//   scan listed them;
// - no other connection committed to the index (SQLite's data_version), nor was it replaced.
// Otherwise the scan runs exactly as it would without a watch. Two kinds of event are not
// changes a scan could find: in a folder above the record folders, an entry that is not a record
// folder (the journal, the index's files, a backup of a replaced record: every write makes some);
// and in a record folder, the events this process's own write announced just before it made
// them (expect: its temp file made, written and renamed, the record's new name, a removal), each
// taken once, by name, at the next look. That write kept the index in step with those files, so
// its own events no longer cost the next read a scan of every folder; anything else in the same
// folder (a hand edit, another process's write: other names, or the same name once more) is an
// event as before. What a skip leaves undone is only
// bookkeeping: a folder or file found settled once its racy window has passed is recorded as
// trusted at the next scan instead (refresh.ts).

export const ALL_KINDS: readonly RecordKind[] = ["memory", "relation"];

/** Entries of the folders above the record folders that are (or hold) record folders. */
const RECORD_FOLDER_NAMES = new Set(["memories", "relations", "local"]);
const IN_ISDIR = 0x40000000;

export interface ScanToken {
  kinds: readonly RecordKind[];
  gens: Map<RecordKind, number>;
  version: string;
}

export class RefreshWatch {
  /** Events seen per kind; a kind is clean when its last complete scan began after all of them. */
  private readonly gen = new Map<RecordKind, number>(ALL_KINDS.map((k) => [k, 1]));
  private readonly cleanAt = new Map<RecordKind, number>(ALL_KINDS.map((k) => [k, 0]));
  private readonly versionAt = new Map<RecordKind, string>();
  private readonly kindsOf = new Map<number, readonly RecordKind[]>();
  /** Folders watched (store-relative) and their watch; a folder removed or moved away is forgotten. */
  private readonly watched = new Map<string, number>();
  /** Folders whose entries (shards) must be listed again before the next scan: changed, or never listed. */
  private readonly relist = new Set<number>();
  private broken = false;
  /** Watches of the folders above the record folders. */
  private readonly parents = new Set<number>();
  /** Events announced by this process's own writes, not yet seen: "wd/name" -> the mask bits still to come. */
  private readonly expected = new Map<string, number>();

  /**
   * This process is about to make these events in a record folder (store-relative), holding the
   * write lock and keeping the index in step with them; a folder not watched is left out (its
   * events, if any, count).
   */
  expect(dir: string, name: string, mask: number): void {
    const wd = this.watched.get(dir);
    if (wd === undefined || this.parents.has(wd)) return;
    const key = `${wd}/${name}`;
    this.expected.set(key, (this.expected.get(key) ?? 0) | mask);
  }

  /** Whether an event could change what a scan finds. */
  private counts(e: WatchEvent): boolean {
    if (this.parents.has(e.wd)) return e.name === "" || RECORD_FOLDER_NAMES.has(e.name);
    const key = `${e.wd}/${e.name}`;
    const left = this.expected.get(key);
    const bits = e.mask & OWN_BITS;
    if (left === undefined || bits === 0 || bits !== (e.mask & ~IN_ISDIR) || (left & bits) !== bits) return true;
    if (left & ~bits) this.expected.set(key, left & ~bits);
    else this.expected.delete(key);
    return false;
  }

  constructor(
    private readonly watch: FolderWatch,
    private readonly fs: StoreFs,
    private readonly root: string,
  ) {}

  /** Whether these kinds' folders and the index are as their last complete scan found them. */
  unchanged(kinds: readonly RecordKind[], version: string): boolean {
    const { events, gone, overflow } = this.watch.drain();
    for (const e of events) {
      if (!this.counts(e)) continue;
      for (const k of this.kindsOf.get(e.wd) ?? ALL_KINDS) this.bump(k);
      this.relist.add(e.wd);
    }
    // a write's own events are all queued by the time it returns (inotify queues inside the
    // system call): whatever was announced and not seen by now is not waited for
    this.expected.clear();
    for (const wd of gone) for (const [rel, w] of this.watched) if (w === wd) this.watched.delete(rel);
    if (overflow) {
      for (const k of ALL_KINDS) this.bump(k);
      this.watched.clear(); // everything watched and listed again
    }
    if (this.broken) return false;
    return kinds.every((k) => this.cleanAt.get(k) === this.gen.get(k) && this.versionAt.get(k) === version);
  }

  /** Before a scan of these kinds: every folder it lists is watched first (a change after the watch is seen). */
  begin(kinds: readonly RecordKind[], version: string): ScanToken {
    const token: ScanToken = { kinds, gens: new Map(kinds.map((k) => [k, this.gen.get(k)!])), version };
    if (!this.broken) for (const k of kinds) this.arm(k);
    return token;
  }

  /** After a scan that completed (its changes applied): its kinds are clean as of its start. */
  done(token: ScanToken | undefined): void {
    if (!token || this.broken) return;
    for (const k of token.kinds) {
      this.cleanAt.set(k, token.gens.get(k)!);
      this.versionAt.set(k, token.version);
    }
  }

  close(): void {
    this.broken = true;
    this.watch.close();
  }

  private bump(k: RecordKind): void {
    this.gen.set(k, this.gen.get(k)! + 1);
  }

  /**
   * Watch a folder (once: a folder already watched is not asked again); true when it is watched
   * and its entries need listing (new, or changed since). A folder that is there and cannot be
   * watched ends all skipping (the scans run as before).
   */
  private add(rel: string, kinds: readonly RecordKind[], parentOnly: boolean): boolean {
    const had = this.watched.get(rel);
    if (had !== undefined) return this.relist.delete(had);
    const wd = this.watch.add(`${this.root}/${rel}`, parentOnly);
    if (wd !== null) {
      if (parentOnly) this.parents.add(wd);
      const was = this.kindsOf.get(wd);
      this.kindsOf.set(wd, was && was !== kinds ? ALL_KINDS : kinds);
      this.watched.set(rel, wd);
      this.relist.delete(wd);
      return true;
    }
    if (this.fs.stat(`${this.root}/${rel}`)?.isDir) this.close(); // the watch limit, most likely
    return false;
  }

  private arm(kind: RecordKind): void {
    // the folders above: a record folder made or removed there changes them
    for (const rel of [".", LOCAL_DIR, LOCAL_RECORDS]) this.add(rel, ALL_KINDS, true);
    for (const top of topDirs(kind)) {
      // the folder before its listing, so a shard made after the listing is an event; a top
      // folder watched and unchanged since its last listing has no new shard to watch
      if (!this.add(top, [kind], false)) continue;
      let names: string[];
      try {
        names = this.fs.readdir(`${this.root}/${top}`).filter((e) => e.isDir && !e.isLink && isShardDirName(e.name)).map((e) => e.name);
      } catch {
        this.bump(kind); // gone meanwhile: scan again next time
        continue;
      }
      for (const n of names) {
        if (this.broken) return;
        this.add(`${top}/${n}`, [kind], false); // one gone meanwhile: its removal was an event
      }
    }
  }
}
