import type { GetOutcome } from "../../../ops/get.ts";
import { call } from "../call.ts";
import { json, memoryBlock, missingReport } from "../format.ts";
import { type Flags, ids } from "../options.ts";
import type { CommandResult } from "../result.ts";

// get/open: a read served from the index when files are unchanged. Ids may be abbreviated
// (ops/id-lookup.ts).

export async function get(rawIds: string[], flags: Flags): Promise<CommandResult> {
  // a full id, or an abbreviated one (leading or trailing hex digits), checked before the store opens
  const out = await call<GetOutcome>("get", flags, { ids: ids(rawIds) });
  const stdout = flags.json
    ? json(out)
    : out.found.map((f) => memoryBlock(f.memory, f.path, f.outgoing, f.incoming)).join("\n");
  return { stdout, ...missingReport(out) };
}
