import fs from "node:fs";
import { type DecisionLine, writeSection } from "../core/claude/memory-md.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Store } from "../store/store.ts";
import { type ClaudeEnv, memoryMdPath, projectRoot, replaceFile } from "./claude-files.ts";
import { replacedAmong } from "./replaced.ts";

// The MEMORY.md tier: a project's confident decisions and preferences, and the user's global rules
// (confidence >= 0.7), written into Claude Code's auto-memory file for that project, inside
// memsync's marked section (core/claude/memory-md.ts), so they reach every session even without
// memsync's hooks, and the user's own lines stay. The UserPromptSubmit hook rewrites the section
// after a capture that stores one of these (only then: see belongsInMemoryMd).

export const MIN_CONFIDENCE = 0.7;

export interface MemoryMdOptions {
  project: string;
  cwd: string;
  claude: ClaudeEnv;
  /** Write here instead of Claude Code's file for the project. */
  file?: string;
  dryRun?: boolean;
}

export interface MemoryMdOutcome {
  file: string;
  project: string;
  written: number;
  left_out: number;
  changed: boolean;
  dry_run: boolean;
  /** The file as it is (or would be) after the export. */
  text: string;
}

/** The types MEMORY.md carries of a project. */
export const MEMORY_MD_TYPES = ["decision", "preference"] as const;
/** Of the user's global rules, also their best practices (patterns), as a session's start shows them. */
const GLOBAL_MD_TYPES = ["decision", "preference", "pattern"] as const;

/** Whether a memory has a line in a project's section: so a capture that stores none leaves the file alone. */
export function belongsInMemoryMd(m: Pick<Memory, "type" | "confidence" | "status" | "scope">): boolean {
  const types: readonly string[] = m.scope === "global" ? GLOBAL_MD_TYPES : MEMORY_MD_TYPES;
  return types.includes(m.type) && (m.confidence ?? 0) >= MIN_CONFIDENCE && (m.status === "active" || m.status === "promoted");
}

function lineOf(m: Memory, project: string): DecisionLine {
  const what = m.decision?.what ?? m.gist ?? m.content;
  return { id: m.id, what, why: m.decision?.why ?? null, at: m.updated_at ?? m.created_at, type: m.type, global: m.project !== project };
}

export async function exportMemoryMd(store: Store, opts: MemoryMdOptions): Promise<MemoryMdOutcome> {
  const file = opts.file ?? memoryMdPath(projectRoot(opts.cwd, opts.claude), opts.claude);
  // the project's own, and the user's global rules (scope global, no project)
  const { memories } = await store.list({ types: GLOBAL_MD_TYPES, projectOrNone: opts.project, statuses: ["active", "promoted"] }, null);
  const kept = memories.filter((m) => belongsInMemoryMd(m) && (m.project === opts.project || m.scope === "global"));
  // a decision a newer one replaced is not a current one (ops/replaced.ts); a replacement this
  // section would not list (a hedged change) leaves it, so the file never drops both
  const replaced = await replacedAmong(store, kept, belongsInMemoryMd);
  const decisions = kept.filter((m) => !replaced.has(m.id)).map((m) => lineOf(m, opts.project));
  let before = "";
  try {
    before = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
  }
  const out = writeSection(before, decisions);
  const changed = out.text !== before;
  if (changed && !opts.dryRun && !(before === "" && out.written === 0)) replaceFile(file, out.text);
  return { file, project: opts.project, written: out.written, left_out: out.left_out, changed, dry_run: opts.dryRun === true, text: out.text };
}
