import path from "node:path";
import { usageError } from "../../../core/errors.ts";
import { env, homeDir } from "../../../runtime/host.ts";
import type { ExportOutcome } from "../../../ops/export.ts";
import type { ImportOutcome } from "../../../ops/import.ts";
import { call } from "../call.ts";
import { json } from "../format.ts";
import { type Flags, str } from "../options.ts";
import { progressBar } from "../progress-bar.ts";
import type { CommandResult } from "../result.ts";

// import and export: another tool's files in and out of the store, with a progress bar on a
// terminal for large inputs. The report lists every line that was skipped, and why.

const IN = "cortexgraph, orchestkit, mcp-memory or jsonl";
const OUT = "cortexgraph, mcp-memory, jsonl, markdown or memory-md";

/** Problems shown on a terminal before "and N more" (--json lists up to the outcome's limit). */
const SHOWN = 50;

/** Where CortexGraph keeps its JSONL storage unless told otherwise (its CORTEXGRAPH_STORAGE_PATH). */
export function cortexGraphHome(): string {
  const set = env("CORTEXGRAPH_STORAGE_PATH");
  // its docs write it as ~/..., which a .env file does not expand
  if (set) return set.startsWith("~/") ? path.join(homeDir(), set.slice(2)) : set;
  return path.join(homeDir(), ".config", "cortexgraph", "jsonl");
}

export async function importCmd(format: string | undefined, given: string | undefined, flags: Flags): Promise<CommandResult> {
  // CortexGraph's own folder when no path is given; every other format needs one
  const at = given ?? (format === "cortexgraph" ? cortexGraphHome() : undefined);
  if (!format || !at) throw usageError(`usage: memsync import FORMAT PATH [--dry-run] [--project P] (FORMAT: ${IN}; cortexgraph's PATH defaults to $CORTEXGRAPH_STORAGE_PATH, else ~/.config/cortexgraph/jsonl)`);
  const bar = await progressBar(flags.json === true);
  let out: ImportOutcome;
  try {
    out = await call<ImportOutcome>("import", flags, { format, path: at, dry_run: flags.dryRun === true, project: str(flags, "project") }, { flagOf: { format: "FORMAT", path: "PATH" }, progress: (phase, done, total) => bar.update(phase, done, total) });
  } finally {
    bar.stop();
  }
  if (flags.json) return { stdout: json(out) };
  return { stdout: `${importReport(out).join("\n")}\n` };
}

export function importReport(o: ImportOutcome): string[] {
  const lines: string[] = [];
  const would = o.dry_run ? "would import" : "imported";
  const m = o.memories;
  const r = o.relations;
  lines.push(`${would} ${m.imported} memories, ${r.imported} relations from ${o.format} ${o.source}`);
  if (o.graph.entities || o.graph.relations || o.graph.observations) lines.push(`  graph: ${o.graph.entities} entities, ${o.graph.relations} relations, ${o.graph.observations} observations added`);
  if (m.existing || r.existing) lines.push(`  already in the store (left as they are): ${m.existing} memories, ${r.existing} relations`);
  const s = o.stats;
  const replay = [s.memory_tombstones && `${s.memory_tombstones} memory tombstones`, s.memory_superseded && `${s.memory_superseded} memory lines replaced by later ones`, s.relation_tombstones && `${s.relation_tombstones} relation tombstones`, s.relation_superseded && `${s.relation_superseded} relation lines replaced by later ones`].filter(Boolean);
  if (replay.length) lines.push(`  append-only log: ${replay.join(", ")}`);
  if (r.missing_memory) lines.push(`  ${r.missing_memory} relations name a memory neither in the file nor in the store: not imported`);
  if (o.problems_total) {
    lines.push(`${o.problems_total} problem${o.problems_total === 1 ? "" : "s"}:`);
    for (const p of o.problems.slice(0, SHOWN)) lines.push(`  ${p.file}${p.line ? `:${p.line}` : ""}: ${p.problem}`);
    if (o.problems_total > SHOWN) lines.push(`  and ${o.problems_total - SHOWN} more (--json lists up to ${o.problems.length})`);
  }
  if (o.dry_run) lines.push("dry run: nothing written");
  else if (o.message && o.commit) lines.push(`committed ${o.commit.slice(0, 12)}: ${o.message}`);
  else if (o.message) lines.push(`one change: ${o.message} (memsync commit or sync records it)`);
  // "already holds all of it" only when the source held something the store has
  else if (m.existing || r.existing) lines.push("nothing new: the store already holds all of it");
  else if (o.problems_total) lines.push("nothing imported: no record of the source could be read (see the problems above)");
  else lines.push("nothing imported: the source holds no records");
  return lines;
}

export async function exportCmd(format: string, at: string | undefined, flags: Flags): Promise<CommandResult> {
  if (!at) throw usageError(`usage: memsync export FORMAT PATH [--force] (FORMAT: ${OUT}; memory-md takes --file instead of PATH)`);
  const bar = await progressBar(flags.json === true);
  let out: ExportOutcome;
  try {
    out = await call<ExportOutcome>("export", flags, { format, path: at, force: flags.force === true }, { flagOf: { format: "FORMAT", path: "PATH" }, progress: (phase, done, total) => bar.update(phase, done, total) });
  } finally {
    bar.stop();
  }
  if (flags.json) return { stdout: json(out) };
  const what = out.format === "mcp-memory" ? `${out.memories} entities, ${out.relations} relations` : `${out.memories} memories${out.format === "markdown" ? "" : `, ${out.relations} relations`}`;
  const lines = [`exported ${what} as ${out.format} to ${out.path}${out.files.length > 1 && out.format !== "markdown" ? ` (${out.files.map((f) => f.slice(f.lastIndexOf("/") + 1)).join(", ")})` : ""}`];
  for (const u of out.unreadable) lines.push(`  left out, unreadable: ${u.path}: ${u.problem}`);
  return { stdout: `${lines.join("\n")}\n` };
}
