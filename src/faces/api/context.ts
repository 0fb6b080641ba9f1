import type { OpsEnv } from "../../ops/context.ts";
import type { Gate } from "../../ops/gate.ts";
import type { SyncRunner } from "./sync-runner.ts";

// What every route of one server shares.
export interface ApiContext {
  env: OpsEnv;
  gate: Gate;
  sync: SyncRunner;
  /** How to run this memsync as a process. */
  self: readonly string[];
}
