import process from "node:process";

/**
 * The CPU time fn takes, in milliseconds (user + system, this process). Tests that bound how long
 * pure work takes (a pattern that must stay linear) measure this rather than the wall clock: on a
 * machine at load 30 a process gets a fifteenth of a core, and wall time says nothing about the
 * work. Works under Bun and Deno.
 */
export function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
