import type { Capture } from "../../../core/capture/extract.ts";
import { usageError } from "../../../core/errors.ts";
import { IMPORTANCE_LEVELS, MEMORY_TYPES, SHARING_SCOPES } from "../../../core/model/vocab.ts";
import type { JsonObject } from "../../../core/records.ts";
import type { StoredMemory } from "../../../ops/capture.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import { type Flags, list, num, oneOf, opsEnv, STDIN_ARG, str, textArg, wordsOf } from "../options.ts";
import type { CommandResult } from "../result.ts";

// remember (explicit capture) and capture (implicit capture, also from a Claude Code hook payload),
// through the catalogue (ops/catalogue/capture.ts: project resolution, the hook payload, the
// check before a store is made); here only the flags and the report.

/** What the catalogue's capture returns (ops/catalogue/capture.ts). */
interface CaptureResult {
  dry_run: boolean;
  project: string | null;
  source: string;
  stored: StoredMemory[];
  captures: JsonObject[];
  skipped: { text: string; reason: string }[];
  ignored: string[];
  reason: string | null;
  redacted: string[];
  private_removed: boolean;
  store_created: boolean;
}

function preview(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function describe(c: { type: string; decision: Capture["decision"]; content: string; entities: string[] }): string {
  const d = c.decision;
  const parts = [`${c.type.padEnd(10)} ${preview(d?.what ?? c.content, 70)}`];
  if (d?.alternatives.length) parts.push(`over ${d.alternatives.join(", ")}`);
  if (d?.why) parts.push(`because ${preview(d.why, 70)}`);
  if (c.entities.length) parts.push(`[${c.entities.slice(0, 8).join(", ")}]`);
  return parts.join("  ");
}

function detailLines(f: JsonObject): string[] {
  const d = f.decision as Capture["decision"];
  const lines = [`  ${describe(f as never)}`];
  if (d) {
    lines.push(`    what: ${d.what}`);
    if (d.why) lines.push(`    why: ${d.why}`);
    if (d.alternatives.length) lines.push(`    alternatives: ${d.alternatives.join("; ")}`);
    if (d.constraints.length) lines.push(`    constraints: ${d.constraints.join("; ")}`);
    if (d.tradeoffs.length) lines.push(`    tradeoffs: ${d.tradeoffs.join("; ")}`);
  } else {
    lines.push(`    content: ${preview(String(f.content), 100)}`);
  }
  const rels = (f.entity_relations as { from: string; type: string; to: string }[] | undefined) ?? [];
  if ((f.entities as string[]).length) lines.push(`    entities: ${(f.entities as string[]).join(", ")}`);
  if (rels.length) lines.push(`    relations: ${rels.map((r) => `${r.from} ${r.type} ${r.to}`).join("; ")}`);
  lines.push(`    confidence ${f.confidence}  category ${f.category ?? "-"}  scope ${f.scope}  project ${f.project ?? "-"}`);
  return lines;
}

function storedLine(s: StoredMemory): string {
  const head = s.action === "created" ? `stored ${s.memory.id}` : `reinforced ${s.memory.id} (uses: ${s.memory.use_count})`;
  return `${head}  ${describe(s.memory)}`;
}

function extractionSummary(x: CaptureResult, stored: number): string[] {
  const lines: string[] = [];
  if (stored === 0) lines.push(`nothing stored: ${x.reason ?? "nothing to store"}`);
  for (const s of x.skipped) if (s.reason !== "no decision, preference, problem or solution in it") lines.push(`  skipped "${preview(s.text, 60)}" (${s.reason})`);
  if (x.ignored.length) lines.push(`  ignored: ${x.ignored.join(", ")}`);
  if (x.redacted.length) lines.push(`  redacted ${x.redacted.length} secret${x.redacted.length === 1 ? "" : "s"} (${[...new Set(x.redacted)].join(", ")})`);
  if (x.private_removed) lines.push("  left out <private> text");
  return lines;
}

export async function capture(rawWords: string[], flags: Flags): Promise<CommandResult> {
  const words = wordsOf(rawWords, flags);
  const text = await textArg(words.length ? words : [STDIN_ARG], "text to capture");
  const out = await call<CaptureResult>("capture", flags, {
    text,
    global: Boolean(flags.global),
    project: str(flags, "project"),
    tags: list(flags, "tag"),
    dry_run: Boolean(flags.dryRun),
  });
  if (flags.json) return { stdout: json(out) };
  if (out.dry_run) {
    const planned = out.captures;
    const lines = planned.length ? [`would store ${planned.length} memor${planned.length === 1 ? "y" : "ies"}:`, ...planned.flatMap(detailLines)] : [];
    return { stdout: `${[...lines, ...extractionSummary(out, planned.length)].join("\n")}\n` };
  }
  return {
    stdout: `${[...out.stored.map(storedLine), ...extractionSummary(out, out.stored.length)].join("\n")}\n`,
    stderr: out.store_created ? `memsync: created a new store at ${opsEnv(flags).storeRoot}\n` : "",
  };
}

export async function remember(rawWords: string[], flags: Flags): Promise<CommandResult> {
  const words = wordsOf(rawWords, flags);
  const text = await textArg(words, "memory text");
  if (flags.success && flags.failed) throw usageError("--success and --failed exclude each other");
  const out = await call<{ dry_run: true; memory: JsonObject } | (StoredMemory & { store_created: boolean })>("remember", flags, {
    text,
    type: oneOf(flags, "type", MEMORY_TYPES),
    outcome: flags.success ? "success" : flags.failed ? "failed" : undefined,
    global: Boolean(flags.global),
    project: str(flags, "project"),
    scope: oneOf(flags, "scope", SHARING_SCOPES),
    tags: list(flags, "tag"),
    entities: list(flags, "entity"),
    importance: oneOf(flags, "importance", IMPORTANCE_LEVELS),
    confidence: num(flags, "confidence", { min: 0, max: 1 }),
    category: str(flags, "category"),
    source: str(flags, "source"),
    dry_run: Boolean(flags.dryRun),
  });
  if ("dry_run" in out) {
    return { stdout: flags.json ? json(out) : `${["would remember:", ...detailLines(out.memory)].join("\n")}\n` };
  }
  if (flags.json) return { stdout: json(out) };
  return {
    stdout: `${out.action === "created" ? `remembered ${out.memory.id}` : `reinforced ${out.memory.id} (uses: ${out.memory.use_count})`}  ${describe(out.memory)}\n`,
    stderr: out.store_created ? `memsync: created a new store at ${opsEnv(flags).storeRoot}\n` : "",
  };
}
