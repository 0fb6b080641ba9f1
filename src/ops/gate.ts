// One writer at a time inside this process, reads together (every face that runs operations
// concurrently in one process: the API server, MCP over stdio or HTTP, uses processGate). Writes also take the store's own
// cross-process lock (store/write-lock.ts), but that lock waits by blocking the thread: two writes
// of this one process must never wait on each other there, and no read may wait there while a
// write of this process holds it across an await (a commit), or the holder could never finish.
// So a write runs alone; reads run together between writes; arrivals are served in order (a
// waiting write holds back later reads, so a stream of reads never starves it).

type Waiter = { write: boolean; go: () => void };

export class Gate {
  private readers = 0;
  private writing = false;
  private readonly queue: Waiter[] = [];

  /** Run fn as a read (with other reads) or a write (alone). */
  async run<T>(write: boolean, fn: () => Promise<T>): Promise<T> {
    await this.enter(write);
    try {
      return await fn();
    } finally {
      this.leave(write);
    }
  }

  /** Nothing running and nothing waiting. */
  get idle(): boolean {
    return this.readers === 0 && !this.writing && this.queue.length === 0;
  }

  private canEnter(write: boolean): boolean {
    return write ? !this.writing && this.readers === 0 : !this.writing;
  }

  private enter(write: boolean): Promise<void> {
    if (this.queue.length === 0 && this.canEnter(write)) {
      this.take(write);
      return Promise.resolve();
    }
    return new Promise((go) => this.queue.push({ write, go }));
  }

  private take(write: boolean): void {
    if (write) this.writing = true;
    else this.readers++;
  }

  private leave(write: boolean): void {
    if (write) this.writing = false;
    else this.readers--;
    while (this.queue.length && this.canEnter(this.queue[0]!.write)) {
      const next = this.queue.shift()!;
      this.take(next.write);
      next.go();
    }
  }
}

/** The one gate of this process: the API's routes and the MCP tools run their operations through it. */
export const processGate = new Gate();
