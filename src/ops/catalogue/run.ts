import { invalidInput, notFound, withOperation } from "../../core/errors.ts";
import { parseWith } from "../../core/model/validate.ts";
import { inputShapeProblem } from "../../core/prototype-keys.ts";
import { coded } from "./errors.ts";
import { startCommand } from "../../runtime/command-scope.ts";
import { withProgress } from "../../sync/progress.ts";
import { type OpCall, opNamed } from "./index.ts";

// Running a catalogue entry: the input checked against its schema (defaults filled in), the
// function run with this call's progress, and every failure a MemsyncError with a code, which
// each face maps to its own form (exit codes in the CLI, HTTP statuses in the API).

export async function runOp<O = unknown>(name: string, call: OpCall, input: unknown): Promise<O> {
  const info = opNamed(name);
  if (!info) throw notFound(`no operation ${JSON.stringify(name.slice(0, 40))} in this build`);
  const end = startCommand();
  try {
    const impl = await info.load();
    refusePrototypeKeys(name, input);
    const parsed = parseWith(impl.input, input ?? {});
    if (!parsed.ok) throw invalidInput(`${name}: ${parsed.problem}`);
    const value = parsed.value;
    return (await withProgress(call.progress, () => impl.run(call, value))) as O;
  } catch (e) {
    // a write refused by a store this process may not write, wherever it was refused: said as such
    const refused = info.readOnly ? e : (await import("../../store/read-only.ts")).asReadOnly(e, call.env.storeRoot);
    throw withOperation(coded(refused), name);
  } finally {
    end();
  }
}

/** An input holding a key named __proto__, constructor or prototype anywhere, or nested too deep: bad input, nothing run. */
export function refusePrototypeKeys(name: string, input: unknown): void {
  const problem = inputShapeProblem(input);
  if (problem !== null) throw invalidInput(`${name}: ${problem.message}`);
}
