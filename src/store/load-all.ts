import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import type { StoreFs } from "./fs-port.ts";
import { idFromFileName, isShardDirName, type Place, type RecordKind, topDir } from "./layout.ts";
import { readRecordFile } from "./codec.ts";

// Every record of a store in memory, straight from the files (no index): what maintenance works
// on, and the "full load" the benchmark compares with CortexGraph. Bad files are reported.

export interface LoadedStore {
  memories: Map<string, Memory>;
  relations: Map<string, Relation>;
  problems: { path: string; problem: string }[];
}

/**
 * Root-relative paths of the record files of one kind in one place (shared: the tracked folders,
 * what commit compares; local: those of scope local), flat ones first, then shard by shard.
 */
export function recordFilePaths(fs: StoreFs, root: string, kind: RecordKind, place: Place = "shared"): string[] {
  const top = topDir(kind, place);
  if (!fs.stat(`${root}/${top}`)?.isDir) return [];
  const out: string[] = [];
  const subs: string[] = [];
  for (const e of fs.readdir(`${root}/${top}`)) {
    if (e.isDir && isShardDirName(e.name)) subs.push(e.name);
    else if (e.isFile && e.name.endsWith(".json") && !e.name.startsWith(".")) out.push(`${top}/${e.name}`);
  }
  for (const sub of subs.sort()) {
    for (const e of fs.readdir(`${root}/${top}/${sub}`)) {
      if (e.isFile && e.name.endsWith(".json") && !e.name.startsWith(".")) out.push(`${top}/${sub}/${e.name}`);
    }
  }
  return out;
}

export function loadAll(fs: StoreFs, root: string): LoadedStore {
  const loaded: LoadedStore = { memories: new Map(), relations: new Map(), problems: [] };
  for (const kind of ["memory", "relation"] as const) {
    const into = (kind === "memory" ? loaded.memories : loaded.relations) as Map<string, Memory | Relation>;
    for (const path of [...recordFilePaths(fs, root, kind, "shared"), ...recordFilePaths(fs, root, kind, "local")]) {
      const id = idFromFileName(path.slice(path.lastIndexOf("/") + 1));
      if (!id) {
        loaded.problems.push({ path, problem: "file name is not <uuid>.json" });
        continue;
      }
      const r = readRecordFile(fs, `${root}/${path}`, kind, id);
      if (!r.ok) loaded.problems.push({ path, problem: r.problem });
      else if (into.has(id)) loaded.problems.push({ path, problem: `duplicate: ${kind} ${id} is stored twice` });
      else into.set(id, r.record);
    }
  }
  return loaded;
}
