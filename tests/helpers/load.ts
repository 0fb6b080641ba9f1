import os from "node:os";

/**
 * How much slower than a quiet machine this one is now, from 1 to `cap`: runnable processes per
 * core (the 1-minute load average over the core count). For the few tests whose limits are about
 * time rather than correctness (a chaos run's time box, when a process counts as hung): they
 * stretch by it, so a machine at load 30 on 2 cores is given more time, never a weaker check.
 */
export function slowness(cap = 4): number {
  return Math.min(cap, Math.max(1, os.loadavg()[0]! / Math.max(1, os.cpus().length)));
}
