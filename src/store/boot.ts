import { readFileSync } from "node:fs";

// Which boot of the machine a durable record was written in (Linux: the kernel's random boot id).
// A record found from another boot means the machine restarted since: its page cache, and any
// write not yet flushed from it, may be gone (a killed process loses nothing of what it wrote).
// One reader for every such record: a pull's checkout intent (sync/checkout.ts), a bulk write's
// marker (bulk-write.ts) and the redo marker (redo.ts). Tests stand in for a crash by writing
// another boot into those records.

const BOOT_ID = "/proc/sys/kernel/random/boot_id";

let cached: string | null | undefined;

/** This boot of the machine, or null where it cannot be told (not Linux). Read once per process. */
export function bootId(): string | null {
  if (cached !== undefined) return cached;
  try {
    cached = readFileSync(BOOT_ID, "utf8").trim() || null;
  } catch {
    cached = null;
  }
  return cached;
}
