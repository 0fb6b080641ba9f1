import fs from "node:fs";
import git from "isomorphic-git";

// A store is a git working tree. isomorphic-git makes the repository, so no native git is needed
// on the machine; this module is loaded only by the commands that touch git.

export interface Author {
  name: string;
  email: string;
}

export async function initRepo(root: string, files: readonly string[], author: Author, message: string): Promise<{ initialized: boolean; commit: string | null }> {
  const initialized = !fs.existsSync(`${root}/.git`);
  if (initialized) await git.init({ fs, dir: root, defaultBranch: "main" });
  if (files.length === 0) return { initialized, commit: null };
  for (const filepath of files) await git.add({ fs, dir: root, filepath });
  const commit = await git.commit({ fs, dir: root, message, author, committer: author });
  return { initialized, commit };
}
