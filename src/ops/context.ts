import type { Origin } from "../core/records.ts";
import { originIn } from "./origin.ts";
import { type OpenOptions, Store } from "../store/store.ts";
import { mark } from "../runtime/cold-trace.ts";

// What every operation needs to know about where it runs. Faces build it from their own inputs
// (flags, environment); operations never read the process environment themselves.

export interface OpsEnv {
  storeRoot: string;
  hostName: string;
  user: string | null;
  machineOverride?: string;
  open?: OpenOptions;
  /** How git should run this memsync as its merge driver (see runtime/self.ts); default: memsync on PATH. */
  driverCommand?: string;
  /** This machine's vault folder for promoted notes (MEMSYNC_VAULT, absolute); never a synced setting. */
  vault?: string;
  /** Where an HTTP(S) remote's token comes from (never from .git/config), and how long its requests may stall. */
  credentials?: { token?: string; file?: string; httpIdleMs?: number };
  /** A store kept open across calls (a server's: ops/kept-store.ts); none: each call opens and closes one. */
  /**
   * A store kept open across calls (a server's: ops/kept-store.ts), used by the calls whose store
   * and open options are the ones it was opened with; none: each call opens and closes one.
   */
  kept?: { readonly root: string; readonly options?: OpenOptions | undefined; use<T>(fn: (store: Store) => T | Promise<T>): Promise<T> };
}

export function openStore(env: OpsEnv): Promise<Store> {
  return Store.open(env.storeRoot, env.open);
}

export function originOf(store: Store, env: OpsEnv): Origin {
  // an origin is who writes: a store this process may only read is refused here, before any write
  store.requireWritable();
  return originIn(store.fs, store.root, env, store.nowSeconds());
}

/** Open the store, run fn, and always close the index (or run fn on the store the environment keeps open). */
export async function withStore<T>(env: OpsEnv, fn: (store: Store) => T | Promise<T>): Promise<T> {
  // a call that asks for other options (a hook's shorter lock wait) opens its own store, as before
  if (env.kept && env.kept.root === env.storeRoot && env.kept.options === env.open) return env.kept.use(fn);
  mark("withStore: modules");
  const store = await openStore(env);
  mark("Store.open");
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}
