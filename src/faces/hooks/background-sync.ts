import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// Syncing from a hook without ever holding up the session: sync runs as its own process, and
// the hook waits for it only so long. A sync that needs longer finishes on its own in the
// background (it is never killed halfway: that could leave a remote's ref lock behind), and its
// result is read by the next hook. Output goes to files under .memsync/, not to the hook.

const DIR = ".memsync";
const RESULT = "hook-sync.json";
const LOG = "hook-sync.log";
const STARTED = "hook-sync.started";

export interface SyncWait {
  /** finished: exit code known; running: left in the background; skipped: not started. */
  state: "finished" | "running" | "skipped";
  ok?: boolean;
  /** The sync's --json summary, or its error line. */
  detail?: string;
}

/** Seconds since the last hook-started sync began (Infinity: never). */
export function sinceLastSync(root: string, nowMs = Date.now()): number {
  const st = fs.statSync(path.join(root, DIR, STARTED), { throwIfNoEntry: false });
  return st ? (nowMs - st.mtimeMs) / 1000 : Number.POSITIVE_INFINITY;
}

/** Note that a sync starts now (sinceLastSync reads it; a server's own syncs note theirs too). */
export function markSyncStarted(root: string, verb: string): void {
  const dir = path.join(root, DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, STARTED), `${new Date().toISOString()} ${verb}\n`);
}

export function startSync(root: string, self: string[], verb: "sync" | "pull", waitMs: number): Promise<SyncWait> {
  const dir = path.join(root, DIR);
  markSyncStarted(root, verb);
  const out = fs.openSync(path.join(dir, RESULT), "w");
  const log = fs.openSync(path.join(dir, LOG), "a");
  const [cmd, ...pre] = self;
  const child = spawn(cmd!, [...pre, "--store", root, verb, "--json"], { detached: true, stdio: ["ignore", out, log] });
  fs.closeSync(out);
  fs.closeSync(log);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.unref();
      resolve({ state: "running" });
    }, waitMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ state: "finished", ok: false, detail: e.message });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      const result = fs.readFileSync(path.join(dir, RESULT), "utf8").trim();
      const lastError = code === 0 ? "" : (fs.readFileSync(path.join(dir, LOG), "utf8").trim().split("\n").pop() ?? "");
      resolve({ state: "finished", ok: code === 0, detail: code === 0 ? result : lastError.replace(/^memsync: /, "") });
    });
  });
}
