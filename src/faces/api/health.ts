import type { Hono } from "hono";
import { isMemsyncError, unavailable } from "../../core/errors.ts";
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { withStore } from "../../ops/context.ts";
import { type Health, type StatusOutcome, unpushed } from "../../ops/status.ts";
import { EDITION } from "../../runtime/edition.ts";
import { JOURNAL_FILE } from "../../store/journal.ts";
import { countWholeLines } from "../../store/journal-count.ts";
import type { ApiContext } from "./context.ts";
import { errorResponse } from "./errors.ts";

// `GET /v1/health`: cheap facts read on every call (the store opens, its index's count, journaled
// changes counted as the journal grows, unpushed commits, the server's syncs) and the last full check (the status operation,
// which re-stats every record file: O(store), ~1 s of CPU on a 10k store under load, run in a
// memsync process of its own so that no request waits behind it). A call never waits for a full
// check unless it asks (?full=1); it starts one in the background when the last is older than
// FULL_EVERY_MS, so polling health costs a full check at most that often.

export const FULL_EVERY_MS = 60_000;
/** How long after the health answer that made it due a background full check starts. */
const START_DELAY_MS = 50;

interface FullCheck {
  outcome: StatusOutcome;
  at: number;
}

export class HealthChecks {
  private last: FullCheck | null = null;
  private running: Promise<FullCheck> | null = null;
  private starting: ReturnType<typeof setTimeout> | null = null;
  private child: ChildProcess | null = null;
  private stopped = false;

  constructor(
    private readonly api: ApiContext,
    private readonly everyMs = FULL_EVERY_MS,
  ) {}

  /** How many checks have started; a check numbered above a call's `asked` began after that call. */
  private started = 0;
  private runningNumber = 0;

  /** The number to pass to full() for a check that sees the store as it is now. */
  get asked(): number {
    return this.started;
  }

  /**
   * A full check that began after `after` checks had started: the one running if it did, else the
   * next, once the running one ends. A check begun before the caller asked (the background one a
   * plain health call started) read files the caller may have changed since, and its answer would
   * say a file broken a moment ago is fine. With no argument, any check (running or new) will do.
   */
  full(after = -1): Promise<FullCheck> {
    if (this.running && this.runningNumber <= after) {
      return this.running.then(
        () => this.full(after),
        () => this.full(after),
      );
    }
    if (!this.running) {
      this.runningNumber = ++this.started;
      this.running = statusProcess(this.api, (child) => (this.child = child))
        .then((outcome) => (this.last = { outcome, at: Date.now() }))
        .finally(() => {
          this.running = null;
        });
    }
    return this.running;
  }

  /** No more checks; a running one is ended (the server is stopping). */
  stop(): void {
    this.stopped = true;
    if (this.starting) clearTimeout(this.starting);
    this.starting = null;
    this.child?.kill();
  }

  get lastHealth(): Health | null {
    return this.last?.outcome.health ?? null;
  }

  get everyS(): number {
    return this.everyMs / 1000;
  }

  /** The last full check; starts the next in the background when it is due (or now, if stale). */
  latest(stale = false): { check: FullCheck | null; running: boolean } {
    const due = !this.running && (stale || !this.last || Date.now() - this.last.at >= this.everyMs);
    if (due && !this.starting && !this.stopped) {
      // started once this answer is on its way: the check's O(store) stat pass runs on this
      // thread, and begun now it would hold back the very answer that asked for it (the first
      // health call of a server at 10k took 900 ms). A failure is the next ?full=1's to report.
      this.starting = setTimeout(() => {
        this.starting = null;
        this.full().catch(() => {});
      }, START_DELAY_MS);
    }
    return { check: this.last, running: this.running !== null || this.starting !== null };
  }
}

/**
 * The status operation in a memsync process of its own, as a sync is: its O(store) pass (a stat
 * of every record file, ~1 s of CPU at 10k under load) ran on this server's thread before, and
 * every request that came meanwhile waited for it. It takes the store's lock only when it finds
 * something to apply (ops/status.ts), so the server's writers go on beside it.
 */
