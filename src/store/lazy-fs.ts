// node:fs for the modules a status stat thread loads (stat-worker.ts's graph), loaded on first
// use rather than with the module: each thread is a new JS world, and evaluating node:fs there
// costs ~1.7 ms before the thread takes its first folder (a compiled probe; docs/benchmarks.md,
// status28). Their usual path opens, lists and stats through libc (folder-lstat.ts,
// folder-scan.ts); node:fs meets only the odd cases. On the main thread node:fs is loaded already.

type NodeFs = typeof import("node:fs");

let loaded: NodeFs | undefined;

/** node:fs, loaded the first time it is asked for (getBuiltinModule: Bun and Deno alike; Deno has no require). */
export function lazyFs(): NodeFs {
  loaded ??= process.getBuiltinModule("node:fs") as NodeFs;
  return loaded;
}
