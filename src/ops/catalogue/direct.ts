import { inputShapeProblem } from "../../core/prototype-keys.ts";
import { startCommand } from "../../runtime/command-scope.ts";
import { coded } from "./errors.ts";
import type { OpCall } from "./index.ts";
import { plainIdList } from "./limits.ts";

// The catalogue's get, save and status without the catalogue: a cold command spent ~1 ms loading the
// operation table, the record operations' module and their input schemas only to check an input
// that the command line had already made plain (issue 16). An input the entry's schema passes
// unchanged runs the entry's own function here (ops/get.ts getByIds, ops/save-entry.ts), with the
// same error coding; anything else returns null and goes through the catalogue
// (ops/catalogue/run.ts), so every refusal stays the schema's.

/** The get entry's input schema (IdList), as a plain test. */
function plainIds(input: Record<string, unknown>): string[] | null {
  return Object.keys(input).length === 1 && plainIdList(input.ids) ? input.ids : null;
}

/** Keys the schema library leaves out of a record it copies. */
const DROPPED_KEYS = new Set(["__proto__", "prototype", "constructor"]);

/**
 * The save entry's input for one memory (`memory`: a record of any values), as a plain test: a
 * plain object none of whose keys the schema would leave out. The copy is what the schema gives.
 */
function plainMemory(input: Record<string, unknown>): Record<string, unknown> | null {
  const memory = input.memory;
  if (Object.keys(input).length !== 1 || typeof memory !== "object" || memory === null || Object.getPrototypeOf(memory) !== Object.prototype) return null;
  const keys = Reflect.ownKeys(memory);
  if (keys.some((k) => typeof k !== "string" || DROPPED_KEYS.has(k) || !Object.prototype.propertyIsEnumerable.call(memory, k))) return null;
  return { ...(memory as Record<string, unknown>) };
}

/** Run `name` without the catalogue when this input allows it; null when the catalogue must. */
export function runDirect<O>(name: string, call: OpCall, input: Record<string, unknown>): Promise<O> | null {
  // a key or a nesting the catalogue refuses (ops/catalogue/run.ts) goes there to be refused
  if (call.progress || inputShapeProblem(input) !== null) return null;
  let run: (() => Promise<unknown>) | null = null;
  if (name === "get") {
    const ids = plainIds(input);
    // full ids on a settled store are read without the Store (ops/get-settled.ts)
    if (ids) run = async () => (await import("../get-settled.ts")).getSettled(call.env, ids) ?? (await import("../get.ts")).getByIds(call.env, ids);
  } else if (name === "save") {
    const memory = plainMemory(input);
    if (memory) run = async () => (await import("../save-entry.ts")).saveEntry(call, { memory });
  } else if (name === "status" && Object.keys(input).length === 0) {
    // the status entry's input schema is an empty object; its function is storeStatus
    run = async () => (await import("../status.ts")).storeStatus(call.env);
  }
  if (!run) return null;
  const end = startCommand();
  return run()
    .then(
      (out) => out as O,
      (e: unknown) => {
        throw coded(e);
      },
    )
    .finally(end);
}
