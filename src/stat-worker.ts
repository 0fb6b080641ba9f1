import { FolderRecorder } from "./store/folder-snapshot.ts";
import type { SnapshotJob } from "./store/parallel-snapshot.ts";

// A thread of a status's parallel folder snapshot (store/parallel-snapshot.ts): it takes folders
// from the shared counter until none is left and sends back what it found. It sits at the top of
// src/ because the compiled binary keeps its entry points by their path under src/ and its code
// at the root (see stat-worker-url.ts). `fault` makes it fail on purpose (tests of the fallback).

declare const self: { onmessage: ((e: MessageEvent<SnapshotJob>) => void) | null; postMessage(data: unknown, transfer?: ArrayBuffer[]): void };

self.onmessage = (e) => {
  const { claims, paths, id, fault } = e.data;
  if (fault === "start") throw new Error("stat worker: failing at start (fault injection)");
  if (fault === "hang") return;
  const counter = new Int32Array(claims);
  const rec = new FolderRecorder();
  for (;;) {
    const unit = Atomics.add(counter, 0, 1);
    if (unit >= paths.length) break;
    Atomics.store(counter, 1 + unit, id);
    if (fault === "midway") throw new Error("stat worker: failing after taking a folder (fault injection)");
    rec.take(unit, paths[unit]!);
  }
  const out = rec.encoded();
  self.postMessage(out, [out.nums.buffer as ArrayBuffer]);
};