function statusProcess(api: ApiContext, started: (child: ChildProcess | null) => void): Promise<StatusOutcome> {
  const [cmd, ...pre] = api.self;
  return new Promise<StatusOutcome>((resolve, reject) => {
    const child = spawn(cmd!, [...pre, "--store", api.env.storeRoot, "status", "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    started(child);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => reject(unavailable(`could not start the health check: ${e.message}`)));
    child.on("close", (code) => {
      try {
        const outcome = JSON.parse(out) as StatusOutcome;
        if (typeof outcome?.health === "string") return resolve(outcome);
      } catch {}
      reject(unavailable(`the health check failed: ${err.trim().split("\n").pop()?.replace(/^memsync: /, "") || `exit ${code}`}`));
    });
  }).finally(() => started(null));
}

interface Cheap {
  ok: boolean;
  reason: string | null;
  memories: number | null;
  uncommitted_changes: number | null;
  unpushed_commits: number | null;
}

const NL = Buffer.from("\n");

/**
 * Journaled changes not yet committed (entries other than "rescan"), counted as the journal
 * grows: only the bytes appended since the last call are read (the journal reached 18 MB at 10k
 * memories, and parsing it whole on every call cost most of a health answer). The journal is
 * only ever appended to, or replaced or removed by a commit (a new inode, or a shorter file),
 * which starts the count again; a line is counted once its newline is written. A backlog larger
 * than SYNC_BYTES (the whole journal, on a server's first call) is counted in the background
 * instead, reading asynchronously: until that is done the count is null (not known yet), and
 * neither that answer nor any other request waits for it (reading 16 MB took 0.4 s here).
 */
export class PendingCount {
  static readonly SYNC_BYTES = 1024 * 1024;
  private ino = -1;
  private offset = 0;
  private count = 0;
  private catching: Promise<void> | null = null;

  /** `syncBytes`: the largest backlog read at once on the caller's turn (also the chunk read in the background). */
  constructor(private readonly syncBytes = PendingCount.SYNC_BYTES) {}

  /** Start counting in the background now (a server's start), so the first answers have it sooner. */
  prime(root: string): void {
    this.of(root);
  }

  of(root: string): number | null {
    if (this.catching) return null;
    const path = `${root}/${JOURNAL_FILE}`;
    let st: fs.Stats;
    try {
      st = fs.statSync(path);
    } catch {
      this.ino = -1;
      return 0;
    }
    if (!st.isFile()) return 0;
    if (st.ino !== this.ino || st.size < this.offset) {
      this.ino = st.ino;
      this.offset = 0;
      this.count = 0;
    }
    if (st.size === this.offset) return this.count;
    if (st.size - this.offset > this.syncBytes) {
      this.catching = this.catchUp(path, st.ino).finally(() => {
        this.catching = null;
      });
      return null;
    }
    const fd = fs.openSync(path, "r");
    try {
      const buf = Buffer.alloc(st.size - this.offset);
      const got = fs.readSync(fd, buf, 0, buf.length, this.offset);
      const end = buf.subarray(0, got).lastIndexOf(NL);
      if (end < 0) return this.count;
      this.count += countWholeLines(buf.subarray(0, end + 1));
      this.offset += end + 1;
    } finally {
      fs.closeSync(fd);
    }
    return this.count;
  }

  /** Count the whole lines from offset on, a chunk at a time, without holding the thread. */
  private async catchUp(path: string, ino: number): Promise<void> {
    let file: fs.promises.FileHandle;
    try {
      file = await fs.promises.open(path, "r");
    } catch {
      return; // gone meanwhile (a commit): the next call starts again
    }
    try {
      // the file opened is the one counted: a commit replacing it meanwhile is seen by the next call
      if ((await file.stat()).ino !== ino) return;
      // the bytes read past the last whole line, kept as chunks and joined once its newline comes
      // (joined on every chunk, a line of n chunks was copied n times: an old import's entry is
      // one line of the whole import's texts)
      let carry: Buffer[] = [];
      let carried = 0;
      for (;;) {
        const chunk = Buffer.alloc(this.syncBytes);
        const { bytesRead } = await file.read(chunk, 0, chunk.length, this.offset + carried);
        if (bytesRead === 0) break;
        const got = chunk.subarray(0, bytesRead);
        const end = got.lastIndexOf(NL);
        if (end < 0) {
          carry.push(got);
          carried += bytesRead;
          continue;
        }
        const whole = got.subarray(0, end + 1);
        this.count += countWholeLines(carry.length ? Buffer.concat([...carry, whole]) : whole);
        this.offset += carried + end + 1;
        const rest = got.subarray(end + 1);
        carry = rest.length ? [rest] : [];
        carried = rest.length;
      }
    } catch {
      // unreadable now: counted again from the start by the next call
      this.ino = -1;
    } finally {
      await file.close().catch(() => {});
    }
  }
}

/**
 * What the store tells without refreshing it (the index as the last refresh left it). Not through
 * the gate: it takes no lock and reads only what a write commits whole (the index, the journal,
 * git's refs), so it answers while a write of this server waits for the store's lock that another
 * process holds (which could be the busy timeout, 15 s), as a health check must.
 */
async function cheapFacts(api: ApiContext, pending: PendingCount): Promise<Cheap> {
  const none = { memories: null, uncommitted_changes: null, unpushed_commits: null };
  try {
    return await withStore(api.env, async (store) => ({
      ok: true,
      reason: null,
      memories: store.index.memoryCount(),
      uncommitted_changes: pending.of(store.root),
      unpushed_commits: await unpushed(store.root),
    }));
  } catch (e) {
    if (!isMemsyncError(e)) throw e;
    return { ok: false, reason: e.message, ...none };
  }
}

/** What GET /v1/health answers; `last_check`: the last full check's whole outcome (the page shows its counts). */
export type HealthReport = Awaited<ReturnType<ReturnType<typeof healthReporter>>>;

/** The health answer from cheap facts and the last full check; `full`: run one now and wait for it. */
export function healthReporter(api: ApiContext, checks: HealthChecks, version: string) {
  const pending = new PendingCount();
  // counted from the server's start, in the background, so that the first health answers have it
  try {
    pending.prime(api.env.storeRoot);
  } catch {
    // no journal readable yet: the first call counts
  }
  return async (fullNow: boolean) => {
    // a check begun after this request: one running since before it may have read older files
    if (fullNow) await checks.full(checks.asked);
    const cheap = await cheapFacts(api, pending);
    // a check that found no store is stale once the store opens (the first save made it)
    const { check, running } = checks.latest(cheap.ok && checks.lastHealth === "unavailable");
    const full = cheap.ok && check?.outcome.health === "unavailable" ? undefined : check?.outcome;
    // the store not opening now outweighs an older check; otherwise the last full check speaks
    const health: Health = !cheap.ok ? "unavailable" : (full?.health ?? "healthy");
    const reasons = !cheap.ok ? [cheap.reason!] : (full?.reasons ?? []);
    return {
      health,
      reasons,
      store: api.env.storeRoot,
      memories: cheap.memories,
      uncommitted_changes: cheap.uncommitted_changes,
      unpushed_commits: cheap.unpushed_commits,
      full_check: { at: check ? new Date(check.at).toISOString() : null, running, every_s: checks.everyS },
      sync: api.sync.state(),
      edition: EDITION,
      version,
      last_check: full ?? null,
    };
  };
}

export function healthRoute(app: Hono, report: ReturnType<typeof healthReporter>): void {
  app.get("/v1/health", async (c) => {
    try {
      const asked = c.req.query("full");
      const { last_check: _, ...body } = await report(asked !== undefined && asked !== "0" && asked !== "false");
      return c.json(body);
    } catch (e) {
      return errorResponse(e);
    }
  });
}
