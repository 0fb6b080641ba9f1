import * as v from "../../core/model/valibot.ts";
import { Int, Num } from "../../core/model/common.ts";
import { type IdRef, parseIdRef } from "../../core/ids.ts";
import type { OpImpl, OutputSchema } from "./index.ts";
import { ID_TEXT_MAX, MAX_IDS } from "./limits.ts";

// Pieces the catalogue's input schemas share. Ids are checked twice over: the schema says an id
// is a short string; parseIds (called before a store is opened) refuses anything that is not a
// full id or an abbreviation of one, with invalid_input, so "../x" never reaches a path.

export { MAX_IDS };

export const IdText = v.pipe(v.string(), v.minLength(1), v.maxLength(ID_TEXT_MAX));
export const IdList = v.pipe(v.array(IdText), v.minLength(1), v.maxLength(MAX_IDS));
export const Json = v.record(v.string(), v.unknown());
export const Texts = v.pipe(v.array(v.pipe(v.string(), v.maxLength(1000))), v.maxLength(1000));

export const int = (min: number, max: number) => v.pipe(Int(), v.minValue(min), v.maxValue(max));
export const num = (min: number, max: number) => v.pipe(Num(), v.minValue(min), v.maxValue(max));

/** Every id parsed (full or abbreviated) before anything else happens: a bad one refuses the call. */
export function parseIds(ids: readonly string[], what = "id"): IdRef[] {
  return ids.map((id) => parseIdRef(id, what));
}

type Outputs = typeof import("./outputs.ts");

/**
 * An entry's schemas and function. Both schemas are built on first ask: the input by the one
 * call that needs it (not its module's other entries'); the output, with the shared pieces of
 * outputs.ts, only for documents and tests, never by a call.
 */
export function def<I, O>(input: () => OpImpl<I, O>["input"], output: (o: Outputs) => OutputSchema, run: OpImpl<I, O>["run"]): OpImpl<I, O> {
  let schema: OpImpl<I, O>["input"] | undefined;
  let built: OutputSchema | undefined;
  return {
    // built on first use: a module holds several entries, a call needs one schema
    get input() {
      return (schema ??= input());
    },
    output: async () => (built ??= output(await import("./outputs.ts"))),
    run,
  };
}
