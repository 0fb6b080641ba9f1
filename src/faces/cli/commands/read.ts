import { withStore } from "../../../ops/context.ts";
import { getMemories } from "../../../ops/get.ts";
import { json, memoryBlock, missingReport } from "../format.ts";
import { type Flags, ids, opsEnv } from "../options.ts";
import type { CommandResult } from "../result.ts";

// get/open: a read served from the index when files are unchanged, so it loads no schemas.
// Ids may be abbreviated (ops/id-lookup.ts).

export async function get(rawIds: string[], flags: Flags): Promise<CommandResult> {
  // a full id, or an abbreviated one (leading or trailing hex digits), checked before the store opens
  const wanted = ids(rawIds);
  const out = await withStore(opsEnv(flags), (store) => getMemories(store, wanted));
  const stdout = flags.json
    ? json(out)
    : out.found.map((f) => memoryBlock(f.memory, f.path, f.outgoing, f.incoming)).join("\n");
  return { stdout, ...missingReport(out) };
}
