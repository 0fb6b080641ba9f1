import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BIN, fromTemplate, git, initStore, memsync, memsyncJson, snapshot, tempDir } from "./env.ts";

// Machines syncing through a shared remote: a bare repository in a temp folder (the hub), stores
// made beside it, and the shorthands the sync tests share. Real processes, real git.

export interface Hub {
  root: string;
  bare: string;
}

/** A temp folder holding an empty bare repository (hub.git) whose branch is main. */
export function hub(): Hub {
  const root = tempDir();
  const bare = path.join(root, "hub.git");
  assert.equal(git(root, "init", "-q", "--bare", "-b", "main", bare).status, 0);
  return { root, bare };
}

/** Plain http:// is for a loopback test server only, and memsync wants that said. */
export const insecure = (remote: string) => (remote.startsWith("http://") ? ["--insecure-http"] : []);

/**
 * A new store root/name with `remote` as its remote; `env` for both commands (e.g. MEMSYNC_MACHINE).
 * The store is a copy of one `memsync init` made once per test process for this name and env (so
 * machines a and b still have histories of their own, as two inits give); a path remote is set
 * as `memsync remote set` sets it (two keys in .git/config), an HTTP one by memsync itself.
 */
export function machine(root: string, name: string, remote: string, env: Record<string, string> = {}): string {
  const dir = fromTemplate(`machine ${name} ${JSON.stringify(env)}`, (d) => initStore(d, env), path.join(root, name));
  if (/^https?:/.test(remote)) {
    assert.equal(memsync(["--store", dir, "remote", "set", remote, ...insecure(remote)], { env }).code, 0);
  } else {
    // the two keys as git config writes them (two git processes per machine otherwise)
    const url = path.resolve(remote);
    assert.ok(!/["\\\n]/.test(url), `a remote path git config would need to quote: ${url}`);
    const config = path.join(dir, ".git/config");
    const ends = fs.readFileSync(config, "utf8").endsWith("\n") ? "" : "\n"; // isomorphic-git writes no last newline
    fs.appendFileSync(config, `${ends}[remote "origin"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`);
  }
  return dir;
}

export const sync = (dir: string) => memsyncJson(["--store", dir, "sync"]);
export const save = (dir: string, text: string) => memsyncJson(["--store", dir, "save", text]).memory.id as string;

/** The synced files (not git's or memsync's machine-local folders). */
export const synced = (dir: string) => snapshot(dir, (rel) => rel === ".git" || rel === ".memsync");

/** Start memsync and SIGKILL it after `ms` (it may finish first); its exit code, null when killed. */
export function killAfter(args: string[], ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { stdio: "ignore", env: { ...process.env, HOME: tempDir("memsync-home-"), MEMSYNC_MACHINE: "test-machine" } });
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * Stores (and bare remotes, ending in .git) that git and memsync find whole: fsck --strict clean,
 * native git status clean, no checkout left unfinished, and (withStatus) memsync's status healthy.
 */
export function healthy(dirs: readonly string[], opts: { withStatus?: boolean } = {}): void {
  for (const d of dirs) {
    const fsck = git(d, "fsck", "--strict", "--no-dangling");
    assert.equal(fsck.status, 0, `${d}: ${fsck.stderr}`);
    if (d.endsWith(".git")) continue;
    assert.equal(git(d, "status", "--porcelain").stdout, "", `${d}: native git sees a clean store`);
    assert.equal(fs.existsSync(path.join(d, ".memsync/checkout.json")), false, "no checkout left unfinished");
    if (opts.withStatus) assert.match(memsync(["--store", d, "status"]).stdout, /health: healthy/);
  }
}
