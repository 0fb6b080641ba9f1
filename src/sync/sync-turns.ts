import type { StoreFs } from "../store/fs-port.ts";
import { writeAtomic } from "../store/atomic-write.ts";
import { LOCAL_DIR } from "../store/layout.ts";

// Syncs of one store take turns (ops/sync.ts, the sync lock); a sync that waited for its turn
// while another began and succeeded after it was asked has nothing left to do: that one committed
// what was pending when it began (every write acknowledged before the waiter was asked) and
// fetched after that. The waiter takes that sync's outcome instead of running its own (on a busy
// machine, hooks' background syncs, a server's and the user's queue up: each ran whole before,
// and a waiter could lose the lock to newcomers for minutes).
//
// One machine-local file holds the number of the latest turn taken and what the latest
// successful sync did, written whole (an atomic rename) by the holder of the sync lock only: at
// its start (the turn number, before its commit and fetch) and at its success (before it lets
// the lock go). A killed sync writes no outcome. Not fsynced: after a machine crash the file is
// an older whole version, never a turn number behind an outcome.

const TURNS_FILE = "sync-turns.json";

export type SyncDirection = "sync" | "pull" | "push";

interface Turns {
  /** The latest turn taken. */
  turn: number;
  /** The latest turn that succeeded, its direction and its outcome. */
  done: { turn: number; direction: SyncDirection; outcome: unknown } | null;
}

function readTurns(fs: StoreFs, root: string): Turns {
  try {
    const v = JSON.parse(fs.readText(`${root}/${LOCAL_DIR}/${TURNS_FILE}`)) as Partial<Turns>;
    const turn = Number.isSafeInteger(v.turn) && (v.turn as number) >= 0 ? (v.turn as number) : 0;
    const d = v.done;
    const done = d && typeof d === "object" && Number.isSafeInteger(d.turn) && ["sync", "pull", "push"].includes(d.direction) ? d : null;
    return { turn, done };
  } catch {
    return { turn: 0, done: null };
  }
}

function writeTurns(fs: StoreFs, root: string, t: Turns): void {
  writeAtomic(fs, `${root}/${LOCAL_DIR}`, TURNS_FILE, `${JSON.stringify(t)}\n`, false);
}

/** The latest turn taken: read before waiting for the lock. */
export function latestTurn(fs: StoreFs, root: string): number {
  return readTurns(fs, root).turn;
}

/** Holding the sync lock: take the next turn (before any commit or fetch of this sync). */
export function takeTurn(fs: StoreFs, root: string): number {
  const t = readTurns(fs, root);
  writeTurns(fs, root, { turn: t.turn + 1, done: t.done });
  return t.turn + 1;
}

/** Holding the sync lock: this turn succeeded with this outcome. */
export function turnDone(fs: StoreFs, root: string, turn: number, direction: SyncDirection, outcome: unknown): void {
  writeTurns(fs, root, { turn, done: { turn, direction, outcome } });
}

/** What a sync does for a waiter that wants `direction`. */
const COVERS: Record<SyncDirection, readonly SyncDirection[]> = { sync: ["sync"], pull: ["sync", "pull"], push: ["sync", "push"] };

/**
 * The outcome of a sync that took its turn after `since` (the waiter's latestTurn) and succeeded,
 * when it did what the waiter wants; undefined otherwise.
 */
export function doneSince(fs: StoreFs, root: string, since: number, direction: SyncDirection): unknown {
  const d = readTurns(fs, root).done;
  return d && d.turn > since && COVERS[direction].includes(d.direction) ? d.outcome : undefined;
}
