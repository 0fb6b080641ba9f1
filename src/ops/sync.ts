import type { CommitOutcome } from "../sync/commit.ts";
import { commitPending } from "../sync/commit.ts";
import { pull, type PullResult, push, type PushResult } from "../sync/exchange.ts";
import type { Remote, RemoteOptions } from "../sync/remote.ts";
import { setRemote } from "../sync/remote.ts";
import type { Store } from "../store/store.ts";
import { type OpsEnv, originOf } from "./context.ts";

// The sync use cases: set the remote, pull, push, and sync = commit pending + pull + push.
// Each commits pending changes first, so nothing written is missing from what is exchanged.

function author(store: Store, env: OpsEnv) {
  const o = originOf(store, env);
  return { author: { name: env.user ?? "memsync", email: `memsync@${o.machine ?? "unknown"}` }, now: o.now };
}

/** A new store from a remote (an empty remote: a new store whose first sync fills it). */
export async function cloneOp(env: OpsEnv, url: string, cwd: string, opts: RemoteOptions = {}): Promise<{ root: string; head: string | null; files: number; store_created: boolean }> {
  const { cloneStore } = await import("../sync/exchange.ts");
  const out = await cloneStore(env.storeRoot, url, cwd, env.credentials ?? {}, env.driverCommand ?? "memsync merge-driver %O %A %B %P %L", opts);
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

export async function pullOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; pull: PullResult }> {
  const { author: a, now } = author(store, env);
  const commit = await commitPending(store, a, now);
  return { commit, pull: await pull(store, a, now, env.credentials) };
}

export async function pushOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; push: PushResult }> {
  const { author: a, now } = author(store, env);
  const commit = await commitPending(store, a, now);
  return { commit, push: await push(store, a, now, env.credentials) };
}

export async function syncOp(store: Store, env: OpsEnv): Promise<{ commit: CommitOutcome; pull: PullResult; push: PushResult }> {
  const { author: a, now } = author(store, env);
  const commit = await commitPending(store, a, now);
  const pulled = await pull(store, a, now, env.credentials);
  return { commit, pull: pulled, push: await push(store, a, now, env.credentials) };
}
