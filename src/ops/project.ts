import path from "node:path";
import { localProjectId, normalizeRemoteUrl, remoteUrlFromConfig } from "../core/project-id.ts";
import { nodeFs, type StoreFs } from "../store/fs-port.ts";

// Which project a directory belongs to, without running git: walk up to the enclosing `.git`,
// read its config, normalize the remote (core/project-id.ts). `.git` may be a file (a linked
// worktree or a submodule: "gitdir: <path>"); a worktree's config lives in the common dir.
//
// The answer, in order: the normalized URL of remote "origin" (else of the only, or first, remote)
// -> e.g. "github.com/org/repo", the same on every machine; a repository whose remotes are all
// local paths, or that has none -> "local:<repository folder name>" (clearly not a remote id, and
// the same wherever the folder has the same name); not inside a git repository -> null.

type ReadFs = Pick<StoreFs, "readText" | "stat">;

function readOrNull(fs: ReadFs, p: string): string | null {
  try {
    return fs.readText(p);
  } catch {
    return null;
  }
}

/** The enclosing repository: its top folder and its git dir, or null. */
export function findGitDir(cwd: string, fs: ReadFs = nodeFs): { top: string; gitDir: string } | null {
  let dir = path.resolve(cwd);
  for (let depth = 0; depth < 256; depth++) {
    const dotGit = path.join(dir, ".git");
    const st = fs.stat(dotGit);
    if (st?.isDir) return { top: dir, gitDir: dotGit };
    if (st?.isFile) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readOrNull(fs, dotGit) ?? "");
      if (m) return { top: dir, gitDir: path.resolve(dir, m[1]!) };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

/** The enclosing repository with its common git dir (a linked worktree shares its main repository's). */
export function repositoryOf(cwd: string, fs: ReadFs = nodeFs): { top: string; gitDir: string; commonDir: string; mainTop: string } | null {
  const repo = findGitDir(cwd, fs);
  if (!repo) return null;
  const common = readOrNull(fs, path.join(repo.gitDir, "commondir"));
  const commonDir = common ? path.resolve(repo.gitDir, common.trim()) : repo.gitDir;
  // a linked worktree belongs to its main repository, not to the worktree's folder
  const mainTop = path.basename(commonDir) === ".git" ? path.dirname(commonDir) : common ? commonDir : repo.top;
  return { ...repo, commonDir, mainTop };
}

export function currentProject(cwd: string, fs: ReadFs = nodeFs): string | null {
  const repo = repositoryOf(cwd, fs);
  if (!repo) return null;
  const url = remoteUrlFromConfig(readOrNull(fs, path.join(repo.commonDir, "config")) ?? "");
  const id = url ? normalizeRemoteUrl(url) : null;
  return id ?? localProjectId(path.basename(repo.mainTop));
}

/**
 * The project an operation works on, the one way every face resolves it: the one given, else none
 * for a global memory, else the project of the working directory (a hook's, or the process's).
 */
export function projectOf(where: { given?: string | null; global?: boolean; cwd: string }, fs: ReadFs = nodeFs): string | null {
  const name = where.given?.trim();
  if (name) return name;
  if (where.global) return null;
  return currentProject(where.cwd, fs);
}
