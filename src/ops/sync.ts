import { isMemsyncError, unavailable } from "../core/errors.ts";
import type { CommitOutcome } from "../sync/commit.ts";
import { commitLocked } from "../sync/commit.ts";
import { type LocalStep, pull, type PullResult, push, type PushResult, pushRetryBudgetMs } from "../sync/exchange.ts";
import { msKnob } from "../runtime/ms-knob.ts";
import { refuseNativeOperation } from "../sync/native-state.ts";
import type { ProgressListener } from "../sync/progress.ts";
import type { Remote, RemoteOptions } from "../sync/remote.ts";
import { setRemote } from "../sync/remote.ts";
import type { Author } from "../sync/repo-init.ts";
import type { Store } from "../store/store.ts";
import { LockBusyError, WriteLock } from "../store/write-lock.ts";
import { type OpsEnv, originOf } from "./context.ts";
import { autoRepack, SYNC_LOCK } from "./repack.ts";
import { traced, traceNote } from "../sync/sync-trace.ts";
import { doneSince, latestTurn, type SyncDirection, takeTurn, turnDone } from "../sync/sync-turns.ts";

// The sync use cases: set the remote, pull, push, and sync = pull + push. The network (fetch,
// send) runs outside the store's write lock; every local step (commit what is pending, merge what
// was fetched, write the files, git's index and the branch) is one hold of it, so a write
// acknowledged before the hold is committed and merged, and one after it waits for the hold to
// end. Whole syncs of one store take turns through a lock of their own (.memsync/sync.lock,
// released by the OS when a process dies).

/**
 * How long a sync waits in its store's queue, counted from when it was asked, before it gives up
 * (MEMSYNC_SYNC_WAIT_MS, for tests). The wait used to end only after this long without progress,
 * and a busy queue's holders (each retrying its push for up to two minutes) always made some: a
 * waiter stayed queued past 300 s (lead28's chaos c1 and c3). Now a waiter ends by this bound, or
 * with the success of a sync that took its turn after it was asked (sync-turns.ts), whichever
 * comes first.
 */
export function syncWaitMs(): number {
  return msKnob("MEMSYNC_SYNC_WAIT_MS", 120_000);
}

function author(store: Store, env: OpsEnv): { author: Author; now: number } {
  // every sync writes (commits, merges, fetched objects): a read-only store is refused first
  store.requireWritable();
  const o = originOf(store, env);
  return { author: { name: env.user ?? "memsync", email: `memsync@${o.machine ?? "unknown"}` }, now: o.now };
}

/** How long this sync may wait and push: read before anything is done, so a bad knob changes nothing. */
interface SyncBounds {
  askedAt: number;
  waitMs: number;
  budgetMs: number;
}

function boundsNow(): SyncBounds {
  return { askedAt: Date.now(), waitMs: syncWaitMs(), budgetMs: pushRetryBudgetMs() };
}

/**
 * Run a whole sync (pull, push) of this store while no other one runs; or, when one that took its
 * turn after this one was asked succeeded meanwhile, its outcome (`joined`: sync/sync-turns.ts);
 * or give up after waiting `bounds.waitMs` since it was asked.
 */
async function oneSyncAtATime<T extends object>(store: Store, direction: SyncDirection, bounds: SyncBounds, fn: () => Promise<T>): Promise<T & { joined?: true }> {
  refuseNativeOperation(store.root);
  const since = latestTurn(store.fs, store.root);
  const lock = WriteLock.open(`${store.root}/${SYNC_LOCK}`, bounds.waitMs);
  const asked = performance.now();
  const waited = () => `wall=${(performance.now() - asked).toFixed(0)}`;
  let held = false;
  try {
    const r = await lock.holdAsyncOr(
      async () => {
        held = true;
        traceNote("sync.lock-wait", waited());
        const turn = takeTurn(store.fs, store.root);
        const out = await traced(`sync.${direction}`, fn);
        // every HTTP fetch leaves a pack and every local-path one loose objects: combine them when
        // past git's limits, still holding the sync lock
        await traced("sync.auto-repack", () => autoRepack(store, true));
        // recall's impact postings: the memories saved since merged in, when enough are pending
        await traced("sync.settle-postings", () => store.settleBoundedSearch());
        turnDone(store.fs, store.root, turn, direction, out);
        return out;
      },
      () => doneSince(store.fs, store.root, since, direction) as T | undefined,
      { deadline: bounds.askedAt + bounds.waitMs },
    );
    if ("held" in r) return r.held;
    traceNote("sync.joined", waited());
    return { ...r.instead, joined: true };
  } catch (e) {
    if (!held && e instanceof Error && /database is locked|SQLITE_BUSY/i.test(e.message)) {
      traceNote("sync.wait-gave-up", waited());
      const holder = e instanceof LockBusyError ? ` (${e.holder})` : "";
      throw unavailable(
        `this ${direction} waited ${Math.round((Date.now() - bounds.askedAt) / 1000)} s for other syncs of this store (${store.root})${holder} and gave up: nothing is lost, the writes made before it wait in the store, and the running sync or the next one commits and pushes them; run ${direction} again later`,
      );
    }
    throw e;
  } finally {
    lock.close();
  }
}

