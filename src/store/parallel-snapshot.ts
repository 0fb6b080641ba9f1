import fs from "node:fs";
import { env } from "../runtime/host.ts";
import { DONE, DONE_NOTED, FOLDER_NUMS, getShards, readFolder, type SeenFolder, type SeenFolders, seenFolder, SHARD_SLOTS, type SnapshotJob } from "./folder-snapshot.ts";
import { type RecordKind, topDirs } from "./layout.ts";
import { startEarlyThreads, startThread, type Thread, threadCount, threadsPossible } from "./stat-threads.ts";

// A full refresh of a large store is mostly system calls: a stat of every record file and a
// listing of every folder (13,900 stats and 980 listings at 10k, ~3-4 µs each however they are
// made). `git status` spreads its lstats over threads; this does the same for status: worker
// threads and the main thread take the record folders from one shared counter (so a thread that
// starts late or is slowed takes fewer), each lists its folders and stats their entries
// (folder-snapshot.ts), and the main thread, once it has done its own other work, takes what is
// left and reads the others' results from shared memory, for the refresh to read instead of the
// disk. It never waits for a thread: a folder a thread took and has not finished (it failed, it
// hangs, the machine gave it no core) is taken again by the main thread. A thread only helps when
// a core is idle, so there is none while every core is busy (measured under load: a thread then
// made status slower); none under Deno, nor for a small store: the refresh then stats as before.

/** Below this many record files the threads' start (~3 ms each) costs more than they save. */
const DEFAULT_MIN_FILES = 2000;
/** How long the main thread waits for a finished folder's names (posted before it was marked done). */
const WAIT_MS = 2000;

export interface PendingSnapshot {
  /**
   * Take the folders left and read the threads' results: every record folder as seen. `settled`
   * (refresh.ts shardSettledBy) is asked of each shard folder as its read comes in, between the
   * folders this thread takes, and a top folder whose listed shard folders all are is marked
   * (SeenFolder.shardsSettled): the look's compare, done while the threads still stat.
   */
  finish(settled?: (dir: string, folder: SeenFolder) => boolean): Promise<SeenFolders>;
  /** Stop the threads (finish does; for a caller that gives up before it). */
  stop(): void;
}

const SHARD_NAMES = Array.from({ length: 256 }, (_, k) => k.toString(16).padStart(2, "0"));

/**
 * The folders a full refresh may look at (absolute paths), known without listing anything: each
 * top folder first, then every shard folder name under each (layout.ts isShardDirName: 00-ff)
 * that may hold any. So the threads start at once; a shard folder that is not there costs a
 * failed open and stat, and the top folders' reads tell which are (FolderRead.shards).
 */
function recordFolders(root: string, kinds: readonly RecordKind[]): { paths: string[]; rels: string[]; tops: number; shardsAt: Map<number, number> } {
  const tops = kinds.flatMap((kind) => topDirs(kind));
  const rels = [...tops];
  const shardsAt = new Map<number, number>(); // top unit -> the unit of its shard folder 00
  tops.forEach((top, u) => {
    if (!mayHoldFolders(`${root}/${top}`)) return;
    shardsAt.set(u, rels.length);
    for (const name of SHARD_NAMES) rels.push(`${top}/${name}`);
  });
  return { paths: rels.map((rel) => `${root}/${rel}`), rels, tops: tops.length, shardsAt };
}

/**
 * Whether a folder may have subfolders: not when its link count is exactly 2 (itself and "."; each
 * subfolder's ".." adds one where the file system counts them), as for a flat place (the local
 * records, issue 16: 512 failed opens of every status at 10k). A shard folder made after this stat
 * is in its top folder's read, and a folder the snapshot lacks is read by the refresh itself.
 */
function mayHoldFolders(dir: string): boolean {
  try {
    return fs.statSync(dir, { throwIfNoEntry: false })?.nlink !== 2;
  } catch {
    return true;
  }
}

