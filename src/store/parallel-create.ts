// Making a file costs this kind of VM's ext4 ~280 µs of kernel time, even an empty one: an
// import's 13,000 new record files were ~4 s of system time on the import's one thread. A bulk
// write hands its new files to worker threads instead (each file as writeAtomic makes it, without
// an fsync: a temp name opened O_CREAT|O_EXCL, which never follows a link, then a rename), while
// its own thread goes on with the records' index rows. It waits for them (settle) before anything
// reads, replaces or removes a file and before the one flush that makes them durable, so the
// order of durable writes is what it was. The wait is Atomics.wait on a counter the threads share:
// the store's transaction is synchronous (one SQLite transaction), so it cannot await.

/** A made file's stat, as the store's port gives it (FileStat). */
export interface MadeStat {
  mtime: number;
  size: number;
  ino: number;
}

/** Makes new files (dir/temp written, then renamed to dir/name) somewhere other than this thread. */
export interface FileCreator {
  create(dir: string, temp: string, name: string, text: string): void;
  /**
   * Wait for every file started; throws the first failure as the call threw it (code, path).
   * Returns the stat of each file started since the last settle and not given by ready, in order
   * (null: not known).
   */
  settle(): (MadeStat | null)[];
  /** Without waiting: the stats of the next files in order that are made already (maybe none). */
  ready(): (MadeStat | null)[];
  /** Wait for every file started, ignoring failures, and stop the threads. */
  close(): void;
}

/** Files made on the calling thread before the threads are worth starting (a few ms each). */
const INLINE_FIRST = 64;
/** Files handed over per message. */
const BATCH = 128;
/** Without one file made in this long, the threads are taken for dead and the write fails. */
const STALL_MS = 120_000;

// run as a module worker from a Blob (no file of its own in the compiled binary). A message is a
// batch: its stats' shared buffer (its last 8 bytes: set once the batch is done), then dir, temp,
// name, text per file. Each file's stat is taken
// by its own descriptor after the write (the rename changes no mtime), so the waiting thread does
// not stat 13,000 files again. A failed file's temp is removed (a full disk fails the write after
// the open made it), as writeAtomic does, and the first failure kept for the waiting thread; the
// rest are still made.
const WORKER_SOURCE = `
import { closeSync, fstatSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
let state, errBytes;
const enc = new TextEncoder();
self.onmessage = (ev) => {
  const d = ev.data;
  if (d instanceof SharedArrayBuffer) { state = new Int32Array(d, 0, 3); errBytes = new Uint8Array(d, 12); return; }
  const out = new Float64Array(d[0]);
  for (let i = 1, k = 0; i < d.length; i += 4, k++) {
    const temp = d[i] + "/" + d[i + 1];
    try {
      const bytes = enc.encode(d[i + 3]);
      const fd = openSync(temp, "wx", 0o644);
      try {
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
        const st = fstatSync(fd);
        out[3 * k] = Math.floor(st.mtimeMs); out[3 * k + 1] = st.size; out[3 * k + 2] = st.ino;
      } finally { closeSync(fd); }
      renameSync(temp, d[i] + "/" + d[i + 2]);
    } catch (e) {
      out[3 * k + 2] = 0;
      try { unlinkSync(temp); } catch {}
      if (Atomics.compareExchange(state, 1, 0, 1) === 0) {
        const b = new TextEncoder().encode(JSON.stringify({ code: e?.code, syscall: e?.syscall, path: e?.path, message: String(e?.message ?? e) }));
        const n = Math.min(b.length, errBytes.length);
        errBytes.set(b.subarray(0, n));
        Atomics.store(state, 2, n);
      }
    }
    Atomics.add(state, 0, 1);
    Atomics.notify(state, 0);
  }
  Atomics.store(new Int32Array(d[0], d[0].byteLength - 8, 1), 0, 1);
};
`;

let workerUrl: string | undefined;

/** A batch's stats (mtime, size, ino per file), and its flag the thread sets once all are made. */
interface Batch {
  stats: Float64Array;
  done: Int32Array;
}

function newBatch(): Batch {
  const buf = new SharedArrayBuffer(BATCH * 3 * 8 + 8);
  return { stats: new Float64Array(buf, 0, BATCH * 3), done: new Int32Array(buf, BATCH * 3 * 8, 1) };
}

function statOf(m: { batch: Batch; at: number } | MadeStat | null): MadeStat | null {
  if (m === null || !("batch" in m)) return m;
  const s = m.batch.stats;
  const ino = s[3 * m.at + 2]!;
  return ino ? { mtime: s[3 * m.at]!, size: s[3 * m.at + 1]!, ino } : null;
}

/** Makes one file on the calling thread; its stat (null: not known). */
type Inline = (dir: string, temp: string, name: string, text: string) => MadeStat | null;

