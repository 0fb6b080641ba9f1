import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { invalidInput, unavailable } from "../core/errors.ts";
import { checkHttpUrl, safeUrl } from "./remote-url.ts";

// Where a store syncs to. Two kinds of remote: smart HTTP(S) (any git host; the token comes from
// MEMSYNC_GIT_TOKEN or a credentials file, never from the URL or .git/config; which URLs are
// accepted: remote-url.ts), and a local path to a bare repository (a shared disk). ssh is not
// something isomorphic-git speaks.

export type Remote = { kind: "http"; url: string } | { kind: "local"; gitdir: string };

export interface RemoteOptions {
  /** Plain http:// to a loopback host (127.0.0.0/8, ::1, localhost) is allowed. */
  insecureHttp?: boolean;
}

const REMOTE_KEY = "remote.origin.url";
/**
 * The URL plain http was allowed for (remote set/clone --insecure-http), in .git/config: machine
 * local, never synced, and tied to that URL, so a remote changed by other means is checked again.
 */
const INSECURE_KEY = "memsync.insecureHttp";

export function classifyRemote(raw: string, cwd: string, opts: RemoteOptions = {}): Remote {
  const url = raw.trim();
  if (/^(ssh:\/\/|git@|[\w.-]+@[\w.-]+:)/.test(url)) {
    throw invalidInput(`ssh remotes are not supported (${safeUrl(url)}): use an https URL with a token in MEMSYNC_GIT_TOKEN, or a path to a bare repository`);
  }
  if (/^https?:\/\//i.test(url)) return { kind: "http", url: checkHttpUrl(url, opts.insecureHttp === true) };
  if (/^file:\/\//i.test(url)) return classifyRemote(decodeURIComponent(new URL(url).pathname), cwd);
  const dir = path.resolve(cwd, url);
  const bare = fs.existsSync(path.join(dir, "objects")) && fs.existsSync(path.join(dir, "HEAD")) ? dir : null;
  const nonBare = fs.existsSync(path.join(dir, ".git", "objects")) ? path.join(dir, ".git") : null;
  const gitdir = bare ?? nonBare;
  if (!gitdir) throw invalidInput(`${dir} is not a git repository (make one with: git init --bare ${dir})`);
  return { kind: "local", gitdir };
}

export async function setRemote(root: string, raw: string, cwd: string, opts: RemoteOptions = {}): Promise<Remote> {
  const remote = classifyRemote(raw, cwd, opts);
  const insecure = remote.kind === "http" && remote.url.startsWith("http:") ? remote.url : undefined;
  const url = remote.kind === "http" ? remote.url : remote.gitdir;
  const before = (await git.getConfig({ fs, dir: root, path: REMOTE_KEY })) as unknown;
  if (typeof before === "string" && before !== url) {
    // the old remote's tracking refs say nothing of the new one: kept, they made status count no
    // commit to push and sync report none pushed to a new, empty remote
    for (const ref of await git.listRefs({ fs, dir: root, filepath: "refs/remotes/origin" })) {
      await git.deleteRef({ fs, dir: root, ref: `refs/remotes/origin/${ref}` });
    }
  }
  await git.setConfig({ fs, dir: root, path: REMOTE_KEY, value: url });
  await git.setConfig({ fs, dir: root, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" });
  await git.setConfig({ fs, dir: root, path: INSECURE_KEY, value: insecure });
  return remote;
}

export async function getRemote(root: string): Promise<Remote> {
  const v = (await git.getConfig({ fs, dir: root, path: REMOTE_KEY })) as unknown;
  if (typeof v !== "string" || v === "") throw unavailable("no remote is set (run: memsync remote set <url or path to a bare repository>)");
  const allowed = (await git.getConfig({ fs, dir: root, path: INSECURE_KEY })) as unknown;
  const opts = { insecureHttp: typeof allowed === "string" && allowed === v.trim() };
  // an HTTP URL refused now (set by hand, or allowed for another URL) says why, as remote set would
  if (/^https?:\/\//i.test(v.trim())) return classifyRemote(v, root, opts);
  try {
    return classifyRemote(v, root, opts);
  } catch {
    // it was a repository when it was set: now it cannot be reached (a disk not mounted). Never
    // "make one with git init --bare" here: an empty repository made there would take a push of
    // this store alone, a second hub beside the real one
    const dir = path.resolve(root, v.trim());
    throw unavailable(`the remote cannot be reached: ${dir} is not a git repository now (a shared disk not mounted, or moved?); your commits are kept here: sync again when it is back, or memsync remote set NEW_PATH`);
  }
}
