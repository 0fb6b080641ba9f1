import fs from "node:fs";
import os from "node:os";
import { env, runtimeName } from "../runtime/host.ts";
import { STAT_WORKER_URL } from "../stat-worker-url.ts";
import type { SnapshotNote } from "./folder-snapshot.ts";

// The stat threads of status's parallel snapshot (parallel-snapshot.ts), made apart from it: a
// thread, a new JS world, takes ~2.5 ms to start, so status's quick route makes them before
// loading the module that gives them their job (its graph ~1 ms at 10k; docs/benchmarks.md,
// status11). This module loads no more than the thread needs to be made.

/** A thread, started; it waits for its job (a SnapshotJob message). */
export interface Thread {
  worker: Worker | null;
  /** Names posted for finished units. */
  notes: Map<number, { temps: string[]; links: string[] }>;
  /** Resolves when the worker said it is done (true), or failed (false). */
  ended: Promise<boolean>;
  /** Whether it ended (said so, failed or closed): nothing left to stop. */
  over: boolean;
  /** Called whenever a note arrives. */
  onNote: (() => void) | null;
}

function cores(): number {
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

/**
 * Cores running nothing now: Linux's count of runnable threads at this instant (this one among
 * them, /proc/loadavg's fourth field), else the one-minute load average (which a benchmark's own
 * back-to-back runs keep near 1).
 */
function idleCores(n: number): number {
  try {
    const running = Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[3]?.split("/")[0]);
    if (Number.isInteger(running) && running > 0) return n - running;
  } catch {
    // not Linux: the average
  }
  return Math.round(n - os.loadavg()[0]!);
}

/** Threads to start besides the main one: one per idle core, at most 3 (MEMSYNC_STAT_THREADS sets it). */
export function threadCount(): number {
  const set = env("MEMSYNC_STAT_THREADS");
  if (set !== undefined) return Math.max(0, Math.min(16, Math.floor(Number(set)) || 0));
  const n = cores();
  return Math.max(0, Math.min(3, n - 1, idleCores(n)));
}

/** Whether threads can run here at all (Bun, shared memory). */
export const threadsPossible = (): boolean => runtimeName === "bun" && typeof SharedArrayBuffer !== "undefined";

/** A thread, started, its handlers set at once (so a failure at its start is never unheard). */
export function startThread(): Thread {
  const t: Thread = { worker: null, notes: new Map(), ended: Promise.resolve(false), over: true, onNote: null };
  let worker: Worker;
  try {
    worker = new Worker(STAT_WORKER_URL);
  } catch {
    return t;
  }
  t.worker = worker;
  t.over = false;
  t.ended = new Promise<boolean>((resolve) => {
    const end = (ok: boolean) => {
      t.over = true;
      resolve(ok);
    };
    worker.onmessage = (e: MessageEvent<SnapshotNote>) => {
      const note = e.data;
      if ("end" in note) end(true);
      else {
        t.notes.set(note.unit, { temps: note.temps, links: note.links });
        t.onNote?.();
      }
    };
    worker.onerror = (e) => {
      e.preventDefault(); // a thread's failure is not the process's: its folders are taken again
      end(false);
    };
    worker.addEventListener("close", () => end(false));
  });
  // never what keeps the process alive
  (worker as Worker & { unref?: () => void }).unref?.();
  return t;
}

/**
 * The threads for status's early snapshot, before anything else loads: for a store whose
 * memories folder (layout.ts KIND_DIR.memory) holds shard folders, the sign of a large one that
 * one stat gives while the index, which counts the files, is not open yet; none when no core is
 * idle. parallel-snapshot.ts startEarlySnapshot gives them their job.
 */
export function startEarlyThreads(root: string): Thread[] | null {
  if (!threadsPossible()) return null;
  try {
    const memories = fs.statSync(`${root}/memories`, { throwIfNoEntry: false });
    if (!memories || memories.nlink <= 2) return null;
  } catch {
    return null; // unreadable: status meets it itself
  }
  const n = threadCount();
  return n < 1 ? null : Array.from({ length: n }, () => startThread());
}