class WorkerCreator implements FileCreator {
  private workers: Worker[] | null = null;
  private batch: string[] = [];
  /** Each file started since the last settle: where its stat will be (its batch and slot there), or its stat. */
  private made: ({ batch: Batch; at: number } | MadeStat | null)[] = [];
  /** How many of made were given by ready. */
  private given = 0;
  private batchStats = newBatch();
  private next = 0;
  /** Files handed to the threads. */
  private posted = 0;
  private inlineLeft = INLINE_FIRST;
  private readonly shared = new SharedArrayBuffer(12 + 2048);
  /** [files finished, a failure seen, its bytes' length]; the failure as JSON after. */
  private readonly state = new Int32Array(this.shared, 0, 3);

  constructor(
    private readonly threads: number,
    private readonly inline: Inline,
  ) {}

  create(dir: string, temp: string, name: string, text: string): void {
    if (this.workers === null && this.inlineLeft > 0) {
      this.inlineLeft--;
      this.made.push(this.inline(dir, temp, name, text));
      return;
    }
    if (this.workers === null) this.workers = this.start();
    if (this.workers.length === 0) return void this.made.push(this.inline(dir, temp, name, text));
    this.made.push({ batch: this.batchStats, at: this.batch.length / 4 });
    this.batch.push(dir, temp, name, text);
    if (this.batch.length >= BATCH * 4) this.flush();
  }

  private start(): Worker[] {
    try {
      workerUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
      return Array.from({ length: this.threads }, () => {
        const w = new Worker(workerUrl!, { type: "module" });
        (w as { unref?: () => void }).unref?.(); // a process that fails elsewhere still exits
        w.postMessage(this.shared);
        return w;
      });
    } catch {
      return []; // no threads here: every file on this thread, as before
    }
  }

  private flush(): void {
    if (!this.batch.length || !this.workers?.length) return;
    this.workers[this.next++ % this.workers.length]!.postMessage([this.batchStats.stats.buffer, ...this.batch]);
    this.posted += this.batch.length / 4;
    this.batch = [];
    this.batchStats = newBatch();
  }

  private wait(): void {
    this.flush();
    let seen = Atomics.load(this.state, 0);
    let since = Date.now();
    while (seen < this.posted) {
      Atomics.wait(this.state, 0, seen, 1000);
      const now = Atomics.load(this.state, 0);
      if (now !== seen) {
        seen = now;
        since = Date.now();
      } else if (Date.now() - since > STALL_MS) {
        throw new Error(`making the record files stalled (${seen} of ${this.posted} made)`);
      }
    }
  }

  ready(): (MadeStat | null)[] {
    const out: (MadeStat | null)[] = [];
    if (Atomics.load(this.state, 1) !== 0) return out; // a failure: settle throws it
    for (; this.given < this.made.length; this.given++) {
      const m = this.made[this.given]!;
      if (m !== null && "batch" in m && Atomics.load(m.batch.done, 0) === 0) break;
      out.push(statOf(m));
    }
    return out;
  }

  settle(): (MadeStat | null)[] {
    this.wait();
    if (Atomics.load(this.state, 1) === 0) {
      const made = this.made.slice(this.given).map(statOf);
      this.made = [];
      this.given = 0;
      return made;
    }
    const bytes = new Uint8Array(this.shared, 12, Atomics.load(this.state, 2)).slice();
    let info: { code?: string; syscall?: string; path?: string; message?: string } = {};
    try {
      info = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      // cut short: the message alone
    }
    const e = new Error(info.message ?? "a record file could not be made") as Error & { code?: string; syscall?: string; path?: string };
    if (info.code) e.code = info.code;
    if (info.syscall) e.syscall = info.syscall;
    if (info.path) e.path = info.path;
    throw e;
  }

  close(): void {
    try {
      this.wait();
    } catch {
      // stalled: the threads go anyway (the caller is failing already, or the files are made)
    }
    for (const w of this.workers ?? []) w.terminate();
    this.workers = null;
  }
}

/** Threads for a bulk write's new files: MEMSYNC_CREATE_THREADS (0: none), else 2. */
function threadCount(): number {
  const n = Number(process.env.MEMSYNC_CREATE_THREADS ?? "2");
  return Number.isInteger(n) && n >= 0 ? Math.min(n, 16) : 2;
}

/** A creator over worker threads; files are made by `inline` until enough come, or where threads cannot be had. */
export function threadedCreator(inline: Inline): FileCreator {
  const n = threadCount();
  if (n === 0 || typeof Worker === "undefined" || typeof Atomics.wait !== "function") {
    let made: (MadeStat | null)[] = [];
    return {
      create: (dir, temp, name, text) => void made.push(inline(dir, temp, name, text)),
      settle: () => made.splice(0),
      ready: () => made.splice(0),
      close() {},
    };
  }
  return new WorkerCreator(n, inline);
}
