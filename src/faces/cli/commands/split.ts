import { invalidInput, usageError } from "../../../core/errors.ts";
import type { SplitPart } from "../../../core/split.ts";
import { withStore } from "../../../ops/context.ts";
import { resolveId } from "../../../ops/id-lookup.ts";
import { splitCandidatesOp, splitOp } from "../../../ops/split.ts";
import { partsFromJson, perPart } from "../../../ops/split-parts.ts";
import { json, oneLinePreview } from "../format.ts";
import { type Flags, idArg, jsonInput, num, opsEnv, texts } from "../options.ts";
import type { CommandResult } from "../result.ts";

// memsync split (maintenance, main build only): one memory into atomic parts, or --candidates.
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
  parts.forEach((p, i) => {
    if (p.content.trim() === "") throw invalidInput(`part ${i + 1} is empty`);
  });
  return parts;
}

async function candidates(flags: Flags): Promise<CommandResult> {
  const limit = num(flags, "limit", { min: 0, max: 1_000_000, int: true }) ?? 20;
  const env = opsEnv(flags);
  const out = await withStore(env, (store) => splitCandidatesOp(store, limit === 0 ? null : limit));
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
  const parts = await partsOf(flags);
  const env = opsEnv(flags);
  const out = await withStore(env, async (store) => splitOp(store, env, { id: await resolveId(store, given), parts, archive: flags.archive === true, claim: flags.claimMaintainer === true }));
  if (flags.json) return { stdout: json(out) };
  const lines = [`split ${out.original} into ${out.parts.length} memories (the original is ${out.original_is}):`];
  for (const p of out.parts) lines.push(`  ${p.id}  ${oneLinePreview(p.content, 80)}`);
  if (out.relations_copied.length) lines.push(`its ${out.relations_removed.length} relation(s) now name every part (${out.relations_copied.length} relations)`);
  if (out.maintainer.claimed) lines.push(`this machine (${out.maintainer.machine}) now maintains the store`);
  return { stdout: `${lines.join("\n")}\n` };
}
