import { isoTime } from "../../../core/time.ts";
import type { HistoryOutcome } from "../../../ops/history.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import { type Flags, idArg, num } from "../options.ts";
import type { CommandResult } from "../result.ts";

// history ID: the commits that touched a memory, newest first.

export async function history(rawId: unknown, flags: Flags): Promise<CommandResult> {
  const out = await call<HistoryOutcome>("history", flags, { id: idArg(rawId, "id"), limit: num(flags, "limit", { min: 1, max: 1000, int: true }) });
  if (flags.json) return { stdout: json(out) };
  const lines = out.commits.map((c) => `${c.oid.slice(0, 10)}  ${isoTime(c.at)}  ${c.change.padEnd(7)}  ${c.message}`);
  if (lines.length === 0) lines.push(`no commit touched ${out.id}${out.more ? ` in the last ${out.scanned} commits` : ""}`);
  else if (out.more) lines.push(`(more in older commits: --limit N)`);
  return { stdout: `${lines.join("\n")}\n` };
}
