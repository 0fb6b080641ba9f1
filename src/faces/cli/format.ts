import { type ConflictEntry, conflictOf, type OtherText } from "../../core/conflict-view.ts";
import { corrupt, notFound } from "../../core/errors.ts";
import type { Memory } from "../../core/model/memory.ts";
import type { Relation } from "../../core/model/relation.ts";
import { isoTime } from "../../core/time.ts";

// Human-readable output. Every command also has --json, which prints its result object as is.

export { json } from "./json-text.ts";

export function oneLinePreview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function memoryLine(m: Memory): string {
  const tags = m.meta.tags.length ? `  #${m.meta.tags.join(" #")}` : "";
  const status = m.status === "active" ? "" : ` [${m.status}]`;
  return `${m.id}  ${isoTime(m.created_at).slice(0, 10)}  ${m.type.padEnd(13)}${oneLinePreview(m.gist ?? m.content, 90)}${status}${tags}`;
}

function relationLine(r: Relation, dir: "out" | "in"): string {
  const other = dir === "out" ? r.to_memory_id : r.from_memory_id;
  return `  ${dir === "out" ? "->" : "<-"} ${r.relation_type} ${other}  (relation ${r.id}, strength ${r.strength})`;
}

export function memoryBlock(m: Memory, path: string, outgoing: Relation[], incoming: Relation[]): string {
  const lines = [
    `${m.id}  (${path})`,
    `  type: ${m.type}   status: ${m.status}   scope: ${m.scope}   importance: ${m.importance}`,
    `  created: ${isoTime(m.created_at)}   last used: ${isoTime(m.last_used)}   uses: ${m.use_count}   strength: ${m.strength}`,
  ];
  if (m.project) lines.push(`  project: ${m.project}`);
  if (m.meta.tags.length) lines.push(`  tags: ${m.meta.tags.join(", ")}`);
  if (m.entities.length) lines.push(`  entities: ${m.entities.join(", ")}`);
  if (m.decision) {
    lines.push(`  decision: ${m.decision.what}`);
    if (m.decision.why) lines.push(`  because: ${m.decision.why}`);
    if (m.decision.alternatives.length) lines.push(`  over: ${m.decision.alternatives.join(", ")}`);
  }
  if (m.gist) lines.push(`  gist: ${m.gist}`);
  lines.push("", ...m.content.split("\n").map((l) => `    ${l}`), "");
  // texts two machines wrote at once: shown until resolved (memsync resolve)
  const clash = conflictOf(m);
  if (clash) lines.push(`  CONFLICT: ${clash.others.length + 1} texts (memsync resolve ${clash.short_id} --keep ours|theirs|both)`, ...conflictLines(clash), "");
  for (const r of outgoing) lines.push(relationLine(r, "out"));
  for (const r of incoming) lines.push(relationLine(r, "in"));
  return `${lines.join("\n").trimEnd()}\n`;
}

function indent(text: string, pad: string): string[] {
  return text.split("\n").map((l) => `${pad}${l}`);
}

function otherHeading(o: OtherText): string {
  const from = [o.machine ? `from ${o.machine}` : "", o.updated_at !== null ? `written ${isoTime(o.updated_at)}` : ""].filter(Boolean).join(", ");
  return `  other text ${o.n}${from ? ` (${from})` : " (origin unknown)"}:`;
}

/** A content conflict as text: the current text, then each other text, numbered (as --pick takes them). */
export function conflictLines(c: ConflictEntry): string[] {
  const lines = [`  current text${c.updated_at !== null ? ` (written ${isoTime(c.updated_at)})` : ""}:`, ...indent(c.content, "    ")];
  for (const o of c.others) lines.push(otherHeading(o), ...indent(o.content, "    "));
  return lines;
}

export function countLine(shown: number, total: number, noun: string): string {
  const plural = total === 1 ? noun : `${noun}s`;
  return shown === total ? `${total} ${plural}` : `${shown} of ${total} ${plural} (raise --limit to see more)`;
}

/** A decay score for reading: four decimals (the reference values are given so). */
export function scoreText(score: number): string {
  return score.toFixed(4);
}

/** A span of time for reading: minutes, hours or days. */
export function durationText(seconds: number): string {
  if (!Number.isFinite(seconds)) return "never";
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} hours`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}

/** Ids a read could not serve: one stderr line each kind, and the exit code (7 corrupt wins over 3 not found). */
export function missingReport(out: { unreadable: { id: string; path: string; problem: string }[]; not_found: string[] }): { stderr: string; exitCode: number } {
  const lines = out.unreadable.map((u) => `memsync: memory ${u.id} cannot be read: ${u.path} is ${u.problem}`);
  if (out.not_found.length) lines.push(`memsync: not found: ${out.not_found.join(", ")}`);
  const exitCode = out.not_found.length ? notFound("").exitCode : out.unreadable.length ? corrupt("").exitCode : 0;
  return { stderr: lines.map((l) => `${l}\n`).join(""), exitCode };
}
