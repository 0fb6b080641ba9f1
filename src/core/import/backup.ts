import { canonicalize } from "../canonical-json.ts";
import type { Memory } from "../model/memory.ts";
import type { Relation } from "../model/relation.ts";
import { isObject, readJsonLines } from "./lines.ts";
import { bump, emptyPlan, type ImportPlan, type SourceFile } from "./plan.ts";

// memsync's own JSONL backup: a header line naming the format and its version, then one record
// per line ({"memory": {...}} or {"relation": {...}}), each in canonical key order. Importing a
// backup writes every record back as it was: import(export(store)) gives the same files.

export const BACKUP_FORMAT = "memsync-jsonl";
export const BACKUP_VERSION = 1;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  exported_at: number;
  memories: number;
  relations: number;
}

export function backupText(memories: readonly Memory[], relations: readonly Relation[], exportedAt: number, orders: { memory: Parameters<typeof canonicalize>[1]; relation: Parameters<typeof canonicalize>[1] }): string {
  const header: BackupHeader = { format: BACKUP_FORMAT, version: BACKUP_VERSION, exported_at: exportedAt, memories: memories.length, relations: relations.length };
  const lines = [JSON.stringify(header)];
  for (const m of memories) lines.push(JSON.stringify({ memory: canonicalize(m, orders.memory) }));
  for (const r of relations) lines.push(JSON.stringify({ relation: canonicalize(r, orders.relation) }));
  return `${lines.join("\n")}\n`;
}

export function planBackup(file: SourceFile): ImportPlan {
  const plan = emptyPlan();
  const lines = readJsonLines(file.name, file.bytes, plan.problems);
  bump(plan, "lines", lines.length);
  const first = lines[0];
  if (!first || first.value.format !== BACKUP_FORMAT) {
    plan.problems.push({ file: file.name, line: first?.line ?? 0, problem: `no header line {"format": "${BACKUP_FORMAT}", ...}: not a memsync backup, nothing read` });
    return plan;
  }
  if (typeof first.value.version !== "number" || first.value.version > BACKUP_VERSION) {
    plan.problems.push({ file: file.name, line: first.line, problem: `backup version ${String(first.value.version)} is newer than this memsync reads (${BACKUP_VERSION}): nothing read` });
    return plan;
  }
  for (const l of lines.slice(1)) {
    const where = { file: file.name, line: l.line };
    if (isObject(l.value.memory)) plan.memories.push({ where, fields: l.value.memory });
    else if (isObject(l.value.relation)) plan.relations.push({ where, fields: l.value.relation });
    else plan.problems.push({ file: file.name, line: l.line, problem: 'unknown shape (expected {"memory": ...} or {"relation": ...}): skipped' });
  }
  return plan;
}
