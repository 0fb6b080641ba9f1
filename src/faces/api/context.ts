import type { OpsEnv } from "../../ops/context.ts";
import type { Gate } from "../../ops/gate.ts";
import type { HealthReport } from "./health.ts";
import type { SyncRunner } from "./sync-runner.ts";

// What every route of one server shares.
export interface ApiContext {
  env: OpsEnv;
  gate: Gate;
  sync: SyncRunner;
  /** How to run this memsync as a process. */
  self: readonly string[];
  /** GET /v1/health's answer (set by createApi): cheap facts and the last full check, never an O(store) pass in the request. */
  health?: (fullNow: boolean) => Promise<HealthReport>;
}