/** Wait until every unit in `want` (unit -> thread id) has its note, or the time is up; the units still without. */
async function awaitNotes(threads: Thread[], want: Map<number, number>): Promise<Set<number>> {
  const missing = () => new Set([...want].filter(([u, id]) => !threads[id - 1]?.notes.has(u)).map(([u]) => u));
  if (missing().size === 0) return new Set();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await new Promise<void>((resolve) => {
    timer = setTimeout(resolve, WAIT_MS);
    for (const t of threads) t.onNote = () => void (missing().size === 0 && resolve());
  });
  clearTimeout(timer);
  return missing();
}

const KINDS: readonly RecordKind[] = ["memory", "relation"];

/** Threads started before the store was opened (startEarlySnapshot), for startSnapshot to take. */
let early: { root: string; pending: PendingSnapshot } | null = null;

/**
 * Start the threads for status before anything else (the command line's quick path, before the
 * command's modules load and the store opens: the thread's own start-up, a new JS world, then
 * overlaps them), or give their job to those it made already (stat-threads.ts startEarlyThreads:
 * for a store whose memories folder holds shard folders). startSnapshot takes them for the same
 * store, or stops them (a small store, another root). Their stats are older than anything status
 * reads of the index, as they are when started later.
 */
export function startEarlySnapshot(root: string, made?: Thread[] | null): void {
  if (early) {
    for (const t of made ?? []) t.worker?.terminate();
    return;
  }
  const threads = made === undefined ? startEarlyThreads(root) : made;
  if (!threads?.length) return;
  const pending = launch(root, KINDS, threads);
  if (pending) early = { root, pending };
}

/**
 * Start the threads for a full refresh of a store of about `files` record files (or take those
 * startEarlySnapshot started for it); null when it is not worth it or not possible here (the
 * refresh then stats as before).
 */
export function startSnapshot(root: string, files: number, kinds: readonly RecordKind[] = KINDS): PendingSnapshot | null {
  const min = Number(env("MEMSYNC_STAT_PARALLEL_MIN") ?? DEFAULT_MIN_FILES);
  const taken = early;
  early = null;
  if (taken && taken.root === root && kinds === KINDS && files >= min) return taken.pending;
  taken?.pending.stop();
  if (!threadsPossible() || files < min) return null;
  const n = threadCount();
  return n < 1 ? null : launch(root, kinds, Array.from({ length: n }, () => startThread()));
}

