import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isMemsyncError, unavailable } from "../core/errors.ts";
import { readRawMeta } from "../store/store.ts";
import { nodeFs } from "../store/fs-port.ts";
import { KIND_DIR, META_FILE } from "../store/layout.ts";
import type { Connectivity, MissingObject } from "../sync/connectivity.ts";
import { summarizeMissing } from "../sync/connectivity.ts";
import type { Remote } from "../sync/remote.ts";
import type { RepairOutcome } from "../sync/repair.ts";
import { Store } from "../store/store.ts";
import type { OpsEnv } from "./context.ts";

// Checks of a store's git set-up, each with what to do about it; with --repair, git objects a
// store (or a remote on a local path) lacks are copied back from the other side.

export interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

const ATTRIBUTE_LINES = [`${KIND_DIR.memory}/** merge=memsync`, `${KIND_DIR.relation}/** merge=memsync`, `${META_FILE} merge=memsync`];

function executable(word: string): boolean {
  if (!word.includes("/")) return spawnSync("sh", ["-c", `command -v ${word}`]).status === 0;
  try {
    fs.accessSync(word, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first word of a shell command line, unquoted. */
function firstWord(command: string): string {
  const m = /^\s*(?:'((?:[^']|'\\'')*)'|(\S+))/.exec(command);
  return (m?.[1]?.replace(/'\\''/g, "'") ?? m?.[2] ?? "").trim();
}

export interface DoctorOutcome {
  ok: boolean;
  checks: Check[];
  /** What --repair did (absent without --repair, or when nothing needed it). */
  repair?: { local?: RepairOutcome & { source: string }; remote?: RepairOutcome & { source: string } };
  /** Objects neither side has: history that cannot be restored (exit 7). */
  lost: MissingObject[];
}

export async function doctor(env: OpsEnv, opts: { repair?: boolean } = {}): Promise<DoctorOutcome> {
  const root = env.storeRoot;
  const checks: Check[] = [];
  try {
    readRawMeta(nodeFs, root);
    checks.push({ check: "store", ok: true, detail: `memsync store at ${root}` });
  } catch (e) {
    if (!isMemsyncError(e)) throw e;
    checks.push({ check: "store", ok: false, detail: e.message });
    return { ok: false, checks, lost: [] };
  }
  const attrs = fs.existsSync(`${root}/.gitattributes`) ? fs.readFileSync(`${root}/.gitattributes`, "utf8") : "";
  const missing = ATTRIBUTE_LINES.filter((l) => !attrs.split("\n").some((x) => x.trim() === l));
  checks.push({
    check: "gitattributes",
    ok: missing.length === 0,
    detail: missing.length === 0 ? "records use merge=memsync" : `.gitattributes lacks: ${missing.join("; ")} (run: memsync init)`,
  });
  if (!fs.existsSync(`${root}/.git`)) {
    checks.push({ check: "git repository", ok: false, detail: `${root} is not a git repository (run: memsync init)` });
    return { ok: false, checks, lost: [] };
  }
  checks.push({ check: "git repository", ok: true, detail: ".git present" });
  const { mergeDriverConfig } = await import("../sync/repo-init.ts");
  const driver = await mergeDriverConfig(root);
  if (!driver) {
    checks.push({ check: "merge driver", ok: false, detail: "merge.memsync.driver is not registered in .git/config: native git would merge records as text (run: memsync init)" });
  } else {
    const bin = firstWord(driver);
    const ok = executable(bin) && driver.includes("merge-driver");
    checks.push({
      check: "merge driver",
      ok,
      detail: ok ? `registered: ${driver}` : `registered as "${driver}", but ${bin} is not an executable memsync (run: memsync init)`,
    });
  }
  const nativeGit = spawnSync("git", ["--version"], { encoding: "utf8" });
  checks.push({
    check: "native git",
    ok: true,
    detail: nativeGit.status === 0 ? `${nativeGit.stdout.trim()} (uses the merge driver)` : "not installed (memsync does not need it; the driver is for native git)",
  });
  const objects = await objectChecks(env, opts.repair === true);
  checks.push(...objects.checks);
  const out: DoctorOutcome = { ok: checks.every((c) => c.ok), checks, lost: objects.lost };
  if (objects.repair) out.repair = objects.repair;
  return out;
}

/** A connectivity check's verdict as a doctor check. */
function objectsCheck(name: string, c: Connectivity, fix: string): Check {
  const problems: string[] = [];
  if (c.missing.length) problems.push(`${c.missing.length} missing: ${summarizeMissing(c.missing)}`);
  if (c.broken_packs.length) problems.push(`unusable pack files: ${c.broken_packs.join(", ")}`);
  if (c.damaged_refs.length) problems.push(`ref files that name no commit: ${c.damaged_refs.join(", ")}`);
  if (problems.length) return { check: name, ok: false, detail: `${problems.join("; ")} (run: ${fix})` };
  const refs = c.refs.map((r) => r.ref.replace(/^refs\/(heads|remotes)\//, "")).join(", ") || "no commits yet";
  return { check: name, ok: true, detail: `complete under ${refs} (${c.commits} recent commits, ${c.trees} trees, ${c.blobs} blobs)` };
}

/**
 * The git objects of the store (and of a remote on a local path): the bounded connectivity check,
 * and with repair, missing objects copied back from the other side (local commits untouched).
 */
async function objectChecks(env: OpsEnv, repair: boolean): Promise<{ checks: Check[]; lost: MissingObject[]; repair?: NonNullable<DoctorOutcome["repair"]> }> {
  const root = env.storeRoot;
  const gitdir = `${root}/.git`;
  const { checkConnectivity } = await import("../sync/connectivity.ts");
  const { getRemote } = await import("../sync/remote.ts");
  let remoteProblem = "no remote is set";
  const remote = await getRemote(root).catch((e: unknown) => {
    remoteProblem = e instanceof Error ? e.message : String(e);
    return null;
  });
  let local = await checkConnectivity(gitdir);
  let theirs = remote?.kind === "local" ? await checkConnectivity(remote.gitdir) : null;
  const needs = (c: Connectivity | null) => c !== null && (c.missing.length > 0 || c.broken_packs.length > 0 || c.damaged_refs.length > 0);
  const report: NonNullable<DoctorOutcome["repair"]> = {};
  const lost: MissingObject[] = [];
  if (repair && (needs(local) || needs(theirs))) {
    const { repairObjects } = await import("../sync/repair.ts");
    const store = await Store.open(root, env.open);
    try {
      await store.exclusive(async () => {
        if (needs(local)) {
          if (!remote) throw unavailable(`git objects are missing and there is no remote to restore them from (${remoteProblem}): ${summarizeMissing(local.missing)}`);
          const r = await withSource(root, remote, env, (src) => repairObjects(gitdir, [src]));
          report.local = { ...r, source: remote.kind === "local" ? remote.gitdir : remote.url };
          lost.push(...r.lost);
          local = await checkConnectivity(gitdir);
        }
        if (remote?.kind === "local" && needs(theirs)) {
          const r = await repairObjects(remote.gitdir, [gitdir]);
          report.remote = { ...r, source: gitdir };
          lost.push(...r.lost);
          theirs = await checkConnectivity(remote.gitdir);
        }
      });
    } finally {
      store.close();
    }
  }
  const checks = [objectsCheck("git objects", local, "memsync doctor --repair")];
  if (theirs && remote?.kind === "local") checks.push(objectsCheck(`remote objects (${remote.gitdir})`, theirs, "memsync doctor --repair"));
  if (lost.length) {
    checks.push({ check: "lost objects", ok: false, detail: `${lost.length} object(s) neither this store nor the remote has, left as they are: ${summarizeMissing(lost, 10)}` });
  }
  return { checks, lost, ...(report.local || report.remote ? { repair: report } : {}) };
}

/** An object store to take missing objects from: a local remote's own, or a fresh fetch of an HTTP remote into a temporary folder. */
async function withSource<T>(root: string, remote: Remote, env: OpsEnv, fn: (gitdir: string) => Promise<T>): Promise<T> {
  if (remote.kind === "local") return fn(remote.gitdir);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "memsync-repair-"));
  try {
    const git = (await import("isomorphic-git")).default;
    await git.init({ fs, dir: tmp, bare: true, defaultBranch: "main" });
    // isomorphic-git maps what it fetches through the remote's refspec (memsync drops the ref writes)
    await git.setConfig({ fs, gitdir: tmp, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" });
    const { fetchBranchInto } = await import("../sync/exchange.ts");
    const { headBranch } = await import("../sync/connectivity.ts");
    await fetchBranchInto(tmp, remote, headBranch(`${root}/.git`) ?? "refs/heads/main", env.credentials ?? {});
    return await fn(tmp);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Whether an error says a git object is missing: isomorphic-git's NotFoundError naming an object
 * id, or memsync's own copy finding a hole.
 */
export function isMissingObjectError(e: unknown): boolean {
  const msg = e instanceof Error ? e.message : String(e);
  return /Could not find [0-9a-f]{40}|git object [0-9a-f]{40} .*is missing|is damaged \(its content hashes/.test(msg);
}

/**
 * The repair sync runs on itself after failing on a missing object (doctor --repair's work, for
 * the store and a remote on a local path): the objects restored, and those no one has.
 */
export async function healObjects(env: OpsEnv): Promise<{ restored: number; lost: MissingObject[] }> {
  const r = await objectChecks(env, true);
  return { restored: (r.repair?.local?.restored ?? 0) + (r.repair?.remote?.restored ?? 0), lost: r.lost };
}
