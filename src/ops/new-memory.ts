import { makeGist } from "../core/gist.ts";
import { parseId } from "../core/ids.ts";
import type { Memory } from "../core/model/memory.ts";
import { newId } from "../core/new-id.ts";
import { createMemory, type JsonObject, type Origin } from "../core/records.ts";
import { withScopeRules } from "../core/scope.ts";
import type { StoreFs } from "../store/fs-port.ts";
import { machineAndReplica } from "../store/machine.ts";
import type { OpsEnv } from "./context.ts";

/** A memory from fields: its id (given or new), validated, with a gist unless one was given. */
export function newMemory(fields: JsonObject, origin: Origin): Memory {
  const id = typeof fields.id === "string" ? parseId(fields.id) : newId();
  const made = createMemory(fields, id, origin);
  // no gist given (an explicit null is a choice): make one, keeping the memory's entities whole
  return withScopeRules(fields.gist === undefined ? { ...made, gist: makeGist(made.content, "moderate", made.entities) } : made);
}

/** Who writes, and when: this machine's ids in the store at `root` (machine.json), the user, the time (seconds). */
export function originIn(fs: StoreFs, root: string, env: Pick<OpsEnv, "hostName" | "machineOverride" | "user">, now: number): Origin {
  // the host name read only if machine.json lacks an id (hostOpsEnv looks it up when first read)
  const ids = machineAndReplica(fs, root, () => env.hostName, env.machineOverride);
  return { now, machine: ids.machine, user: env.user, replica: ids.replica };
}
