import { usageError } from "../../../core/errors.ts";
import type { ConflictsOutcome, ResolveOutcome } from "../../../ops/conflicts.ts";
import { call } from "../call.ts";
import { conflictLines, json } from "../format.ts";
import { type Flags, num, str, textArg } from "../options.ts";
import type { CommandResult } from "../result.ts";

// conflicts and resolve: content that two machines edited at once, shown and settled
// (ops/conflicts.ts holds the logic; this is the command-line face of it).

export async function conflictsCmd(flags: Flags): Promise<CommandResult> {
  const out = await call<ConflictsOutcome>("conflicts", flags, {});
  if (flags.json) return { stdout: json(out) };
  if (out.total === 0) return { stdout: "no conflicts\n" };
  const blocks = out.conflicts.map((c) => {
    const status = c.status === "active" ? "" : ` [${c.status}]`;
    return [`${c.id}  (${c.short_id})  ${c.type}${status}: ${c.others.length + 1} texts`, ...conflictLines(c)].join("\n");
  });
  const n = out.total;
  const tail = `${n} memor${n === 1 ? "y" : "ies"} with conflicting texts; settle one with: memsync resolve ID --keep ours|theirs|both, or --content TEXT`;
  return { stdout: `${blocks.join("\n\n")}\n\n${tail}\n` };
}

const KEEP = ["ours", "theirs", "both"] as const;

export async function resolveCmd(rawId: string, flags: Flags): Promise<CommandResult> {
  const keep = str(flags, "keep");
  const content = str(flags, "content");
  const pick = num(flags, "pick", { min: 1, max: 1_000_000, int: true });
  if (keep !== undefined && !(KEEP as readonly string[]).includes(keep)) throw usageError(`--keep must be ours, theirs or both, got ${JSON.stringify(keep.slice(0, 40))}`);
  const text = content !== undefined && keep === undefined ? await textArg([content], "new content") : content;
  const out = await call<ResolveOutcome>("resolve", flags, { id: String(rawId), keep, pick, content: text });
  if (flags.json) return { stdout: json(out) };
  const said = { ours: "kept the current text", theirs: "took the other text", both: "joined the texts", content: "set the new text" }[out.resolution];
  return { stdout: `resolved ${out.memory.id}: ${said} (${out.before.others.length + 1} texts before)\n` };
}
