// memsync's section of Claude Code's auto-memory file (MEMORY.md), which Claude Code loads into
// every session of the project, but only its first 200 lines / 25 KB. The section sits between
// two marker lines; everything outside them is the user's (or Claude's own notes) and is kept
// byte for byte. The section is sized so the whole file stays within the load limit, so what
// memsync writes is never the part Claude Code cuts off.

export const BEGIN = "<!-- memsync:begin (written by memsync export memory-md; edits inside are replaced) -->";
export const END = "<!-- memsync:end -->";
export const MAX_LINES = 200;
export const MAX_BYTES = 25_000;

export interface DecisionLine {
  id: string;
  what: string;
  why: string | null;
  at: number;
  /** decision (default), preference, pattern...: the line's label. */
  type?: string;
  /** One of the user's rules for every project, not this project's own. */
  global?: boolean;
}

/** "[Decision]", "[Preference]", "[Global rule]": what a line is, in the words of the seeds. */
export function labelOf(type: string, global = false): string {
  const word = type.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase());
  return global ? `[Global ${type === "decision" || type === "preference" ? "rule" : word.toLowerCase()}]` : `[${word}]`;
}

const bytes = (s: string) => new TextEncoder().encode(s).length;

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** The text outside memsync's section (the section itself removed, its place remembered). */
export function splitSection(text: string): { before: string; after: string; had: boolean } {
  const b = text.indexOf(BEGIN);
  const e = b === -1 ? -1 : text.indexOf(END, b);
  if (b === -1 || e === -1) return { before: text, after: "", had: false };
  let after = text.slice(e + END.length);
  if (after.startsWith("\n")) after = after.slice(1);
  return { before: text.slice(0, b), after, had: true };
}

function lineOf(d: DecisionLine): string {
  const what = flat(d.what);
  const why = d.why ? flat(d.why) : "";
  const date = new Date(d.at * 1000).toISOString().slice(0, 10);
  const line = `- ${labelOf(d.type ?? "decision", d.global)} ${what}${why ? ` — because ${why}` : ""} (${date}, memsync ${d.id.slice(-8)})`;
  return line.length > 400 ? `${line.slice(0, 397)}…` : line;
}

/** A key to tell the same decision apart from its wording's case and spacing. */
const keyOf = (what: string) => flat(what).toLowerCase().replace(/[^\p{L}\p{N} ]/gu, "");

/**
 * The file with memsync's section set to these decisions (newest first, no duplicates, none the
 * user's own lines already state), as many as fit within the load limit. Returns what was left out.
 */
export function writeSection(text: string, decisions: readonly DecisionLine[], heading = "## Project decisions, preferences and global rules (memsync)"): { text: string; written: number; left_out: number } {
  const { before, after } = splitSection(text);
  const userText = before + after;
  const userKeys = keyOf(userText);
  const seen = new Set<string>();
  const lines: string[] = [];
  // newest first; ids are UUIDv7 (time-ordered), so within one second the later id is newer
  const sorted = [...decisions].sort((a, b) => b.at - a.at || b.id.localeCompare(a.id));
  let candidates = 0;
  const head = before === "" || before.endsWith("\n") ? before : `${before}\n`;
  const frame = (body: string[]) => `${head}${BEGIN}\n${[heading, ...body].join("\n")}\n${END}\n${after}`;
  const fits = (t: string) => t.split("\n").length - (t.endsWith("\n") ? 1 : 0) <= MAX_LINES && bytes(t) <= MAX_BYTES;
  let full = false;
  for (const d of sorted) {
    const k = keyOf(d.what);
    if (!k || seen.has(k) || userKeys.includes(k)) continue;
    seen.add(k);
    candidates++;
    if (full) continue;
    const line = lineOf(d);
    if (fits(frame([...lines, line]))) lines.push(line);
    else full = true;
  }
  // nothing to say (or no room left by the user's own lines): no section rather than a bare heading
  if (lines.length === 0) return { text: before + after, written: 0, left_out: candidates };
  return { text: frame(lines), written: lines.length, left_out: candidates - lines.length };
}
