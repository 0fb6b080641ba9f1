import type { maintainerOp } from "../../../ops/maintainer.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import type { Flags } from "../options.ts";
import type { CommandResult } from "../result.ts";

// Maintenance commands (main build only): the maintainer role.

export async function maintainer(flags: Flags): Promise<CommandResult> {
  const out = await call<Awaited<ReturnType<typeof maintainerOp>>>("maintainer", flags, { claim: flags.claim === true });
  if (flags.json) return { stdout: json(out) };
  if (out.claimed) return { stdout: `this machine (${out.machine}) now maintains the store\n` };
  if (out.maintainer === null) return { stdout: `no maintainer yet: the first machine to run gc, consolidate, split or promote takes the role (this is ${out.machine})\n` };
  return { stdout: `maintainer: ${out.maintainer}${out.is_this_machine ? " (this machine)" : ` (this is ${out.machine})`}\n` };
}
