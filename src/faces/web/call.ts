import { runOp } from "../../ops/catalogue/run.ts";
import { opNamed } from "../../ops/catalogue/index.ts";
import type { ApiContext } from "../api/context.ts";

// The page calls catalogue operations only, through the server's gate (writes one at a time).
export function op<O = any>(api: ApiContext, name: string, input: unknown): Promise<O> {
  const readOnly = opNamed(name)?.readOnly ?? false;
  return api.gate.run(!readOnly, () => runOp<O>(name, { env: api.env }, input));
}
