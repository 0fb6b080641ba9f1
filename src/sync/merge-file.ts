import type { FieldConflict, JsonObject } from "../core/merge/record-merge.ts";
import { mergeMemory, mergeRelation, mergeStoreMeta, parseObject } from "../core/merge/record-merge.ts";
import type { Codec } from "../store/codec.ts";
import { KIND_DIR, META_FILE } from "../store/layout.ts";

// Merging one file's three versions: what `memsync pull` does for each file both sides changed,
// and what `memsync merge-driver` does when native git asks. A memsync record merges field by
// field and comes out as canonical JSON; anything else (a corrupt record, a file memsync does not
// know) gets a line-based three-way merge that keeps both sides.

export type MergeKind = "memory" | "relation" | "meta";

export interface FileMerge {
  /** false: the text carries conflict markers and needs a person. */
  clean: boolean;
  text: string;
  method: "semantic" | "text";
  conflicts: FieldConflict[];
}

export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

const DEFAULT_LABELS: MergeLabels = { ours: "ours", base: "base", theirs: "theirs" };

/** The record kind a path in a store holds, or null for any other file. */
export function kindOfPath(path: string): MergeKind | null {
  const p = path.replace(/\\/g, "/");
  if (p === META_FILE || p.endsWith(`/${META_FILE}`)) return "meta";
  if (p.startsWith(`${KIND_DIR.memory}/`) || p.includes(`/${KIND_DIR.memory}/`)) return "memory";
  if (p.startsWith(`${KIND_DIR.relation}/`) || p.includes(`/${KIND_DIR.relation}/`)) return "relation";
  return null;
}

function guessKind(obj: JsonObject): MergeKind {
  if ("storage_version" in obj) return "meta";
  if ("from_memory_id" in obj && "to_memory_id" in obj) return "relation";
  return "memory";
}

const MERGERS = { memory: mergeMemory, relation: mergeRelation, meta: mergeStoreMeta } as const;

/**
 * Merge three versions of one file. `base` is null (or empty) when both sides added the file.
 * `kind` is taken from the path when known, else guessed from the content.
 */
export async function mergeFileTexts(
  codec: Codec,
  kind: MergeKind | null,
  base: string | null,
  ours: string,
  theirs: string,
  labels: MergeLabels = DEFAULT_LABELS,
): Promise<FileMerge> {
  const o = parseObject(ours);
  const t = parseObject(theirs);
  const b = base === null || base.trim() === "" ? null : parseObject(base);
  const baseBroken = base !== null && base.trim() !== "" && b === null;
  if (o && t && !baseBroken) {
    const k = kind ?? guessKind(o);
    // only the result is validated: if it is not a valid record, a side was not one (a corrupt
    // file), and the file is merged as text instead
    const merged = MERGERS[k](b, o, t);
    const checked = codec.validate(k, merged.value);
    if (checked.ok) return { clean: true, text: checked.text, method: "semantic", conflicts: merged.conflicts };
  }
  return textMerge(base ?? "", ours, theirs, labels);
}

/** Line-based three-way merge (node-diff3); both sides are kept, conflicts between markers. */
export async function textMerge(base: string, ours: string, theirs: string, labels: MergeLabels = DEFAULT_LABELS): Promise<FileMerge> {
  const { diff3Merge } = await import("node-diff3");
  const lines = (s: string) => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let text = "";
  let clean = true;
  for (const region of diff3Merge(lines(ours), lines(base), lines(theirs), { excludeFalseConflicts: true })) {
    if (region.ok) {
      text += region.ok.join("");
      continue;
    }
    const c = region.conflict!;
    clean = false;
    const block = (xs: string[]) => {
      const s = xs.join("");
      return s === "" || s.endsWith("\n") ? s : `${s}\n`;
    };
    text += `<<<<<<< ${labels.ours}\n${block(c.a)}||||||| ${labels.base}\n${block(c.o)}=======\n${block(c.b)}>>>>>>> ${labels.theirs}\n`;
  }
  return { clean, text, method: "text", conflicts: [] };
}
