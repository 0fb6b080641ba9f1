import fs from "node:fs";
import git from "isomorphic-git";

// A store is a git working tree. isomorphic-git makes the repository and writes its config, so
// no native git is needed on the machine; this module is loaded only by the commands that touch
// git.

export interface Author {
  name: string;
  email: string;
}

export const DRIVER_KEY = "merge.memsync.driver";

export async function initRepo(root: string, files: readonly string[], author: Author, message: string): Promise<{ initialized: boolean; commit: string | null }> {
  const initialized = !fs.existsSync(`${root}/.git`);
  if (initialized) await git.init({ fs, dir: root, defaultBranch: "main" });
  if (files.length === 0) return { initialized, commit: null };
  for (const filepath of files) await git.add({ fs, dir: root, filepath });
  const commit = await git.commit({ fs, dir: root, message, author, committer: author });
  return { initialized, commit };
}

/**
 * Register memsync as the merge driver the store's .gitattributes names (merge=memsync), in the
 * repository's own config, so native git merging this store merges records field by field.
 */
export async function registerMergeDriver(root: string, driverCommand: string): Promise<void> {
  await git.setConfig({ fs, dir: root, path: "merge.memsync.name", value: "memsync: merge memory records field by field" });
  await git.setConfig({ fs, dir: root, path: DRIVER_KEY, value: driverCommand });
}

export async function mergeDriverConfig(root: string): Promise<string | undefined> {
  const v = (await git.getConfig({ fs, dir: root, path: DRIVER_KEY })) as unknown;
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}
