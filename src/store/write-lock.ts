import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { currentPhase, heldHere, SilenceTrace } from "./lock-heartbeat.ts";
import { commandName, describeHolder, readHolderNote, removeHolderNote, writeHolderNote } from "./lock-holder.ts";

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

/**
 * A waiter gave up: SQLite's "database is locked", what the holder was doing (lock-holder.ts), and
 * why: the holder showed no progress for the busy timeout, or the waiter's own limit on its wait
 * passed (`waitedMs`) however busy the holder was (a server's request: WriteLock.open's `mostMs`).
 */
export class LockBusyError extends Error {
  constructor(
    readonly holder: string,
    readonly limitPassed: { waitedMs: number } | null = null,
  ) {
    super(`database is locked (${holder})`);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export class WriteLock {
  private depth = 0;
  private lastBeat = 0;
  private heldSince = 0;
  private noteWritten = false;
  private readonly trace: SilenceTrace;

  private constructor(
    private readonly path: string,
    private readonly db: DatabaseSync,
    private readonly timeoutMs: number,
    private readonly progress: () => string,
    private readonly mostMs: number,
  ) {
    this.trace = new SilenceTrace(path.slice(path.lastIndexOf("/") + 1));
  }

  /**
   * `progress` says something that changes whenever a holder finishes a change (the stat of the
   * index's WAL and of the journal): a waiter gives up only after `busyTimeoutMs` without any.
   * Under a crowd of writers on a loaded machine the lock passes from one to the next all the
   * time, yet a waiter's turn may come later than any fixed total (80 touches 25 at a time at load
   * 40 on 2 cores: a cap of four times the timeout refused one after 40 s while touches were
   * landing every second); a stuck holder is still given up on. `mostMs` caps every wait of this
   * lock however busy the holder is (a server's requests: an HTTP client waits for an answer, not
   * as long as a sync works, which can be minutes); none by default.
   */
  static open(path: string, busyTimeoutMs: number, progress: () => string = () => "", opts: { mostMs?: number } = {}): WriteLock {
    const db = new DatabaseSync(path);
    // no busy handler: begin() waits (see above)
    db.exec("PRAGMA busy_timeout = 0");
    // a holder's heartbeat (the lock file's mtime) counts as progress too
    const beats = () => {
      try {
        return String(fs.statSync(path).mtimeMs);
      } catch {
        return "-";
      }
    };
    return new WriteLock(path, db, Math.max(0, Math.floor(busyTimeoutMs)), () => `${progress()} ${beats()}`, opts.mostMs ?? Number.POSITIVE_INFINITY);
  }

  /** heartbeat() for this lock, while this process holds it. */
  beat(): void {
    if (this.depth === 0) return;
    this.trace.sign();
    const now = Date.now();
    if (now - this.lastBeat < 1_000) return;
    this.lastBeat = now;
    try {
      fs.utimesSync(this.path, now / 1000, now / 1000);
    } catch {
      // a waiter then sees no progress from this one: it gives up as before
    }
    this.writeNote(now);
  }

  /** This process moved to another phase (lock-heartbeat.ts inPhase): the holder's note says so. */
  phaseChanged(): void {
    if (this.depth > 0) this.writeNote(Date.now());
  }

  private writeNote(now: number): void {
    const { phase, since } = currentPhase();
    this.noteWritten = writeHolderNote(this.path, { pid: process.pid, command: commandName(), phase, held_since: this.heldSince, phase_since: Math.max(since, this.heldSince), at: now }) || this.noteWritten;
  }

  /** The lock was taken here (the first hold of it). */
  private took(): void {
    heldHere.add(this);
    this.heldSince = Date.now();
    this.trace.took();
  }

  /** Take the lock, waiting as open() says (blocking the thread); throws SQLite's "database is locked" after that. */
  private begin(): void {
    const tries = this.tries();
    for (let wait = tries(); wait !== null; wait = tries()) Atomics.wait(sleeper, 0, 0, wait);
    this.took();
  }

  /**
   * begin() without blocking the thread: a server waiting for the lock another process holds
   * still answers requests that need no lock (its health) meanwhile. The lock is counted as held
   * (depth) in the same step that takes it, so nothing running between the waits can begin a
   * second transaction on this connection.
   */
  private async beginAsync(instead?: () => unknown, deadline?: number): Promise<{ instead: unknown } | null> {
    const tries = this.tries(deadline);
    for (;;) {
      // another task of this process holds the lock (it took it while this one waited): wait for
      // its hold to end rather than join it; the no-progress bound counts on
      // asked before each try: a holder that makes it true does so before it lets the lock go
      const other = instead?.();
      if (other !== undefined) return { instead: other };
      const wait = this.depth > 0 ? tries(false) : tries(true);
      if (wait === null) break;
      await new Promise((r) => setTimeout(r, wait));
    }
    this.depth++;
    this.took();
    return null;
  }

  /**
   * One try at the lock each call (`attempt` false: only the waiting's bookkeeping): null once it
   * is taken, else how long to wait before the next try; SQLite's "database is locked" once
   * busyTimeoutMs passed without progress, or once `deadline` (Date.now() ms) passed however busy
   * the holders were.
   */
  private tries(deadline = Number.POSITIVE_INFINITY): (attempt?: boolean) => number | null {
    const start = Date.now();
    const ownLimit = start + this.mostMs;
    if (ownLimit < deadline) deadline = ownLimit;
    let seen: string | undefined;
    let lastProgress = start;
    let checkedAt = start;
    return (attempt = true) => {
      try {
        if (!attempt) throw new Error("database is locked (by this process)");
        this.db.exec("BEGIN IMMEDIATE");
        return null;
      } catch (e) {
        if (!isBusy(e)) throw e;
        const now = Date.now();
        if (now - checkedAt >= 100 || seen === undefined) {
          checkedAt = now;
          const p = this.progress();
          if (seen !== undefined && p !== seen) lastProgress = now;
          seen = p;
        }
        if (now - lastProgress >= this.timeoutMs) throw new LockBusyError(describeHolder(readHolderNote(this.path), now));
        if (now >= deadline) throw new LockBusyError(describeHolder(readHolderNote(this.path), now), { waitedMs: now - start });
        return Math.max(1, Math.min(pollInterval(now - start), deadline - now));
      }
    };
  }

  /**
   * Let the lock go. Ending the (empty) transaction can meet a waiter's momentary shared lock and
   * report busy; it must not fail (the change is made), so it is retried until it ends.
   */
  private release(): void {
    heldHere.delete(this);
    this.trace.left();
    if (this.noteWritten) {
      // (before the lock goes: a note never outlives its hold into the next holder's)
      removeHolderNote(this.path);
      this.noteWritten = false;
    }
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

  /**
   * Run fn holding the lock; a call inside a hold joins it. Every hold counts (depth), joined ones
   * too, and the last to end lets the lock go: a hold joined across an await (a write's, a
   * commit's) never outlives the lock.
   */
  hold<T>(fn: () => T): T {
    if (this.depth === 0) this.begin();
    this.depth++;
    try {
      return fn();
    } finally {
      this.leave();
    }
  }

  /** Hold the lock across asynchronous work (a commit through isomorphic-git), waiting for it without blocking the thread. */
  async holdAsync<T>(fn: () => Promise<T>): Promise<T> {
    const leave = await this.take();
    try {
      return await fn();
    } finally {
      leave();
    }
  }

  /**
   * holdAsync, unless `instead` gives a value (not undefined) while this process waits for the
   * lock: then fn never runs and that value is the answer (asked before each wait, never while
   * the lock is held here). `deadline` (Date.now() ms) ends the wait however busy the holders are.
   */
  async holdAsyncOr<T, U>(fn: () => Promise<T>, instead: () => U | undefined, opts: { deadline?: number } = {}): Promise<{ held: T } | { instead: U }> {
    if (this.depth > 0) return { held: await this.holdAsync(fn) };
    const other = await this.beginAsync(instead, opts.deadline);
    if (other) return { instead: other.instead as U };
    try {
      return { held: await fn() };
    } finally {
      this.leave();
    }
  }

  /**
   * Take the lock for work that follows (a write's synchronous steps), waiting without blocking the
   * thread; returns the release (once). Inside a hold already: joins it.
   */
  async take(): Promise<() => void> {
    if (this.depth > 0) this.depth++;
    else await this.beginAsync();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave();
    };
  }

  private leave(): void {
    this.depth--;
    if (this.depth === 0) this.release();
  }

  close(): void {
    this.db.close();
  }
}