/** The threads, given the folders. */
function launch(root: string, kinds: readonly RecordKind[], threads: Thread[]): PendingSnapshot {
  const { paths, rels, tops, shardsAt } = recordFolders(root, kinds);
  // a top folder's shard folders as store-relative paths: the strings made above where there are
  // some (no path made per folder after the look), else made here
  const shardPaths = (u: number, names: readonly string[]): string[] => {
    const at = shardsAt.get(u);
    return names.map((name) => (at === undefined ? `${rels[u]}/${name}` : rels[at + parseInt(name, 16)]!));
  };
  // the same from a thread's numbers (folder-snapshot.ts putShards: each name's two hex digits)
  const slotPaths = (u: number, slots: Int16Array): string[] => {
    const at = shardsAt.get(u);
    if (at === undefined) return shardPaths(u, getShards(slots, u * SHARD_SLOTS));
    const out: string[] = [];
    const from = u * SHARD_SLOTS;
    for (let k = 0; k < slots[from]!; k++) out.push(rels[at + slots[from + 1 + k]!]!);
    return out;
  };
  // whether every one of a top folder's shard folders (store-relative) was seen settled: each
  // found among the units made for it (its two hex digits after the top's folder 00)
  const allSettled = (u: number, dirs: readonly string[], settledAt: Uint8Array): boolean => {
    const at = shardsAt.get(u);
    if (at === undefined) return dirs.length === 0;
    return dirs.every((dir) => {
      const unit = at + parseInt(dir.slice(-2), 16);
      return rels[unit] === dir && settledAt[unit] === 1;
    });
  };
  const claims = new SharedArrayBuffer(4 * (1 + 2 * paths.length));
  const results = new SharedArrayBuffer(8 * FOLDER_NUMS * paths.length);
  const shardSlots = new SharedArrayBuffer(2 * SHARD_SLOTS * tops);
  const fault = env("MEMSYNC_STAT_WORKER_FAULT");
  threads.forEach((t, k) => t.worker?.postMessage({ claims, results, shards: shardSlots, tops, paths, id: k + 1, ...(fault ? { fault } : {}) } satisfies SnapshotJob));
  // a thread that ended closed itself; one still running (its last folder taken again here, a
  // failure, a hang) is stopped
  const stop = () => {
    for (const t of threads) if (!t.over) t.worker?.terminate();
  };
  return {
    stop,
    async finish(settled) {
      try {
        const counter = new Int32Array(claims);
        const shared = new Float64Array(results);
        const slots = new Int16Array(shardSlots);
        const seen: SeenFolders = new Map();
        const shardsOf = new Map<number, string[]>(); // each top folder's shard folders, from its read
        const n = paths.length;
        // 1: a shard folder seen settled (only asked with `settled`)
        const settledAt = new Uint8Array(settled ? n : 0);
        const put = (u: number, folder: SeenFolder) => {
          seen.set(rels[u]!, folder);
          if (settled && u >= tops) settledAt[u] = settled(rels[u]!, folder) ? 1 : 0;
        };
        const take = (u: number) => {
          const r = readFolder(paths[u]!);
          if (u < tops) shardsOf.set(u, shardPaths(u, r.shards));
          put(u, seenFolder(r.nums, 0, r.temps, r.links));
        };
        // the threads' finished shard folders, in unit order up to the first one not finished:
        // read and judged between this thread's folders (one with names posted is left to the end)
        let next = tops;
        const gather = (upTo: number) => {
          for (; next < upTo; next++) {
            if (seen.has(rels[next]!)) continue;
            const state = Atomics.load(counter, 1 + n + next);
            if (state === DONE) put(next, seenFolder(shared, next * FOLDER_NUMS, [], []));
            else if (state !== DONE_NOTED) return;
          }
        };
        for (;;) {
          const u = Atomics.add(counter, 0, 1);
          if (u >= n) break;
          take(u);
          if (settled) gather(u);
        }
        // MEMSYNC_STAT_WORKERS_REQUIRED (tests): every thread must end well, so a binary whose
        // threads cannot start fails instead of quietly taking every folder itself
        if (env("MEMSYNC_STAT_WORKERS_REQUIRED") === "1") {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const ok = await Promise.race([Promise.all(threads.map((t) => t.ended)), new Promise<null>((r) => (timer = setTimeout(() => r(null), WAIT_MS * 5)))]);
          clearTimeout(timer); // a pending timer kept the process alive 10 s after its answer
          if (!ok || ok.some((e) => !e)) throw new Error("status: a stat thread did not answer (MEMSYNC_STAT_WORKERS_REQUIRED)");
        }
        // the threads' finished folders; a folder taken and not finished is taken again here
        const noted = new Map<number, number>();
        const again: number[] = [];
        for (let u = 0; u < paths.length; u++) {
          if (seen.has(rels[u]!)) continue;
          const state = Atomics.load(counter, 1 + paths.length + u);
          if (state === DONE || state === DONE_NOTED) {
            if (u < tops) shardsOf.set(u, slotPaths(u, slots));
            if (state === DONE) put(u, seenFolder(shared, u * FOLDER_NUMS, [], []));
            else noted.set(u, Atomics.load(counter, 1 + u));
          } else again.push(u);
        }
        const unnoted = await awaitNotes(threads, noted);
        for (const [u, id] of noted) {
          const note = threads[id - 1]?.notes.get(u);
          if (note && !unnoted.has(u)) put(u, seenFolder(shared, u * FOLDER_NUMS, note.temps, note.links));
          else again.push(u);
        }
        for (const u of again) take(u);
        // a top folder's shard folders, from its read (made after its stat: a folder made or
        // removed since is one the refresh finds listed or missing, never one it misses)
        for (let u = 0; u < tops; u++) {
          const folder = seen.get(rels[u]!);
          if (!folder?.sums) continue;
          folder.shards = shardsOf.get(u) ?? [];
          if (settled) folder.shardsSettled = allSettled(u, folder.shards, settledAt);
        }
        return seen;
      } finally {
        stop();
      }
    },
  };
}
