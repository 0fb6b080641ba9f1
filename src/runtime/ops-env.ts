import path from "node:path";
import type { OpsEnv } from "../ops/context.ts";
import { cwd, env, homeDir, hostName, userName } from "./host.ts";
import { selfCommand, shellQuote } from "./self.ts";

// The ops environment (ops/context.ts OpsEnv) from plain values. opsEnvOf is pure: a face, a
// server or a test passes the values it has; hostOpsEnv reads them from this process (its
// environment variables, host name, user, how to run this memsync again), for the CLI and serve.

/** The plain values an ops environment is made of; every one may be missing. */
export interface OpsEnvValues {
  /** The store folder as given (--store, a request's store); relative to cwd. */
  store?: string;
  /** Environment variables: MEMSYNC_HOME, MEMSYNC_MACHINE, MEMSYNC_VAULT, MEMSYNC_GIT_TOKEN, MEMSYNC_BUSY_TIMEOUT_MS, MEMSYNC_HTTP_IDLE_TIMEOUT_MS, XDG_CONFIG_HOME. */
  vars: Readonly<Record<string, string | undefined>>;
  cwd: string;
  home: string;
  hostName: string;
  user: string | null;
  /** How git runs this memsync (runtime/self.ts selfCommand), as words. */
  self?: readonly string[];
}

const nonEmpty = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);

/** The store folder: the given one, else MEMSYNC_HOME, else ~/.memsync. */
export function storeRootOf(v: Pick<OpsEnvValues, "store" | "vars" | "cwd" | "home">): string {
  return path.resolve(v.cwd, v.store ?? nonEmpty(v.vars.MEMSYNC_HOME) ?? path.join(v.home, ".memsync"));
}

/** MEMSYNC_BUSY_TIMEOUT_MS: how long a writer waits without progress for the store's lock (default 15 s: none given). */
function busyOf(vars: OpsEnvValues["vars"]): { open: { busyTimeoutMs: number } } | Record<string, never> {
  const busy = Number(nonEmpty(vars.MEMSYNC_BUSY_TIMEOUT_MS));
  return Number.isFinite(busy) && busy > 0 ? { open: { busyTimeoutMs: busy } } : {};
}

export function opsEnvOf(v: OpsEnvValues, root = storeRootOf(v)): OpsEnv {
  const machine = nonEmpty(v.vars.MEMSYNC_MACHINE);
  const token = nonEmpty(v.vars.MEMSYNC_GIT_TOKEN);
  const vault = nonEmpty(v.vars.MEMSYNC_VAULT);
  // MEMSYNC_HTTP_IDLE_TIMEOUT_MS: how long an HTTP request to the remote may receive nothing (default 60 s)
  const idle = Number(nonEmpty(v.vars.MEMSYNC_HTTP_IDLE_TIMEOUT_MS));
  return {
    ...busyOf(v.vars),
    storeRoot: root,
    hostName: v.hostName,
    user: v.user,
    ...(machine !== undefined ? { machineOverride: machine } : {}),
    ...(vault !== undefined ? { vault: path.resolve(v.cwd, vault) } : {}),
    ...(v.self ? { driverCommand: driverCommandOf(v.self) } : {}),
    credentials: {
      ...(token !== undefined ? { token } : {}),
      ...(Number.isFinite(idle) && idle > 0 ? { httpIdleMs: idle } : {}),
      file: path.join(nonEmpty(v.vars.XDG_CONFIG_HOME) ?? path.join(v.home, ".config"), "memsync", "credentials"),
    },
  };
}

/** How git runs this memsync as its merge driver (a .git/config value). */
const driverCommandOf = (self: readonly string[]) => `${self.map(shellQuote).join(" ")} merge-driver %O %A %B %P %L`;

const VARS = ["MEMSYNC_HOME", "MEMSYNC_MACHINE", "MEMSYNC_VAULT", "MEMSYNC_GIT_TOKEN", "MEMSYNC_BUSY_TIMEOUT_MS", "MEMSYNC_HTTP_IDLE_TIMEOUT_MS", "XDG_CONFIG_HOME"] as const;

/**
 * This process's ops environment. The host name, the user and how to run this memsync again are
 * looked up when an operation first reads them: a get reads none, and where USER is unset the
 * user is read from the password database (~0.3 ms of a cold get's ~10, issue 16).
 */
export function hostOpsEnv(store?: string, root?: string): OpsEnv {
  const values: OpsEnvValues = { ...(store !== undefined ? { store } : {}), vars: Object.fromEntries(VARS.map((k) => [k, env(k)])), cwd: cwd(), home: homeDir(), hostName: "", user: null };
  const out = opsEnvOf(values, root ?? storeRootOf(values));
  const lazy = <T>(get: () => T): PropertyDescriptor => {
    let value: { v: T } | undefined;
    return { enumerable: true, configurable: true, get: () => (value ??= { v: get() }).v };
  };
  return Object.defineProperties(out, { hostName: lazy(hostName), user: lazy(userName), driverCommand: lazy(() => driverCommandOf(selfCommand())) });
}

/** What of this process's ops environment a read of the index alone needs (ops/get-settled.ts): the store folder and the busy timeout, as hostOpsEnv gives them. */
export function hostReadEnv(store?: string): Pick<OpsEnv, "storeRoot" | "open"> {
  const vars = { MEMSYNC_HOME: env("MEMSYNC_HOME"), MEMSYNC_BUSY_TIMEOUT_MS: env("MEMSYNC_BUSY_TIMEOUT_MS") };
  return { ...busyOf(vars), storeRoot: storeRootOf({ ...(store !== undefined ? { store } : {}), vars, cwd: cwd(), home: homeDir() }) };
}
