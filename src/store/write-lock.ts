import { DatabaseSync } from "node:sqlite";

// The store's cross-process write lock: an IMMEDIATE transaction on a SQLite file that holds no
// data (.memsync/lock). SQLite's locks are the OS's byte-range locks, released when a process
// dies, so a crash never leaves the store locked; waiting is SQLite's busy timeout. The lock file
// is never moved or rebuilt, so every process always locks the same file, even while the index
// beside it is being replaced after damage.

export class WriteLock {
  private depth = 0;

  private constructor(private readonly db: DatabaseSync) {}

  static open(path: string, busyTimeoutMs: number): WriteLock {
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    return new WriteLock(db);
  }

  /** Run fn holding the lock; nested calls join the outer hold. */
  hold<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      this.db.exec("COMMIT");
    }
  }

  /** Hold the lock across asynchronous work (a commit through isomorphic-git). */
  async holdAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      return await fn();
    } finally {
      this.depth--;
      this.db.exec("COMMIT");
    }
  }

  close(): void {
    this.db.close();
  }
}
