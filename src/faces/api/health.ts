import type { Hono } from "hono";
import { isMemsyncError } from "../../core/errors.ts";
import { runOp } from "../../ops/catalogue/run.ts";
import { Buffer } from "node:buffer";
import fs from "node:fs";
import { withStore } from "../../ops/context.ts";
import { type Health, type StatusOutcome, unpushed } from "../../ops/status.ts";
import { EDITION } from "../../runtime/edition.ts";
import { JOURNAL_FILE, journalEntryOf } from "../../store/journal.ts";
import type { ApiContext } from "./context.ts";
import { errorResponse } from "./errors.ts";

// `GET /v1/health`: cheap facts read on every call (the store opens, its index's count, journaled
// changes counted as the journal grows, unpushed commits, the server's syncs) and the last full check (the status operation,
// which re-stats every record file: O(store), ~1 s of CPU on a 10k store under load). A call
// never waits for a full check unless it asks (?full=1); it starts one in the background when
// the last is older than FULL_EVERY_MS, so polling health costs a full check at most that often.

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

  constructor(
    private readonly api: ApiContext,
    private readonly everyMs = FULL_EVERY_MS,
  ) {}

  /** A full check now, or the one already running. */
  full(): Promise<FullCheck> {
    this.running ??= this.api.gate
      .run(false, () => runOp<StatusOutcome>("status", { env: this.api.env }, {}))
      .then((outcome) => (this.last = { outcome, at: Date.now() }))
      .finally(() => {
        this.running = null;
      });
    return this.running;
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
    if (due && !this.starting) {
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

interface Cheap {
  ok: boolean;
  reason: string | null;
  memories: number | null;
  uncommitted_changes: number | null;
  unpushed_commits: number | null;
}

const OP = Buffer.from('{"op":"');
const RESCAN = Buffer.from('rescan"');

/**
 * Entries other than "rescan" among whole lines, as readJournal would find them, without parsing
 * each (the journal holds the texts of every change: 16 MB for 10,000 saves, a second of parsing
 * at load). A line memsync appended is JSON.stringify of an entry whose first key is op, so it
 * begins {"op":" and holds that sequence nowhere else (a quote inside a string is escaped); a line
 * torn by a crash and continued by the next append holds it twice and is not an entry, as the
 * parser finds. Any other line is parsed.
 */
function countEntries(buf: Buffer): number {
  let n = 0;
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    if (end > start) {
      if (buf.subarray(start, start + OP.length).equals(OP)) {
        const next = buf.indexOf(OP, start + 1);
        const single = next === -1 || next >= end;
        const rescan = buf.subarray(start + OP.length, start + OP.length + RESCAN.length).equals(RESCAN);
        if (single && buf[end - 1] === 0x7d && !rescan) n++;
      } else {
        const e = journalEntryOf(buf.subarray(start, end).toString("utf8"));
        if (e && e.op !== "rescan") n++;
      }
    }
    start = end + 1;
  }
  return n;
}

/**
 * Journaled changes not yet committed (entries other than "rescan"), counted as the journal
 * grows: only the bytes appended since the last call are read (the journal reached 18 MB at 10k
 * memories, and parsing it whole on every call cost most of a health answer). The journal is
 * only ever appended to, or replaced or removed by a commit (a new inode, or a shorter file),
 * which starts the count again; a line is counted once its newline is written.
 */
export class PendingCount {
  private ino = -1;
  private offset = 0;
  private count = 0;

  of(root: string): number {
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
    const fd = fs.openSync(path, "r");
    try {
      const buf = Buffer.alloc(st.size - this.offset);
      const got = fs.readSync(fd, buf, 0, buf.length, this.offset);
      const end = buf.subarray(0, got).lastIndexOf(10);
      if (end < 0) return this.count;
      this.count += countEntries(buf.subarray(0, end + 1));
      this.offset += end + 1;
    } finally {
      fs.closeSync(fd);
    }
    return this.count;
  }
}

/** What the store tells without refreshing it (the index as the last refresh left it). */
async function cheapFacts(api: ApiContext, pending: PendingCount): Promise<Cheap> {
  const none = { memories: null, uncommitted_changes: null, unpushed_commits: null };
  return api.gate.run(false, async () => {
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
  });
}

export function healthRoute(app: Hono, api: ApiContext, checks: HealthChecks, version: string): void {
  const pending = new PendingCount();
  app.get("/v1/health", async (c) => {
    try {
      const asked = c.req.query("full");
      if (asked !== undefined && asked !== "0" && asked !== "false") await checks.full();
      const cheap = await cheapFacts(api, pending);
      // a check that found no store is stale once the store opens (the first save made it)
      const { check, running } = checks.latest(cheap.ok && checks.lastHealth === "unavailable");
      const full = cheap.ok && check?.outcome.health === "unavailable" ? undefined : check?.outcome;
      // the store not opening now outweighs an older check; otherwise the last full check speaks
      const health: Health = !cheap.ok ? "unavailable" : (full?.health ?? "healthy");
      const reasons = !cheap.ok ? [cheap.reason!] : (full?.reasons ?? []);
      return c.json({
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
      });
    } catch (e) {
      return errorResponse(e);
    }
  });
}
