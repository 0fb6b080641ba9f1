// The heartbeat of this process's held write locks, apart from the lock itself (node:sqlite): the
// merge driver and other light paths call heartbeat() without loading it. Also what this process
// is doing under them (its phase), which a waiter that gives up names in its error.

/** What a held lock does when this process says it is moving, or that it moved to another phase. */
export interface Beating {
  beat(): void;
  phaseChanged(): void;
}

/** The locks this process holds now (store/write-lock.ts adds and removes them). */
export const heldHere = new Set<Beating>();

/**
 * Say that what this process does under its locks is moving (a repack, a merge, a checkout of
 * thousands of files): the lock file's mtime, at most once a second, which every waiter's
 * progress check reads. Without it a holder busy for over the busy timeout (a repack under load:
 * 17 s) made another process's write give up, "store busy", though nothing was stuck. Cheap
 * enough to call once per item of a loop (a clock read while no lock is held or the last beat
 * is under a second old).
 */
export function heartbeat(): void {
  for (const lock of heldHere) lock.beat();
}

const NO_PHASE = { phase: "the command's own work", since: Date.now() };

/**
 * The phases running now, oldest first. A phase ends by removing its own entry, not by putting
 * back the one it found: in a server, phases of concurrent requests interleave across awaits, and
 * restoring the one found at the start left a phase that had ended named for good.
 */
const running: { phase: string; since: number }[] = [];

/** What this process is doing now (a sync's step: sync-trace.ts names them; the latest to start of those running) and since when (Date.now() ms). */
export function currentPhase(): { phase: string; since: number } {
  return running.at(-1) ?? NO_PHASE;
}

/**
 * Run fn as the named phase of this process (ended after it): a holder's heartbeat file says
 * it, so a waiter that gives up says what the holder was doing. A change of phase while a lock
 * is held is a sign of progress too.
 */
export async function inPhase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const entry = { phase: name, since: Date.now() };
  phaseChange(() => running.push(entry));
  try {
    return await fn();
  } finally {
    phaseChange(() => running.splice(running.lastIndexOf(entry), 1));
  }
}

function phaseChange(change: () => void): void {
  // (the end of the phase is a sign of the phase that ends)
  for (const lock of heldHere) lock.beat();
  const was = currentPhase();
  change();
  if (currentPhase() !== was) for (const lock of heldHere) lock.phaseChanged();
}

const traceOn = process.env.MEMSYNC_LOCK_TRACE === "1";
const traceMinMs = Number(process.env.MEMSYNC_LOCK_TRACE_MS) || 1_000;

/**
 * MEMSYNC_LOCK_TRACE=1: one stderr line for every stretch of at least MEMSYNC_LOCK_TRACE_MS
 * (default 1,000) during which this process held a lock and gave no sign of progress (no
 * heartbeat, no change of phase, no committed change): where a waiter's busy timeout can run
 * out though the holder is working. Off, a sign costs one boolean test. One per lock.
 */
export class SilenceTrace {
  private last = 0;
  private heldAt = 0;
  constructor(private readonly lock: string) {}

  /** The lock was taken. */
  took(): void {
    if (!traceOn) return;
    this.heldAt = this.last = Date.now();
  }

  sign(end = ""): void {
    if (!traceOn || this.heldAt === 0) return;
    const now = Date.now();
    const gap = now - this.last;
    if (gap >= traceMinMs) process.stderr.write(`memsync lock-trace: ${this.lock} silent ${gap} ms in ${currentPhase().phase}${end} (held ${now - this.heldAt} ms, pid ${process.pid})\n`);
    this.last = now;
  }

  /** The lock was let go. */
  left(): void {
    if (!traceOn || this.heldAt === 0) return;
    this.sign(" until the release");
    this.heldAt = 0;
  }
}
