import fs from "node:fs";
import { type DecisionLine, writeSection } from "../core/claude/memory-md.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Store } from "../store/store.ts";
import { type ClaudeEnv, memoryMdPath, projectRoot, replaceFile } from "./claude-files.ts";

// The MEMORY.md tier: a project's confident decisions (confidence >= 0.7) written into Claude
// Code's auto-memory file for that project, inside memsync's marked section (core/claude/memory-md.ts),
// so they reach every session even without memsync's hooks, and the user's own lines stay.

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

function lineOf(m: Memory): DecisionLine {
  const what = m.decision?.what ?? m.gist ?? m.content;
  return { id: m.id, what, why: m.decision?.why ?? null, at: m.updated_at ?? m.created_at };
}

export async function exportMemoryMd(store: Store, opts: MemoryMdOptions): Promise<MemoryMdOutcome> {
  const file = opts.file ?? memoryMdPath(projectRoot(opts.cwd, opts.claude), opts.claude);
  const { memories } = await store.list({ types: ["decision"], project: opts.project, statuses: ["active", "promoted"] }, null);
  const decisions = memories.filter((m) => (m.confidence ?? 0) >= MIN_CONFIDENCE).map(lineOf);
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
