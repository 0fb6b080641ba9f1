import fs from "node:fs";
import os from "node:os";
import { env, runtimeName } from "../runtime/host.ts";
import { STAT_WORKER_URL } from "../stat-worker-url.ts";
import { addEncoded, type EncodedFolders, FolderRecorder, type SeenFolders } from "./folder-snapshot.ts";
import { isShardDirName, type RecordKind, topDirs } from "./layout.ts";

// A full refresh of a large store is mostly system calls: a stat of every record file and a
// listing of every folder (13,900 stats and 980 listings at 10k, ~3-4 µs each however they are
// made). `git status` spreads its lstats over threads; this does the same for status: worker
// threads and the main thread take the record folders from one shared counter (so a thread that
// starts late or is slowed takes fewer), each lists its folders and stats their entries, and the
// main thread, once it has done its own other work, takes what is left and puts the results
// together for the refresh to read instead of the disk (folder-snapshot.ts). A thread
// that fails, hangs or never starts costs only time: every folder no thread reported is taken by
// the main thread at the end. Under Deno, or for a small store, there is no snapshot and the
// refresh stats as before.

/** What a worker is sent: the shared counter (slot 0; slot 1 + unit: who took it), the folders, its id. */
export interface SnapshotJob {
  claims: SharedArrayBuffer;
  paths: string[];
  id: number;
  /** Fault injection for tests (MEMSYNC_STAT_WORKER_FAULT): "start", "midway", "hang". */
  fault?: string;
}

/** Below this many record files the threads' start (~3 ms each) costs more than they save. */
const DEFAULT_MIN_FILES = 2000;
/** How long the main thread waits for a thread that took folders before taking them again itself. */
const WAIT_MS = 2000;

export interface PendingSnapshot {
  /** Take the folders left, wait for the threads: every record folder as seen. */
  finish(): Promise<SeenFolders>;
  /** Stop the threads (finish does; for a caller that gives up before it). */
  stop(): void;
}

function threadCount(): number {
  const set = env("MEMSYNC_STAT_THREADS");
  if (set !== undefined) return Math.max(0, Math.min(16, Math.floor(Number(set)) || 0));
  const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  return Math.max(0, Math.min(3, cores - 1));
}

/** The record folders a full refresh looks at: each top folder and its shard folders (absolute paths). */
function recordFolders(root: string, kinds: readonly RecordKind[]): string[] {
  const out: string[] = [];
  for (const kind of kinds) {
    for (const top of topDirs(kind)) {
      const dir = `${root}/${top}`;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // not there (or unreadable): the refresh asks the disk itself
      }
      out.push(dir);
      for (const e of entries) if (e.isDirectory() && isShardDirName(e.name)) out.push(`${dir}/${e.name}`);
    }
  }
  return out;
}

interface Thread {
  worker: Worker | null;
  result: Promise<EncodedFolders | null>;
}

function startThread(job: SnapshotJob): Thread {
  let worker: Worker;
  try {
    worker = new Worker(STAT_WORKER_URL);
  } catch {
    return { worker: null, result: Promise.resolve(null) };
  }
  const result = new Promise<EncodedFolders | null>((resolve) => {
    worker.onmessage = (e: MessageEvent<EncodedFolders>) => resolve(e.data);
    worker.onerror = (e) => {
      e.preventDefault(); // a thread's failure is not the process's: its folders are taken again
      resolve(null);
    };
    worker.addEventListener("close", () => resolve(null));
  });
  // never what keeps the process alive
  (worker as Worker & { unref?: () => void }).unref?.();
  worker.postMessage(job);
  return { worker, result };
}

/**
 * Start the threads for a full refresh of a store of about `files` record files; null when it is
 * not worth it or not possible here (the refresh then stats as before).
 */
export function startSnapshot(root: string, files: number, kinds: readonly RecordKind[] = ["memory", "relation"]): PendingSnapshot | null {
  const min = Number(env("MEMSYNC_STAT_PARALLEL_MIN") ?? DEFAULT_MIN_FILES);
  const n = threadCount();
  if (runtimeName !== "bun" || n < 1 || files < min || typeof SharedArrayBuffer === "undefined") return null;
  const paths = recordFolders(root, kinds);
  const claims = new SharedArrayBuffer(4 * (1 + paths.length));
  const fault = env("MEMSYNC_STAT_WORKER_FAULT");
  const threads = Array.from({ length: n }, (_, k) => startThread({ claims, paths, id: k + 1, ...(fault ? { fault } : {}) }));
  const stop = () => {
    for (const t of threads) t.worker?.terminate();
  };
  return {
    stop,
    async finish() {
      try {
        const counter = new Int32Array(claims);
        const mine = new FolderRecorder();
        for (;;) {
          const unit = Atomics.add(counter, 0, 1);
          if (unit >= paths.length) break;
          mine.take(unit, paths[unit]!);
        }
        // only a thread seen taking a folder is waited for; one not started yet finds none left
        const took = new Set<number>();
        for (let u = 0; u < paths.length; u++) took.add(Atomics.load(counter, 1 + u));
        const seen: SeenFolders = new Map();
        const done = new Set(addEncoded(seen, mine.encoded(), paths));
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), WAIT_MS)));
        // MEMSYNC_STAT_WORKERS_REQUIRED (tests): every thread must answer, so a binary whose
        // threads cannot start fails instead of quietly taking every folder itself
        const required = env("MEMSYNC_STAT_WORKERS_REQUIRED") === "1";
        const results = await Promise.all(threads.map((t, k) => (required || took.has(k + 1) ? Promise.race([t.result, timeout]) : null)));
        clearTimeout(timer);
        if (required && results.some((r) => r === null)) throw new Error("status: a stat thread did not answer (MEMSYNC_STAT_WORKERS_REQUIRED)");
        for (const r of results) if (r) for (const u of addEncoded(seen, r, paths)) done.add(u);
        // what a failed, slow or late thread took and did not report
        const rest = new FolderRecorder();
        for (let u = 0; u < paths.length; u++) if (!done.has(u)) rest.take(u, paths[u]!);
        addEncoded(seen, rest.encoded(), paths);
        return seen;
      } finally {
        stop();
      }
    },
  };
}
