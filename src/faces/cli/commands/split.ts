import { invalidInput, usageError } from "../../../core/errors.ts";
import type { JsonObject } from "../../../core/records.ts";
import type { SplitPart } from "../../../core/split.ts";
import { withStore } from "../../../ops/context.ts";
import { resolveId } from "../../../ops/id-lookup.ts";
import { splitCandidatesOp, splitOp } from "../../../ops/split.ts";
import { json, oneLinePreview } from "../format.ts";
import { type Flags, idArg, jsonInput, num, opsEnv, texts } from "../options.ts";
import type { CommandResult } from "../result.ts";

// memsync split (maintenance, main build only): one memory into atomic parts, or --candidates.
//   memsync split ID --part TEXT --part TEXT [--part-tags 2:a,b] [--part-entities 1:X,Y] [--archive]
//   memsync split ID --input parts.json     {"parts": [{"content": "...", "tags": [...], "entities": [...], ...fields}]}

/** --part-tags 2:a,b → labels for part 2 (1-based). */
function perPart(flags: Flags, name: string, flag: string, count: number): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const item of texts(flags, name)) {
    const m = /^(\d+):(.*)$/s.exec(item);
    if (!m) throw invalidInput(`--${flag} takes PART:LIST, e.g. --${flag} 2:a,b (parts count from 1), got ${JSON.stringify(item.slice(0, 40))}`);
    const n = Number(m[1]);
    if (n < 1 || n > count) throw invalidInput(`--${flag} ${n}: there are ${count} parts (1 to ${count})`);
    const values = m[2]!.split(",").map((s) => s.trim()).filter(Boolean);
    out.set(n, [...(out.get(n) ?? []), ...values]);
  }
  return out;
}

const stringList = (v: unknown, what: string): string[] => {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw invalidInput(`${what} must be a list of strings`);
  return v as string[];
};

/** Parts from --input: {"parts": [...]}, each a text or an object with content (and tags, entities, fields). */
function partsFromJson(value: JsonObject): SplitPart[] {
  const list = value.parts;
  if (!Array.isArray(list)) throw invalidInput(`--input: expected {"parts": [...]}`);
  return list.map((p, i) => {
    if (typeof p === "string") return { content: p };
    if (typeof p !== "object" || p === null || Array.isArray(p)) throw invalidInput(`--input: part ${i + 1} must be a text or an object with "content"`);
    const { content, tags, entities, ...fields } = p as JsonObject;
    if (typeof content !== "string") throw invalidInput(`--input: part ${i + 1} needs "content" (a text)`);
    return {
      content,
      ...(tags !== undefined ? { tags: stringList(tags, `--input: part ${i + 1} tags`) } : {}),
      ...(entities !== undefined ? { entities: stringList(entities, `--input: part ${i + 1} entities`) } : {}),
      ...(Object.keys(fields).length ? { fields } : {}),
    };
  });
}

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
  for (const [n, tags] of perPart(flags, "partTags", "part-tags", parts.length)) parts[n - 1] = { ...parts[n - 1]!, tags };
  for (const [n, entities] of perPart(flags, "partEntities", "part-entities", parts.length)) parts[n - 1] = { ...parts[n - 1]!, entities };
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
