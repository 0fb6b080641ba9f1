import { usageError } from "../../../core/errors.ts";
import type { SplitCandidate, SplitPart } from "../../../core/split.ts";
import type { SplitOutcome } from "../../../ops/split.ts";
import { partsFromJson, perPart } from "../../../ops/split-parts.ts";
import { call } from "../call.ts";
import { json, oneLinePreview } from "../format.ts";
import { type Flags, idArg, jsonInput, num, texts } from "../options.ts";
import type { CommandResult } from "../result.ts";

// memsync split (maintenance, main build only): one memory into atomic parts (the catalogue's
// split), or --candidates (split-candidates). Here the parts are read from the flags or --input.
//   memsync split ID --part TEXT --part TEXT [--part-tags 2:a,b] [--part-entities 1:X,Y] [--archive]
//   memsync split ID --input parts.json     {"parts": [{"content": "...", "tags": [...], "entities": [...], ...fields}]}

async function partsOf(flags: Flags): Promise<SplitPart[]> {
  const given = texts(flags, "part");
  let parts: SplitPart[];
  if (flags.input !== undefined) {
    if (given.length) throw usageError("give the parts with --part or in --input, not both");
    parts = partsFromJson((await jsonInput(flags))!);
  } else {
    parts = given.map((content) => ({ content }));
  }
  if (parts.length < 2) throw usageError("give at least two parts: memsync split ID --part TEXT --part TEXT ...");
  for (const [n, tags] of perPart(texts(flags, "partTags"), "part-tags", parts.length)) parts[n - 1] = { ...parts[n - 1]!, tags };
  for (const [n, entities] of perPart(texts(flags, "partEntities"), "part-entities", parts.length)) parts[n - 1] = { ...parts[n - 1]!, entities };
  return parts;
}

async function candidates(flags: Flags): Promise<CommandResult> {
  const limit = num(flags, "limit", { min: 0, max: 1_000_000, int: true });
  const out = await call<{ candidates: SplitCandidate[]; total: number; memories: number }>("split-candidates", flags, { limit });
  if (flags.json) return { stdout: json(out) };
  if (out.total === 0) return { stdout: `no memory worth splitting among ${out.memories} active memories\n` };
  const lines = [`${out.total} of ${out.memories} active memories are worth splitting${out.candidates.length < out.total ? ` (best ${out.candidates.length} shown; --limit N)` : ""}:`, ""];
  for (const c of out.candidates) {
    lines.push(`${c.id}  ${c.reasons.join("; ")}`);
    lines.push(`  ${oneLinePreview(c.content, 100)}`);
    c.parts.forEach((p, i) => lines.push(`  part ${i + 1}: ${oneLinePreview(p, 90)}`));
    lines.push("");
  }
  lines.push("split one: memsync split ID --part TEXT --part TEXT ...");
  return { stdout: `${lines.join("\n")}\n` };
}

export async function splitCmd(rawId: string | undefined, flags: Flags): Promise<CommandResult> {
  if (flags.candidates) {
    if (rawId !== undefined) throw usageError("--candidates lists memories worth splitting; give no id with it");
    return candidates(flags);
  }
  if (rawId === undefined) throw usageError("give the id of the memory to split (or --candidates to find some)");
  const given = idArg(rawId);
  const parts = (await partsOf(flags)).map(({ fields, ...p }) => ({ ...fields, ...p }));
  const out = await call<SplitOutcome>("split", flags, { id: given, parts, archive: flags.archive === true, claim_maintainer: flags.claimMaintainer === true });
  if (flags.json) return { stdout: json(out) };
  const lines = [`split ${out.original} into ${out.parts.length} memories (the original is ${out.original_is}):`];
  for (const p of out.parts) lines.push(`  ${p.id}  ${oneLinePreview(p.content, 80)}`);
  if (out.relations_copied.length) lines.push(`its ${out.relations_removed.length} relation(s) now name every part (${out.relations_copied.length} relations)`);
  if (out.maintainer.claimed) lines.push(`this machine (${out.maintainer.machine}) now maintains the store`);
  return { stdout: `${lines.join("\n")}\n` };
}
