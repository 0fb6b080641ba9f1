import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { MemsyncError, type ErrorCode, ERROR_CODES } from "../../core/errors.ts";
import { markSyncStarted } from "../hooks/background-sync.ts";

// The server's syncs: POST /v1/sync, the background loop (--sync-every) and the hook route all
// come here, and only one runs at a time (a request during a sync waits for that one's result).
// Each sync is a memsync process, as a hook's is: a sync holds the store's write lock across git
// work that awaits, and this process's writers wait for that lock by blocking the thread, so an
// in-process sync could be held up by the very server it runs in.

export type Direction = "sync" | "pull" | "push";

export interface SyncResult {
  direction: Direction;
  ok: boolean;
  started_at: string;
  finished_at: string;
  /** The sync's own JSON summary (memsync sync --json), when it succeeded. */
  outcome?: unknown;
  error?: { code: string; message: string };
}

export interface SyncState {
  running: boolean;
  /** Seconds between background syncs; null: none (POST /v1/sync only). */
  every_s: number | null;
  /** Background failures in a row (each doubles the wait, up to 16 times the interval). */
  failures: number;
  next_at: string | null;
  last: SyncResult | null;
}

export class SyncRunner {
  private current: Promise<SyncResult> | null = null;
  private last: SyncResult | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private nextAt: number | null = null;
  private stopped = false;

  constructor(
    private readonly root: string,
    /** How to run this memsync (runtime/self.ts). */
    private readonly self: readonly string[],
    private readonly everyMs: number | null = null,
  ) {}

  /** One sync, or the one already running. */
  run(direction: Direction = "sync"): Promise<SyncResult> {
    this.current ??= this.spawnOnce(direction).finally(() => {
      this.current = null;
    });
    return this.current;
  }

  /** run(), with a failure as a MemsyncError (for the API route). */
  async runOrThrow(direction: Direction = "sync"): Promise<unknown> {
    const r = await this.run(direction);
    if (r.ok) return r.outcome;
    const code = (r.error?.code ?? "internal") as ErrorCode;
    throw new MemsyncError(code in ERROR_CODES ? code : "internal", r.error?.message ?? "sync failed");
  }

  state(): SyncState {
    return {
      running: this.current !== null,
      every_s: this.everyMs === null ? null : this.everyMs / 1000,
      failures: this.failures,
      next_at: this.nextAt === null ? null : new Date(this.nextAt).toISOString(),
      last: this.last,
    };
  }

  /** Background syncs every everyMs; after a failure the wait doubles (at most 16 times). */
  start(): void {
    if (this.everyMs === null || this.stopped) return;
    const wait = this.everyMs * Math.min(2 ** this.failures, 16);
    this.nextAt = Date.now() + wait;
    this.timer = setTimeout(async () => {
      const r = await this.run("sync");
      this.failures = r.ok ? 0 : this.failures + 1;
      this.start();
    }, wait);
  }

  /** No more background syncs; resolves when a running one has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.nextAt = null;
    await this.current;
  }

  private spawnOnce(direction: Direction): Promise<SyncResult> {
    const started = new Date().toISOString();
    if (!fs.existsSync(path.join(this.root, ".meta.json"))) {
      // nothing to sync, and no folder made where the first save will make the store
      this.last = { direction, ok: false, started_at: started, finished_at: started, error: { code: "unavailable", message: `no store at ${this.root} yet` } };
      return Promise.resolve(this.last);
    }
    markSyncStarted(this.root, direction);
    const [cmd, ...pre] = this.self;
    return new Promise((resolve) => {
      const child = spawn(cmd!, [...pre, "--store", this.root, direction, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      const done = (r: Omit<SyncResult, "direction" | "started_at" | "finished_at">) => {
        this.last = { direction, started_at: started, finished_at: new Date().toISOString(), ...r };
        resolve(this.last);
      };
      child.on("error", (e) => done({ ok: false, error: { code: "unavailable", message: `could not start a sync: ${e.message}` } }));
      child.on("close", (code) => {
        let parsed: any = null;
        try {
          parsed = JSON.parse(out);
        } catch {}
        if (code === 0) return done({ ok: true, outcome: parsed });
        const line = err.trim().split("\n").pop()?.replace(/^memsync: /, "") ?? "";
        done({ ok: false, error: parsed?.error ?? { code: "internal", message: line || `sync exited ${code}` } });
      });
    });
  }
}
