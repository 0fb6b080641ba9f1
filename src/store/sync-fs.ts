import { spawnSync } from "node:child_process";

// Making many files durable at one point. One fsync per file costs 3-8 ms on a common disk (a
// journal commit each), so a transaction that writes thousands of files (an import) would spend
// most of its time there. syncfs(2) flushes the whole file system holding a path in one call:
// coreutils' `sync -f PATH` is that call. Bun and Deno expose no syncfs, hence the process
// (a few ms). Where it is missing or fails (not Linux, an old coreutils, an I/O error), the
// caller falls back to an fsync per file: slower, equally durable.

/** Flush the file system holding `path` (data and metadata, renames included); false if that could not be done. */
export function syncFileSystem(path: string): boolean {
  if (process.platform !== "linux") return false;
  try {
    const r = spawnSync("sync", ["-f", path], { stdio: "ignore", timeout: 120_000 });
    return r.status === 0 && !r.error;
  } catch {
    return false;
  }
}
