import { INDEX_FILE, linkedFixedPaths, LOCK_FILE, type OpenOptions, Store } from "../store/store.ts";
import { META_FILE } from "../store/layout.ts";
import type { FileStat } from "../store/fs-port.ts";
import { nodeFs } from "../store/fs-port.ts";

// One store kept open across the requests of a long-running process (`memsync serve`, `memsync
// mcp`), instead of an open, a refresh and a close per request. What a request sees is what a
// fresh open would see:
// - record files: every operation refreshes the index from the folders first, as it does after
//   a fresh open (a CLI write, a pull by the sync subprocess, a hand edit are found the same way);
// - the index's rows: SQLite's WAL shows each read the last commit of any process;
// - what Store.open reads once and keeps (.meta.json's settings, the index file, the lock file):
//   their stat is compared on every use, and any change (a settings change or a pull rewrote
//   .meta.json, another process rebuilt or replaced the index, the lock file was made anew) opens
//   the store again. A .meta.json changed too recently for its timestamp to prove it unchanged is
//   read again on the next use too, as refresh treats a racily clean folder;
// - what Store.open and a write check once per process (no fixed path and no record folder is a
//   symbolic link): the fixed paths are looked at on every use, the folders by every write.
// A store opened again while requests still use the old one is closed when the last of them ends.

/**
 * What a store open depends on, as a string that changes when any of it does: .meta.json's stat,
 * and the index's and the lock's inode (each is replaced, never rewritten in place, when it
 * changes; their size and mtime move with every write). `settled`: .meta.json was last changed
 * long enough ago that an edit in the same clock tick cannot hide behind an unchanged stat.
 */
function signature(root: string, stat: (p: string) => FileStat | null): { sig: string; settled: boolean } {
  const now = Date.now();
  const meta = stat(`${root}/${META_FILE}`);
  const ino = (rel: string) => stat(`${root}/${rel}`)?.ino ?? "-";
  const settled = meta !== null && now - meta.mtime > (meta.mtime % 1000 === 0 ? 2000 : 100);
  return { sig: `${meta ? `${meta.ino}:${meta.size}:${meta.mtime}` : "-"} ${ino(INDEX_FILE)} ${ino(LOCK_FILE)}`, settled };
}

/**
 * How far the index's WAL may grow before a request's commit checkpoints it after all (writes
 * without a pause for the upkeep to take: 16 MiB, ~400 touches or ~130 saves).
 */
export const WAL_BOUND_PAGES = 4_000;

export class KeptStore {
  private current: { store: Store; sig: string; settled: boolean } | null = null;
  private opening: Promise<Store> | null = null;
  private readonly users = new Map<Store, number>();
  private readonly retired = new Set<Store>();
  private closed = false;

  /** `options`: as Store.open takes them; a call whose environment has others opens its own store (ops/context.ts withStore). */
  constructor(
    readonly root: string,
    readonly options?: OpenOptions,
  ) {}

  private get open(): OpenOptions {
    return this.options ?? {};
  }

  /** Run fn with the kept store (opened, or opened again, as the header says). */
  async use<T>(fn: (store: Store) => T | Promise<T>): Promise<T> {
    const store = await this.acquire();
    this.users.set(store, (this.users.get(store) ?? 0) + 1);
    try {
      return await fn(store);
    } finally {
      const n = (this.users.get(store) ?? 1) - 1;
      if (n > 0) this.users.set(store, n);
      else {
        this.users.delete(store);
        if (this.retired.delete(store)) store.close();
      }
    }
  }

  /** Close the kept store (and any retired one no request uses any more). */
  close(): void {
    this.closed = true;
    this.retire();
  }

  private retire(): void {
    const old = this.current?.store;
    this.current = null;
    if (!old) return;
    if (this.users.has(old)) this.retired.add(old);
    else old.close();
  }

  private async acquire(): Promise<Store> {
    const fs = this.open.fs ?? nodeFs;
    const now = signature(this.root, (p) => fs.stat(p));
    // a fixed path made a symbolic link since: open again, which refuses it as a fresh open does
    if (this.current && this.current.sig === now.sig && this.current.settled && linkedFixedPaths(fs, this.root).length === 0) {
      // and the folders a write goes into are looked at again by this use (Store.refuseLink)
      this.current.store.forgetLinkChecks();
      return this.current.store;
    }
    if (this.current) this.retire();
    // concurrent first uses share one open
    this.opening ??= (async () => {
      try {
        const before = signature(this.root, (p) => fs.stat(p));
        const store = await Store.open(this.root, this.open);
        // a request's quick refresh is skipped while no record folder changed (store/refresh-watch.ts)
        await store.watchFolders();
        // the index's WAL is checkpointed between requests (ops/index-upkeep.ts), not inside one
        store.deferCheckpoints(WAL_BOUND_PAGES);
        // and a write answers without waiting for its backups' removal
        store.removeBackupsLater();
        // the signature as it was before the open: a change during it is seen on the next use
        // (the index file an open creates is seen then too, and the store is opened once more)
        if (!this.closed) this.current = { store, sig: before.sig, settled: before.settled };
        return store;
      } finally {
        this.opening = null;
      }
    })();
    const store = await this.opening;
    if (this.closed && !this.users.has(store)) {
      // closed meanwhile: this use still runs, on a store closed when it ends
      this.retired.add(store);
    }
    return store;
  }
}
