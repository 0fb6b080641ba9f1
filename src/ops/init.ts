import { invalidInput, unavailable } from "../core/errors.ts";
import { nodeFs } from "../store/fs-port.ts";
import { writeStoreSkeleton } from "../store/init-files.ts";
import { LOCAL_DIR, META_FILE } from "../store/layout.ts";
import { machineId } from "../store/machine.ts";
import type { OpsEnv } from "./context.ts";

export interface InitOutcome {
  root: string;
  already_initialized: boolean;
  created: string[];
  git: { initialized: boolean; commit: string | null; merge_driver: string } | null;
}

/** Make a store: the record folders, .meta.json, .gitattributes, .gitignore, and a git repo. */
export async function initStore(env: OpsEnv, opts: { git: boolean } = { git: true }): Promise<InitOutcome> {
  const root = env.storeRoot;
  const st = nodeFs.stat(root);
  if (st && !st.isDir) throw invalidInput(`${root} exists and is not a folder`);
  const result = writeStoreSkeleton(nodeFs, root, Math.floor(Date.now() / 1000));
  let git: InitOutcome["git"] = null;
  if (opts.git) {
    const { initRepo, registerMergeDriver } = await import("../sync/repo-init.ts");
    const machine = machineId(nodeFs, root, () => env.hostName, env.machineOverride);
    const files = result.created.filter((f) => f !== LOCAL_DIR);
    const repo = await initRepo(root, files, { name: env.user ?? "memsync", email: `memsync@${machine}` }, "init: memsync store");
    const driver = env.driverCommand ?? "memsync merge-driver %O %A %B %P %L";
    await registerMergeDriver(root, driver);
    if (repo.commit) {
      const { writeCommitState } = await import("../sync/commit.ts");
      writeCommitState(root, repo.commit);
    }
    git = { ...repo, merge_driver: driver };
  }
  return { root, already_initialized: result.existed, created: result.created, git };
}

export function storeExists(env: OpsEnv): boolean {
  return nodeFs.stat(`${env.storeRoot}/${META_FILE}`)?.isFile ?? false;
}

/**
 * Make the store on first write when nothing is there yet, so the first `memsync save` on a new
 * machine just works. A folder that holds something else is never taken over.
 */
export async function ensureStore(env: OpsEnv): Promise<boolean> {
  const root = env.storeRoot;
  if (storeExists(env)) return false;
  const st = nodeFs.stat(root);
  if (st && (!st.isDir || nodeFs.readdir(root).length > 0)) {
    throw unavailable(`${root} is not a memsync store and is not empty (create one with: memsync init)`);
  }
  await initStore(env);
  return true;
}
