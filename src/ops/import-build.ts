import { MessageChannel, type MessagePort as NodePort, receiveMessageOnPort } from "node:worker_threads";
import type { Fields } from "../core/import/plan.ts";
import type { Origin } from "../core/records.ts";
import { RECORD_WORKER_URL } from "../record-worker-url.ts";
import { runtimeName } from "../runtime/host.ts";

// A large import's memories built on worker threads (src/record-worker.ts) while the calling
// thread writes them: checking, redacting, the canonical text and the recall terms were a third
// of that thread's CPU at 10k (docs/benchmarks.md, branch import7). The write is one synchronous
// transaction, so the results are read from a port synchronously (receiveMessageOnPort), waiting
// on a shared counter the threads raise after each message. They are the same functions' results;
// whatever the threads do not give in time (a thread that fails or stalls), the caller builds
// itself (take returns null), so the threads change how fast, never what is written.

/** Planned memories sent to a thread per message. */
const CHUNK = 128;
/** Chunks sent ahead of the one being written (bounds what waits in memory). */
const AHEAD = 24;
/** Below this many memories the threads' start costs more than they save. */
const MIN_ITEMS = 1000;
/** No result for this long: the threads are given up and the caller builds the rest. */
const STALL_MS = 10_000;

/** A message to a thread: memories to build, each as [its place in the plan, its id, its fields]. */
export interface BuildJob {
  origin: Origin;
  items: [number, string, Fields][];
}

/** [place, canonical text, recall terms], or [place, null, why it is not a valid memory]. */
export type BuiltRecord = [number, string | null, string];

export interface RecordBuilder {
  /** The memory at this place of the plan as built by a thread, or null: build it here. */
  take(at: number): BuiltRecord | null;
  close(): void;
}

/** Threads for the builds: MEMSYNC_BUILD_THREADS (0: none), else 2. */
function threadCount(): number {
  const n = Number(process.env.MEMSYNC_BUILD_THREADS ?? "2");
  return Number.isInteger(n) && n >= 0 ? Math.min(n, 8) : 2;
}

/**
 * Start building the memories `item` names (its id and fields at each place of the plan; null:
 * not to be built, an invalid id), or null when threads are not worth it or not to be had (a
 * small import; Deno, where the calling thread builds them as before).
 */
export function startBuilding(count: number, item: (at: number) => readonly [string, Fields] | null, origin: Origin): RecordBuilder | null {
  const n = threadCount();
  if (n === 0 || count < MIN_ITEMS || runtimeName !== "bun" || typeof Atomics.wait !== "function") return null;
  try {
    return new ThreadBuilder(n, count, item, origin);
  } catch {
    return null;
  }
}

class ThreadBuilder implements RecordBuilder {
  private readonly workers: Worker[] = [];
  private readonly counter = new Int32Array(new SharedArrayBuffer(4));
  private readonly results: (BuiltRecord | undefined)[] = [];
  /** Places below this were sent. */
  private sentTo = 0;
  private chunks = 0;
  private broken = false;

  constructor(
    threads: number,
    private readonly count: number,
    private readonly item: (at: number) => readonly [string, Fields] | null,
    private readonly origin: Origin,
  ) {
    try {
      for (let i = 0; i < threads; i++) {
        const w = new Worker(RECORD_WORKER_URL);
        (w as { unref?: () => void }).unref?.(); // never what keeps the process alive
        this.workers.push(w);
        // each thread its results' port; one counter for all
        const { port1, port2 } = new MessageChannel();
        this.ports.push(port1);
        w.postMessage({ port: port2, counter: this.counter.buffer }, [port2] as unknown as Parameters<Worker["postMessage"]>[1]);
      }
      // the first chunks now: built while the transaction starts
      this.sendTo(AHEAD * CHUNK);
    } catch (e) {
      this.close();
      throw e;
    }
  }

  private readonly ports: NodePort[] = [];

  private sendTo(end: number): void {
    while (this.sentTo < Math.min(end, this.count)) {
      const items: [number, string, Fields][] = [];
      const to = Math.min(this.sentTo + CHUNK, this.count);
      for (let at = this.sentTo; at < to; at++) {
        const it = this.item(at);
        if (it) items.push([at, it[0], it[1]]);
      }
      this.sentTo = to;
      if (items.length) this.workers[this.chunks++ % this.workers.length]!.postMessage({ origin: this.origin, items } satisfies BuildJob);
    }
  }

  /** Take every result waiting on the ports; whether there was any. */
  private drain(): boolean {
    let any = false;
    for (const port of this.ports) {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
        for (const r of m.message as BuiltRecord[]) this.results[r[0]] = r;
        any = true;
      }
    }
    return any;
  }

  take(at: number): BuiltRecord | null {
    if (this.broken || at >= this.count) return null;
    try {
      this.sendTo(at + AHEAD * CHUNK);
    } catch {
      // a message that could not be sent: whatever was not built there is built here
      this.close();
      return null;
    }
    let since = Date.now();
    for (;;) {
      const r = this.results[at];
      if (r !== undefined) {
        this.results[at] = undefined;
        return r;
      }
      const seen = Atomics.load(this.counter, 0);
      if (this.drain()) {
        since = Date.now();
        continue;
      }
      if (Date.now() - since > STALL_MS) {
        this.close();
        return null;
      }
      Atomics.wait(this.counter, 0, seen, 50);
    }
  }

  /** Stop the threads; take gives nothing after (a transaction tried again builds its memories itself). */
  close(): void {
    this.broken = true;
    for (const w of this.workers.splice(0)) w.terminate();
    for (const p of this.ports.splice(0)) p.close();
  }
}
