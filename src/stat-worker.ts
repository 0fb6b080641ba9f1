import { reluctantJit } from "./runtime/jit-policy.ts";
import { openFoldersThroughLibc } from "./store/folder-lstat.ts";
import { DONE, DONE_NOTED, FOLDER_NUMS, putShards, readFolder, SHARD_SLOTS, type SnapshotJob, type SnapshotNote } from "./store/folder-snapshot.ts";

// A thread of a status's parallel folder snapshot (store/parallel-snapshot.ts): it takes folders
// from the shared counter until none is left, writes each one's numbers into shared memory and
// then marks it done (posting its temp files' and links' names first, when it has any). It sits
// at the top of src/ because the compiled binary keeps its entry points by their path under src/
// and its code at the root (see stat-worker-url.ts). `fault` makes it fail on purpose (tests).

// a status's few thousand stats, as on the main thread: with the usual policy this thread's
// compiler threads compiled its folder loop (DFG, 3-29 ms of CPU at 10k; docs/benchmarks.md, status9)
reluctantJit();
// its folders opened through libc: this JS world never loads node:fs for them (store/lazy-fs.ts)
openFoldersThroughLibc();

declare const self: { onmessage: ((e: MessageEvent<SnapshotJob>) => void) | null; postMessage(data: SnapshotNote): void; close(): void };

self.onmessage = (e) => {
  const { claims, results, shards: shardSlots, tops, paths, id, fault } = e.data;
  if (fault === "start") throw new Error("stat worker: failing at start (fault injection)");
  if (fault === "hang") return;
  const counter = new Int32Array(claims);
  const shared = new Float64Array(results);
  const slots = new Int16Array(shardSlots);
  const n = paths.length;
  for (;;) {
    const unit = Atomics.add(counter, 0, 1);
    if (unit >= n) break;
    Atomics.store(counter, 1 + unit, id);
    if (fault === "midway") throw new Error("stat worker: failing after taking a folder (fault injection)");
    const { nums, temps, links, shards } = readFolder(paths[unit]!);
    shared.set(nums, unit * FOLDER_NUMS);
    if (unit < tops) putShards(slots, unit * SHARD_SLOTS, shards);
    const noted = temps.length > 0 || links.length > 0;
    if (noted) self.postMessage({ unit, temps, links });
    // after the numbers (and the note): the main thread reads them once it sees this
    Atomics.store(counter, 1 + n + unit, noted ? DONE_NOTED : DONE);
  }
  self.postMessage({ end: true });
  // ended here, while the main thread still works, rather than torn down by its terminate() at
  // the end of the look (up to ~5 ms of a status's wall under load, measured: status11)
  self.close();
};
