import { usageError } from "../../../core/errors.ts";
import { isShortId, parseId } from "../../../core/ids.ts";
import { withStore } from "../../../ops/context.ts";
import { getMemories } from "../../../ops/get.ts";
import { json, memoryBlock, missingReport } from "../format.ts";
import { type Flags, opsEnv } from "../options.ts";
import type { CommandResult } from "../result.ts";

// get/open: a read served from the index when files are unchanged, so it loads no schemas.
// Ids may be short (the last 8 hex digits recall and commit messages show).

export async function get(rawIds: string[], flags: Flags): Promise<CommandResult> {
  if (rawIds.length === 0) throw usageError("give at least one id");
  // a full id, or a short one (its last 8 hex digits, as recall shows it)
  const wanted = rawIds.map((r) => (isShortId(String(r)) ? String(r).trim().toLowerCase() : parseId(String(r))));
  const out = await withStore(opsEnv(flags), (store) => getMemories(store, wanted));
  const stdout = flags.json
    ? json(out)
    : out.found.map((f) => memoryBlock(f.memory, f.path, f.outgoing, f.incoming)).join("\n");
  return { stdout, ...missingReport(out) };
}
