import { AsyncLocalStorage } from "node:async_hooks";
import { heartbeat } from "../store/lock-heartbeat.ts";

// Progress of long transfers (object copies, HTTP fetches and pushes). The sync layer reports;
// the caller of one operation says where its reports go (the CLI: one line on a terminal's
// stderr). The listener is bound to that call's async context, not to the module, so two
// operations running at once (two requests to a server) never see each other's progress.

export type ProgressListener = (phase: string, done: number, total?: number) => void;

const current = new AsyncLocalStorage<ProgressListener | undefined>();

/** Run fn with its progress reports (and those of everything it awaits) going to listener. */
export function withProgress<T>(listener: ProgressListener | undefined, fn: () => T): T {
  return current.run(listener, fn);
}

export function progress(phase: string, done: number, total?: number): void {
  // a long step under the store's lock is still moving: another process's writer keeps waiting
  heartbeat();
  current.getStore()?.(phase, done, total);
}
