import { DatabaseSync } from "node:sqlite";

// The store's cross-process write lock: an IMMEDIATE transaction on a SQLite file that holds no
// data (.memsync/lock). SQLite's locks are the OS's byte-range locks, released when a process
// dies, so a crash never leaves the store locked. The lock file is never moved or rebuilt, so
// every process always locks the same file, even while the index beside it is being replaced.
//
// Waiting is ours, not SQLite's busy handler: that one backs off to polling every 100 ms, so under
// heavy contention (hooks and agents running dozens of memsync processes at once) a process that
// has waited long polls least often and loses the lock, release after release, to newcomers
// polling every few ms, until its timeout refuses it (4 of 200 concurrent touches were refused
// that way). Here a waiter polls faster the longer it has waited, so the lock goes roughly in
// order of arrival; jitter keeps waiters that arrived together from polling in step.

/** Poll interval (ms) after having waited `waited` ms: the longest waiters poll most often. */
export function pollInterval(waited: number): number {
  const jitter = 0.5 + Math.random();
  if (waited < 1_000) return 50 * jitter;
  if (waited < 5_000) return 25 * jitter;
  return 12 * jitter;
}

function isBusy(e: unknown): boolean {
  return e instanceof Error && /database is locked|SQLITE_BUSY/i.test(e.message);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export class WriteLock {
  private depth = 0;

  private constructor(
    private readonly db: DatabaseSync,
    private readonly timeoutMs: number,
    private readonly progress: () => string,
  ) {}

  /**
   * `progress` says something that changes whenever a holder finishes a change (the stat of the
   * index's WAL and of the journal): a waiter gives up only after `busyTimeoutMs` without any.
   * Under a crowd of writers on a loaded machine the lock passes from one to the next all the
   * time, yet a waiter's turn may come later than any fixed total (80 touches 25 at a time at load
   * 40 on 2 cores: a cap of four times the timeout refused one after 40 s while touches were
   * landing every second); a stuck holder is still given up on.
   */
  static open(path: string, busyTimeoutMs: number, progress: () => string = () => ""): WriteLock {
    const db = new DatabaseSync(path);
    // no busy handler: begin() waits (see above)
    db.exec("PRAGMA busy_timeout = 0");
    return new WriteLock(db, Math.max(0, Math.floor(busyTimeoutMs)), progress);
  }

  /** Take the lock, waiting as open() says; throws SQLite's "database is locked" after that. */
  private begin(): void {
    const start = Date.now();
    let seen: string | undefined;
    let lastProgress = start;
    let checkedAt = start;
    for (;;) {
      try {
        this.db.exec("BEGIN IMMEDIATE");
        return;
      } catch (e) {
        if (!isBusy(e)) throw e;
        const now = Date.now();
        if (now - checkedAt >= 100 || seen === undefined) {
          checkedAt = now;
          const p = this.progress();
          if (seen !== undefined && p !== seen) lastProgress = now;
          seen = p;
        }
        if (now - lastProgress >= this.timeoutMs) throw e;
        Atomics.wait(sleeper, 0, 0, pollInterval(now - start));
      }
    }
  }

  /**
   * Let the lock go. Ending the (empty) transaction can meet a waiter's momentary shared lock and
   * report busy; it must not fail (the change is made), so it is retried until it ends.
   */
  private release(): void {
    for (let i = 0; ; i++) {
      try {
        this.db.exec("COMMIT");
        return;
      } catch (e) {
        if (!isBusy(e) || i >= 100_000) throw e;
        Atomics.wait(sleeper, 0, 0, 0.2);
      }
    }
  }

  /** Whether this process holds the lock now (a call made inside a hold joins it). */
  get held(): boolean {
    return this.depth > 0;
  }

  /** Run fn holding the lock; nested calls join the outer hold. */
  hold<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.begin();
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      this.release();
    }
  }

  /** Hold the lock across asynchronous work (a commit through isomorphic-git). */
  async holdAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0) return fn();
    this.begin();
    this.depth++;
    try {
      return await fn();
    } finally {
      this.depth--;
      this.release();
    }
  }

  close(): void {
    this.db.close();
  }
}
