import { short } from "./history.ts";
import type { Memory } from "./model/memory.ts";
import { isoTime } from "./time.ts";

// A promoted memory as a long-term note: Markdown with YAML front matter that Obsidian (and any
// other Markdown vault) reads. Pure text; ops/vault.ts writes it.
//
// The front matter quotes every date and string (JSON string syntax is valid YAML, so quotes,
// colons and newlines in a value can never break the block) and carries the memory's id as
// `stm_id`, which is how a note memsync wrote is told from a user's file of the same name.

const SLUG_WORDS = 6;
const SLUG_MAX = 60;

/** The first words of a text as a file-name-safe slug: lowercase letters, digits and dashes. */
export function slugOf(text: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, SLUG_WORDS);
  let slug = "";
  for (const w of words) {
    const next = slug ? `${slug}-${w}` : w;
    if (next.length > SLUG_MAX) break;
    slug = next;
  }
  return slug || (words[0] ?? "").slice(0, SLUG_MAX) || "memory";
}

/**
 * The note's file name: slug + the id's last 8 hex digits (unique between memories); a further
 * attempt, when a file not written for this memory holds the name, adds -2, -3...
 */
export function noteFileName(m: Pick<Memory, "id" | "content">, attempt = 0): string {
  return `${slugOf(m.content)}-${short(m.id)}${attempt > 0 ? `-${attempt + 1}` : ""}.md`;
}

const q = (s: string) => JSON.stringify(s);

/**
 * An Obsidian tag: letters, digits, _, - and / (nested tags); other characters become "-", and a
 * tag of digits alone (which Obsidian ignores) is prefixed with "_".
 */
export function obsidianTag(tag: string): string {
  const t = tag
    .replace(/[^\p{L}\p{N}_\-/]+/gu, "-")
    .replace(/-+/g, "-")
    .replace(/^[-/]+|[-/]+$/g, "");
  if (!t) return "";
  return /^\d+$/.test(t) ? `_${t}` : t;
}

/** The first line of the content, short: the note's title. */
function titleOf(content: string): string {
  const line = content.trim().split("\n")[0]!.trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

export function noteText(m: Memory, promotedAt: number): string {
  const tags = [...new Set(m.meta.tags.map(obsidianTag).filter(Boolean))];
  const fm = [
    "---",
    `title: ${q(titleOf(m.content))}`,
    `stm_id: ${q(m.id)}`,
    `created: ${q(isoTime(m.created_at))}`,
    `last_used: ${q(isoTime(m.last_used))}`,
    `promoted: ${q(isoTime(promotedAt))}`,
    tags.length ? `tags:\n${tags.map((t) => `  - ${q(t)}`).join("\n")}` : "tags: []",
    `type: ${q(m.type)}`,
    `use_count: ${m.use_count}`,
    `strength: ${m.strength}`,
  ];
  if (m.project) fm.push(`project: ${q(m.project)}`);
  if (m.entities.length) fm.push(`entities:\n${m.entities.map((e) => `  - ${q(e)}`).join("\n")}`);
  if (m.meta.source) fm.push(`source: ${q(m.meta.source)}`);
  fm.push("---");
  const body = [m.content.trim()];
  if (m.decision?.why) body.push(`**Why:** ${m.decision.why}`);
  if (m.decision?.alternatives.length) body.push(`**Over:** ${m.decision.alternatives.join(", ")}`);
  if (m.meta.context) body.push(`## Context\n\n${m.meta.context.trim()}`);
  return `${fm.join("\n")}\n\n${body.join("\n\n")}\n`;
}

/** Whether a note's front matter names this memory (memsync wrote it for this id). */
export function noteBelongsTo(text: string, id: string): boolean {
  if (!text.startsWith("---\n")) return false;
  const end = text.indexOf("\n---", 4);
  const front = end === -1 ? text.slice(4) : text.slice(4, end);
  return front.split("\n").some((line) => line.trim() === `stm_id: ${q(id)}`);
}
