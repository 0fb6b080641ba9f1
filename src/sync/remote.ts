import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { invalidInput, unavailable } from "../core/errors.ts";

// Where a store syncs to. Two kinds of remote: smart HTTP(S) (any git host; the token comes from
// MEMSYNC_GIT_TOKEN or a credentials file, never from the URL or .git/config), and a local path to
// a bare repository (a shared disk). ssh is not something isomorphic-git speaks.

export type Remote = { kind: "http"; url: string } | { kind: "local"; gitdir: string };

const REMOTE_KEY = "remote.origin.url";

export function classifyRemote(raw: string, cwd: string): Remote {
  const url = raw.trim();
  if (/^(ssh:\/\/|git@|[\w.-]+@[\w.-]+:)/.test(url)) {
    throw invalidInput(`ssh remotes are not supported (${url}): use an https URL with a token in MEMSYNC_GIT_TOKEN, or a path to a bare repository`);
  }
  if (/^https?:\/\//i.test(url)) {
    const u = new URL(url);
    if (u.username || u.password) throw invalidInput("a remote URL must not carry credentials: put the token in MEMSYNC_GIT_TOKEN");
    return { kind: "http", url: u.toString() };
  }
  if (/^file:\/\//i.test(url)) return classifyRemote(decodeURIComponent(new URL(url).pathname), cwd);
  const dir = path.resolve(cwd, url);
  const bare = fs.existsSync(path.join(dir, "objects")) && fs.existsSync(path.join(dir, "HEAD")) ? dir : null;
  const nonBare = fs.existsSync(path.join(dir, ".git", "objects")) ? path.join(dir, ".git") : null;
  const gitdir = bare ?? nonBare;
  if (!gitdir) throw invalidInput(`${dir} is not a git repository (make one with: git init --bare ${dir})`);
  return { kind: "local", gitdir };
}

export async function setRemote(root: string, raw: string, cwd: string): Promise<Remote> {
  const remote = classifyRemote(raw, cwd);
  await git.setConfig({ fs, dir: root, path: REMOTE_KEY, value: remote.kind === "http" ? remote.url : remote.gitdir });
  await git.setConfig({ fs, dir: root, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" });
  return remote;
}

export async function getRemote(root: string): Promise<Remote> {
  const v = (await git.getConfig({ fs, dir: root, path: REMOTE_KEY })) as unknown;
  if (typeof v !== "string" || v === "") throw unavailable("no remote is set (run: memsync remote set <url or path to a bare repository>)");
  try {
    return classifyRemote(v, root);
  } catch (e) {
    // it was a repository when it was set: now it cannot be reached (a disk not mounted)
    throw unavailable(`the remote cannot be reached: ${e instanceof Error ? e.message : String(e)}`);
  }
}
