import { env, writeErr } from "../runtime/host.ts";
import { inPhase } from "../store/lock-heartbeat.ts";

// An opt-in trace of where a sync's time goes (MEMSYNC_SYNC_TRACE=1): one stderr line per phase
// with its wall time and this process's CPU time over it, so a slow sync under contention can be
// told apart as waiting (lock, network, other processes' load) or working. Off, a phase costs one
// boolean test. Phases nest (a push's pull holds a fetch and a merge): a harness adds up leaves.

const on = env("MEMSYNC_SYNC_TRACE") === "1";

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function line(name: string, wallMs: number, cpu: number, extra?: string): void {
  writeErr(`memsync sync-trace: ${name} wall=${wallMs.toFixed(0)} cpu=${cpu.toFixed(0)}${extra ? ` ${extra}` : ""}\n`);
}

/** Run fn as a named phase of the trace. */
export async function traced<T>(name: string, fn: () => Promise<T>): Promise<T> {
  // (the phase, on or off: a waiter for a lock this process holds is told it, lock-holder.ts)
  if (!on) return inPhase(name, fn);
  const t0 = performance.now();
  const c0 = cpuMs();
  try {
    return await inPhase(name, fn);
  } finally {
    line(name, performance.now() - t0, cpuMs() - c0);
  }
}

/** A point event (an attempt lost, a retry's wait) on the trace. */
export function traceNote(name: string, extra: string): void {
  if (on) writeErr(`memsync sync-trace: ${name} ${extra}\n`);
}

/** Whether the trace is on (a caller may skip building what it would print). */
export function tracing(): boolean {
  return on;
}
