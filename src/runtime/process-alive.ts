/**
 * Whether a process with this id is running, by signal 0. Only ESRCH says it is gone: EPERM (ours
 * to see, not to signal) and anything unsure count as running, so a live holder's lock or copy is
 * never taken for a dead one's.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code !== "ESRCH";
  }
}
