import { isMemsyncError, unavailable } from "../core/errors.ts";
import type { CommitOutcome } from "../sync/commit.ts";
import { commitLocked } from "../sync/commit.ts";
import { type LocalStep, pull, type PullResult, push, type PushResult } from "../sync/exchange.ts";
import { refuseNativeOperation } from "../sync/native-state.ts";
import type { ProgressListener } from "../sync/progress.ts";
import type { Remote, RemoteOptions } from "../sync/remote.ts";
import { setRemote } from "../sync/remote.ts";
import type { Author } from "../sync/repo-init.ts";
import type { Store } from "../store/store.ts";
import { WriteLock } from "../store/write-lock.ts";
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

const SYNC_WAIT_MS = 120_000;

function author(store: Store, env: OpsEnv): { author: Author; now: number } {
  // every sync writes (commits, merges, fetched objects): a read-only store is refused first
  store.requireWritable();
  const o = originOf(store, env);
  return { author: { name: env.user ?? "memsync", email: `memsync@${o.machine ?? "unknown"}` }, now: o.now };
}

/**
 * Run a whole sync (pull, push) of this store while no other one runs; or, when one that took its
 * turn after this one was asked succeeded meanwhile, its outcome (`joined`: sync/sync-turns.ts).
 */
async function oneSyncAtATime<T extends object>(store: Store, direction: SyncDirection, fn: () => Promise<T>): Promise<T & { joined?: true }> {
  refuseNativeOperation(store.root);
  const since = latestTurn(store.fs, store.root);
  const lock = WriteLock.open(`${store.root}/${SYNC_LOCK}`, SYNC_WAIT_MS);
  const asked = performance.now();
  try {
    const r = await lock.holdAsyncOr(
      async () => {
        traceNote("sync.lock-wait", `wall=${(performance.now() - asked).toFixed(0)}`);
        const turn = takeTurn(store.fs, store.root);
        const out = await traced(`sync.${direction}`, fn);
        // every HTTP fetch leaves a pack and every local-path one loose objects: combine them when
        // past git's limits, still holding the sync lock
        await traced("sync.auto-repack", () => autoRepack(store, true));
        turnDone(store.fs, store.root, turn, direction, out);
        return out;
      },
      () => doneSince(store.fs, store.root, since, direction) as T | undefined,
    );
    if (!("held" in r)) traceNote("sync.joined", `wall=${(performance.now() - asked).toFixed(0)}`);
    return "held" in r ? r.held : { ...r.instead, joined: true };
  } catch (e) {
    if (e instanceof Error && /database is locked|SQLITE_BUSY/i.test(e.message)) {
      throw unavailable(`another sync of this store has been running for over ${SYNC_WAIT_MS / 1000} s (${store.root}); try again later`);
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
  const who = author(store, env);
  return oneSyncAtATime(store, "pull", async () => {
    const c = committer(store, who);
    const pulled = await pull(store, who.author, who.now, env.credentials ?? {}, c.step).catch((e) => commitThenRethrow(store, c, e));
    return { commit: c.outcome, pull: pulled };
  });
}

export function pushOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; push: PushResult; joined?: true }> {
  const askedAt = Date.now();
  const who = author(store, env);
  return oneSyncAtATime(store, "push", async () => {
    const c = committer(store, who);
    await store.exclusive(c.step);
    return { commit: c.outcome, push: await push(store, who.author, who.now, env.credentials ?? {}, c.step, { askedAt }) };
  });
}

export function syncOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; pull: PullResult; push: PushResult; joined?: true }> {
  // (the push's retry budget counts from here: a wait for the sync lock and the pull included)
  const askedAt = Date.now();
  const who = author(store, env);
  return oneSyncAtATime(store, "sync", async () => {
    const c = committer(store, who);
    const pulled = await pull(store, who.author, who.now, env.credentials ?? {}, c.step).catch((e) => commitThenRethrow(store, c, e));
    // local records the pull brought back were removed from the shared folders: push that too
    if (pulled.kept_local.length) await store.exclusive(c.step);
    return { commit: c.outcome, pull: pulled, push: await push(store, who.author, who.now, env.credentials ?? {}, c.step, { askedAt }) };
  });
}
