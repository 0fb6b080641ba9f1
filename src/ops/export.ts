import fs from "node:fs";
import path from "node:path";
import { invalidInput } from "../core/errors.ts";
import { backupText } from "../core/import/backup.ts";
import { cortexGraphFiles, mcpMemoryFile } from "../core/export/formats.ts";
import { keyOrderOf } from "../core/model/key-order.ts";
import { type Memory, MemorySchema } from "../core/model/memory.ts";
import { type Relation, RelationSchema } from "../core/model/relation.ts";
import { noteFileName, noteText } from "../core/vault-note.ts";
import { loadAll } from "../store/load-all.ts";
import { progress } from "../sync/progress.ts";
import type { OpsEnv } from "./context.ts";
import { withStore } from "./context.ts";
import { refuseInsideStore } from "./outside-store.ts";

// export: the store's records into another tool's files (or memsync's own backup), read from
// the record files themselves (the truth, not the index). Nothing in the store changes. Files
// are written whole to a temp name and renamed, so an interrupted export leaves no torn file;
// an existing target is refused unless force says to replace it, and a target inside the store
// is refused (it would become part of the store).

export const EXPORT_FORMATS = ["cortexgraph", "mcp-memory", "jsonl", "markdown"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOutcome {
  format: ExportFormat;
  path: string;
  files: string[];
  memories: number;
  relations: number;
  /** Record files that could not be read (left out, listed). */
  unreadable: { path: string; problem: string }[];
}

const shape = (s: unknown) => new Set(Object.keys((s as { entries: object }).entries));

function writeWhole(file: string, text: string, force: boolean): void {
  if (fs.existsSync(file) && !force) throw invalidInput(`export: ${file} exists (force replaces it)`, { fields: ["force"] });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Records in a stable order: memories by creation, then id; relations by id. */
function ordered(loaded: ReturnType<typeof loadAll>): { memories: Memory[]; relations: Relation[] } {
  const memories = [...loaded.memories.values()].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  const relations = [...loaded.relations.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return { memories, relations };
}

export async function exportOp(env: OpsEnv, input: { format: ExportFormat; path: string; force: boolean }): Promise<ExportOutcome> {
  const target = input.path;
  refuseInsideStore("export", target, env.storeRoot, "path");
  return withStore(env, (store) => {
    progress("reading", 0);
    const loaded = loadAll(store.fs, store.root);
    const { memories, relations } = ordered(loaded);
    const out: ExportOutcome = { format: input.format, path: target, files: [], memories: memories.length, relations: relations.length, unreadable: loaded.problems };
    const folder = () => {
      if (fs.existsSync(target) && !fs.statSync(target).isDirectory()) throw invalidInput(`export ${input.format}: ${target} is not a folder`, { fields: ["path"] });
      fs.mkdirSync(target, { recursive: true });
    };
    if (input.format === "jsonl") {
      writeWhole(target, backupText(memories, relations, store.nowSeconds(), { memory: keyOrderOf(MemorySchema), relation: keyOrderOf(RelationSchema) }), input.force);
      out.files.push(target);
    } else if (input.format === "cortexgraph") {
      folder();
      const files = cortexGraphFiles(memories, relations, shape(MemorySchema), shape(RelationSchema));
      for (const [name, text] of [["memories.jsonl", files.memories], ["relations.jsonl", files.relations]] as const) {
        writeWhole(path.join(target, name), text, input.force);
        out.files.push(path.join(target, name));
      }
    } else if (input.format === "mcp-memory") {
      const file = fs.existsSync(target) && fs.statSync(target).isDirectory() ? path.join(target, "memory.jsonl") : target;
      const made = mcpMemoryFile(memories, relations);
      writeWhole(file, made.text, input.force);
      out.files.push(file);
      out.memories = made.entities;
      out.relations = made.relations;
    } else {
      folder();
      memories.forEach((m, i) => {
        const file = path.join(target, noteFileName(m));
        writeWhole(file, noteText(m, m.promoted_at ?? m.updated_at ?? m.created_at), input.force);
        out.files.push(file);
        if ((i + 1) % 500 === 0) progress("writing notes", i + 1, memories.length);
      });
      out.relations = 0;
    }
    return out;
  });
}
