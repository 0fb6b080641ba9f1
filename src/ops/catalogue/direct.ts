import { startCommand } from "../../runtime/command-scope.ts";
import { coded } from "./errors.ts";
import type { OpCall } from "./index.ts";
import { ID_TEXT_MAX, MAX_IDS } from "./limits.ts";

// The catalogue's get without the catalogue: a cold `get` spent ~3 ms of a ~17 ms start loading the
// operation table, the record operations' module and valibot only to check that a list of ids is
// a list of ids (issue 16). An input the entry's schema passes unchanged runs the entry's own
// function (ops/get.ts getByIds) here, with the same error coding; anything else returns null and
// goes through the catalogue (ops/catalogue/run.ts), so every refusal stays the schema's.

/** The get entry's input schema (IdList: 1 to MAX_IDS texts of 1 to ID_TEXT_MAX characters), as a plain test. */
function plainIds(input: Record<string, unknown>): string[] | null {
  const ids = input.ids;
  if (Object.keys(input).length !== 1 || !Array.isArray(ids) || ids.length < 1 || ids.length > MAX_IDS) return null;
  return ids.every((id) => typeof id === "string" && id.length >= 1 && id.length <= ID_TEXT_MAX) ? (ids as string[]) : null;
}

/** Run `name` without the catalogue when this input allows it; null when the catalogue must. */
export function runDirect<O>(name: string, call: OpCall, input: Record<string, unknown>): Promise<O> | null {
  if (name !== "get" || call.progress) return null;
  const ids = plainIds(input);
  if (!ids) return null;
  startCommand();
  return import("../get.ts").then(({ getByIds }) => getByIds(call.env, ids) as Promise<O>).catch((e: unknown) => {
    throw coded(e);
  });
}
