import { getSettledFirst } from "../../../ops/get-settled.ts";
import { plainIdList } from "../../../ops/catalogue/limits.ts";
import { hostReadEnv } from "../../../runtime/ops-env.ts";
import { json, memoryBlock, missingReport } from "../format.ts";
import { printResult } from "../report.ts";

// A plain get answered from a settled index (ops/get-settled.ts) without the command's usual path:
// commands/read.ts, call.ts, options.ts and the direct runner evaluate ~0.5 ms of modules
// and glue around a read that needs none of them when it succeeds (issue 16: a cold get's CPU).
// It prints what that path prints for the same outcome; anything the settled read leaves to the
// Store (an abbreviation, a changed folder or file, a store to recover or refuse, a bad id) is
// null here, and the usual path answers, without trying the settled read again.

/**
 * Print the settled answer to `get ID...` and give its exit code, or null when the usual path
 * must answer. `store` is --store as the plain form gives it (one text, or none).
 */
export function settledGet(rawIds: readonly string[], store: string | undefined, asJson: boolean): number | null {
  // the get entry's input (ops/catalogue/direct.ts plainIds): else the catalogue's words refuse it
  if (!plainIdList(rawIds)) return null;
  let out;
  try {
    out = getSettledFirst(hostReadEnv(store), rawIds);
  } catch {
    return null; // the environment unreadable (no home folder to be found): the usual path says so in its words
  }
  if (out === null) return null;
  const stdout = asJson ? json(out) : out.found.map((f) => memoryBlock(f.memory, f.path, f.outgoing, f.incoming)).join("\n");
  return printResult({ stdout, ...missingReport(out) });
}
