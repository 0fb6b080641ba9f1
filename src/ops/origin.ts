import type { Origin } from "../core/records.ts";
import type { StoreFs } from "../store/fs-port.ts";
import { machineAndReplica } from "../store/machine.ts";
import type { OpsEnv } from "./context.ts";

// Apart from ops/new-memory.ts: context.ts (which every operation loads) needs this alone, not
// the record building and gist rules a save loads.

/** Who writes, and when: this machine's ids in the store at `root` (machine.json), the user, the time (seconds). */
export function originIn(fs: StoreFs, root: string, env: Pick<OpsEnv, "hostName" | "machineOverride" | "user">, now: number): Origin {
  // the host name read only if machine.json lacks an id (hostOpsEnv looks it up when first read)
  const ids = machineAndReplica(fs, root, () => env.hostName, env.machineOverride);
  return { now, machine: ids.machine, user: env.user, replica: ids.replica };
}