/** The commit step of a sync, run under the write lock before each merge; its outcomes add up. */
function committer(store: Store, who: { author: Author; now: number }): { step: LocalStep; outcome: CommitOutcome; ran: () => boolean } {
  const outcome: CommitOutcome = { commits: [], head: null, full_compare: false, skipped: [] };
  let ran = false;
  const step: LocalStep = async () => {
    const c = await commitLocked(store, who.author, who.now);
    ran = true;
    outcome.commits.push(...c.commits);
    outcome.head = c.head;
    outcome.full_compare ||= c.full_compare;
    outcome.skipped = c.skipped;
    return { keep: c.skipped.map((s) => s.path) };
  };
  return { step, outcome, ran: () => ran };
}

/** Offline, no remote, or a remote that stalled: what is pending is still committed locally, then the error stands. */
async function commitThenRethrow(store: Store, c: ReturnType<typeof committer>, e: unknown): Promise<never> {
  if (!c.ran() && isMemsyncError(e) && (e.code === "unavailable" || e.code === "timeout")) await store.exclusive(c.step);
  throw e;
}

/** A new store from a remote (an empty remote: a new store whose first sync fills it). */
export async function cloneOp(
  env: OpsEnv,
  url: string,
  cwd: string,
  opts: RemoteOptions = {},
  progress?: ProgressListener,
): Promise<{ root: string; head: string | null; files: number; store_created: boolean }> {
  const [{ cloneStore }, { withProgress }] = await Promise.all([import("../sync/exchange.ts"), import("../sync/progress.ts")]);
  const out = await withProgress(progress, () => cloneStore(env.storeRoot, url, cwd, env.credentials ?? {}, env.driverCommand ?? "memsync merge-driver %O %A %B %P %L", opts));
  let created = false;
  if (out.head === null) {
    const { initStore } = await import("./init.ts");
    await initStore(env);
    created = true;
  }
  return { root: env.storeRoot, ...out, store_created: created };
}

export function setRemoteOp(store: Store, url: string, cwd: string, opts: RemoteOptions = {}): Promise<Remote> {
  return setRemote(store.root, url, cwd, opts);
}

export function pullOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; pull: PullResult; joined?: true }> {
  const bounds = boundsNow();
  const who = author(store, env);
  return oneSyncAtATime(store, "pull", bounds, async () => {
    const c = committer(store, who);
    const pulled = await pull(store, who.author, who.now, env.credentials ?? {}, c.step).catch((e) => commitThenRethrow(store, c, e));
    return { commit: c.outcome, pull: pulled };
  });
}

export function pushOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; push: PushResult; joined?: true }> {
  const bounds = boundsNow();
  const who = author(store, env);
  return oneSyncAtATime(store, "push", bounds, async () => {
    const c = committer(store, who);
    await store.exclusive(c.step);
    return { commit: c.outcome, push: await push(store, who.author, who.now, env.credentials ?? {}, c.step, bounds) };
  });
}

export function syncOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; pull: PullResult; push: PushResult; joined?: true }> {
  // (the push's retry budget and the wait in the queue count from here: the pull included)
  const bounds = boundsNow();
  const who = author(store, env);
  return oneSyncAtATime(store, "sync", bounds, async () => {
    const c = committer(store, who);
    const pulled = await pull(store, who.author, who.now, env.credentials ?? {}, c.step).catch((e) => commitThenRethrow(store, c, e));
    // local records the pull brought back were removed from the shared folders: push that too
    if (pulled.kept_local.length) await store.exclusive(c.step);
    return { commit: c.outcome, pull: pulled, push: await push(store, who.author, who.now, env.credentials ?? {}, c.step, bounds) };
  });
}
