import process from "node:process";
import { env } from "../runtime/host.ts";

// Fault injection for crash tests: MEMSYNC_FAULT makes this process SIGKILL itself (as a crash or
// the OOM killer would) at a chosen point, so a test can stop it exactly between two durable steps
// rather than at a random delay. Unset (always, outside tests) it costs one environment read at
// load and an integer comparison per object. Comma-separated points, each optionally ":N" (die
// the Nth time the point is reached; default the first):
//   object:N        after the Nth git object this process wrote (writeLooseObject, so also every
//                   object copyReachable copies; objects already present are not counted)
//   copied          after copyReachable has written everything, before the caller moves any ref
//   pack            in an HTTP fetch, after the received .pack is in place and before its .idx
//   pack-written    in a commit of many objects (pack-write.ts), after its .pack is in place and
//                   before its .idx
//   pack-entry:N    after the Nth object a pack writer (a commit's pack, a repack) appended
//   repack-written  in a repack, after the new pack and its index are in place, before anything goes
//   repack-delete:N in a repack, after the Nth pack index or loose object it removed
//   import-written  in an import, after its records and its `fill` journal entry are written, before
//                   it commits them (store/journal-fill.ts)
//   flatten:N       after the Nth record file a write moved out of a local shard folder (store/local-flatten.ts)
//   record:N        after the Nth record file a change (not an import's bulk write) wrote or removed
//   checkout-intent, checkout-file, checkout-durable, checkout-index, checkout-ref, commit-index, commit-ref:
//                   the steps of a pull's checkout and of a commit (see checkout.ts, commit.ts)

const spec = env("MEMSYNC_FAULT") ?? "";
const wanted = new Map<string, number>();
for (const part of spec.split(",")) {
  if (!part) continue;
  const [point, nth] = part.split(":");
  wanted.set(point!, Math.max(1, Number(nth ?? 1) || 1));
}
const objectLimit = wanted.get("object") ?? Number.POSITIVE_INFINITY;
const reached = new Map<string, number>();
let written = 0;

function die(): never {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable: SIGKILL did not stop the process");
}

/** Called after each object written. */
export function objectWritten(): void {
  if (++written >= objectLimit) die();
}

// MEMSYNC_SLOW_OBJECT_MS (tests): each git object this process makes (writeLooseObject: a commit's,
// a merge's; not those a fetch copies) takes that much longer, as on a disk or a CPU starved under
// load: a commit or merge of N files under the store's lock then lasts N times that, the stretch
// whose silence made other processes' writes give up "store busy"
const slowObjectMs = Number(env("MEMSYNC_SLOW_OBJECT_MS") ?? 0) || 0;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Called as each new object is made. */
export function objectMade(): void {
  if (slowObjectMs > 0) Atomics.wait(sleeper, 0, 0, slowObjectMs);
}

/** A named point: the process dies here when MEMSYNC_FAULT names it (the Nth time, with ":N"). */
export function faultPoint(name: string): void {
  if (wanted.size === 0) return;
  const n = wanted.get(name);
  if (n === undefined) return;
  const seen = (reached.get(name) ?? 0) + 1;
  reached.set(name, seen);
  if (seen >= n) die();
}
