import fs from "node:fs";
import path from "node:path";
import { projectDirName } from "../core/claude/paths.ts";
import { repositoryOf } from "./project.ts";

// Where Claude Code's files for a project are: its settings and its auto-memory folder. The
// project is the git repository the session runs in (all its folders and worktrees share one
// auto-memory folder, as Claude Code does), or the folder itself outside git.

export interface ClaudeEnv {
  home: string;
  /** CLAUDE_CONFIG_DIR: Claude Code's own folder when not ~/.claude. */
  configDir?: string;
  /** CLAUDE_PROJECT_DIR, set by Claude Code for hooks. */
  projectDir?: string;
}

export function claudeHome(env: ClaudeEnv): string {
  return env.configDir ?? path.join(env.home, ".claude");
}

/** The project a session in `cwd` belongs to, as a folder path. */
export function projectRoot(cwd: string, env: ClaudeEnv): string {
  return repositoryOf(env.projectDir ?? cwd)?.mainTop ?? path.resolve(env.projectDir ?? cwd);
}

/** ~/.claude/projects/<encoded project>/memory/MEMORY.md, as Claude Code names it. */
export function memoryMdPath(root: string, env: ClaudeEnv): string {
  const projects = path.join(claudeHome(env), "projects");
  const { name, exact } = projectDirName(root);
  let dir = name;
  if (!exact) {
    // a long path: Claude Code adds a hash of its own to the shortened name; use its folder
    const found = fs.existsSync(projects) ? fs.readdirSync(projects).filter((n) => n.startsWith(`${name}-`)).sort() : [];
    dir = found[0] ?? name;
  }
  return path.join(projects, dir, "memory", "MEMORY.md");
}

/**
 * Replace a file's text atomically (temp file in the same folder, then rename). A symbolic link
 * (settings.json kept in a dotfiles repository and linked into ~/.claude) is followed: the file
 * it leads to is replaced and the link stays, where a rename over the link put a plain file in its
 * place and left the user's own copy behind, unchanged.
 */
export function replaceFile(at: string, text: string): void {
  const file = linkTarget(at);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode;
  fs.writeFileSync(tmp, text, { mode: mode === undefined ? 0o644 : mode & 0o777 });
  fs.renameSync(tmp, file);
}

/** Where a path leads through symbolic links (also a dangling one's target); the path itself when it is none. */
function linkTarget(file: string): string {
  let at = path.resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return at;
    at = path.resolve(path.dirname(at), fs.readlinkSync(at));
  }
  return at;
}
