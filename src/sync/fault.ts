import process from "node:process";
import { env } from "../runtime/host.ts";

// Fault injection for crash tests: MEMSYNC_FAULT makes this process SIGKILL itself at a chosen
// point of a transfer, so a test can stop it exactly "between two object writes" rather than at a
// random delay. Unset (always, outside tests) it costs one environment read at load and an integer
// comparison per object. Comma-separated points:
//   object:N  after the Nth git object this process wrote (writeLooseObject, so also every object
//             copyReachable copies; objects already present are not counted)
//   copied    after copyReachable has written everything, before the caller moves any ref
//   pack      in an HTTP fetch, after the received .pack is in place and before its .idx

const spec = env("MEMSYNC_FAULT") ?? "";
const objectLimit = /(?:^|,)object:(\d+)(?:,|$)/.exec(spec)?.[1];
const killAfter = objectLimit === undefined ? Number.POSITIVE_INFINITY : Number(objectLimit);
let written = 0;

function die(): never {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable: SIGKILL did not stop the process");
}

/** Called after each object written. */
export function objectWritten(): void {
  if (++written >= killAfter) die();
}

/** A named point ("copied", "pack"): the process dies here when MEMSYNC_FAULT names it. */
export function faultPoint(name: "copied" | "pack"): void {
  if (spec && spec.split(",").includes(name)) die();
}
