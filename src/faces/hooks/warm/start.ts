import { spawn } from "node:child_process";

// Start a store's warm hook server (warm/server.ts) in the background, after the hook has
// answered: detached, in its own session, with no standard stream of the hook's (Claude Code
// waits for the hook's output to end, which a server holding it would never let happen). It
// inherits the environment (its idle time, the socket folder's variables). A server already
// answering makes the new one exit at once.

export function startServer(self: readonly string[], realRoot: string): void {
  try {
    const [cmd, ...pre] = self;
    const child = spawn(cmd!, [...pre, "hook-server", "--store", realRoot], { detached: true, stdio: "ignore", cwd: "/" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // only ever a speed-up: the hooks run in-process without it
  }
}
