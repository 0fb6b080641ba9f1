import type { ProgressListener } from "../../sync/progress.ts";
import { cwd } from "../../runtime/host.ts";
import { type Flags, opsEnv } from "./options.ts";

// How a command runs an operation: through the catalogue (ops/catalogue), with plain values from
// its flags, this process's environment and working directory. Commands never reach store/ or
// sync/ themselves.

export async function call<O = any>(name: string, flags: Flags, input: Record<string, unknown>, progress?: ProgressListener): Promise<O> {
  const { runOp } = await import("../../ops/catalogue/run.ts");
  return runOp<O>(name, { env: opsEnv(flags), cwd: cwd(), ...(progress ? { progress } : {}) }, dropUndefined(input));
}

/** An input without the keys no flag gave (the schema fills in their defaults). */
function dropUndefined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}
