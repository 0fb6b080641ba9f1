import { heartbeat } from "../store/lock-heartbeat.ts";
import { jsonEqual } from "../core/merge/json-merge.ts";
import { USAGE_FIELDS } from "../core/counters.ts";
import { carryUsage, type JsonObject, parseObject, usageBesideSuccessors } from "../core/merge/record-merge.ts";
import { idFromFileName } from "../store/layout.ts";
import type { Codec } from "../store/codec.ts";
import { type FileMerge, kindOfPath, mergeFileTexts } from "./merge-file.ts";

// The merge of two histories' changes to a store, path by path, against their common base: what
// `memsync pull` applies (the transport that feeds it is being built). Files changed on one side
// take that side; files both sides changed merge field by field (merge-file.ts). Deletions follow
// memsync's rules (DESIGN.md section 4):
// - a memory deleted by consolidation or split (a consolidated_from / split_from relation from a
//   successor names it) stays deleted, and the usage the other side added moves to the successors
//   (its streams, qualified by its id: core/counters.ts); but when the other side changed it
//   beyond usage (its content, labels or status: an acknowledged write the successors never saw),
//   it comes back as that side has it,
//   as from any delete, still named by the successors' consolidated_from / split_from (lineage: a
//   later consolidation can fold it again), with the relations removed along with it;
// - a memory deleted otherwise (gc, a manual delete) while the other side used or edited it comes
//   back as the other side has it, with the relations deleted along with it;
// - a relation goes when one of its memories is gone from the result (provenance relations keep
//   naming the memories they replaced), unless a side that has it already had it dangling (kept
//   by `delete --keep-relations`, or dangling in the base): then it stays with any edit the other
//   side made; delete/delete is clean.
// Nothing here touches disk: texts in, texts out.

export interface Versions {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

export interface PathResult {
  text: string | null;
  clean: boolean;
  how: "ours" | "theirs" | "merged" | "deleted" | "restored" | "kept-deleted" | "text-conflict";
  note?: string;
}

export interface TreeMergeInput {
  /** Every path changed on at least one side since the base, with its three versions. */
  changed: Map<string, Versions>;
  /** Whether a memory exists in the result among the paths neither side changed. */
  unchangedMemoryExists: (id: string) => boolean | Promise<boolean>;
  /**
   * The consolidated_from / split_from relations (id, successor, replaced memory) naming any of
   * these memories, as the store has them: the merge takes those it was not given as changed
   * (unchanged on both sides since the base). Without it only changed relations are known.
   */
  successionsTo?: (memoryIds: string[]) => Promise<{ id: string; from: string; to: string }[]>;
  /** The text of a memory neither side changed, or null. */
  unchangedMemoryText?: (id: string) => Promise<string | null>;
}

/** The relation types a consolidation or split writes from a successor to the memory it replaces. */
export const SUCCESSION = new Set(["consolidated_from", "split_from"]);


const idOf = (path: string) => idFromFileName(path.slice(path.lastIndexOf("/") + 1));

/**
 * Whether a memory's text changed beyond usage against the base: any field but the usage fields
 * (core/counters.ts USAGE_FIELDS: counts, last used/reviewed, strength, review priority) — its
 * content or the texts kept in content_conflicts, its labels (tags, entities, category, project,
 * importance...), its status (archive, unarchive). Such a change is an acknowledged edit the
 * successors of a consolidation or split never saw; a use only is not. Texts that do not parse
 * count as changed (nothing to tell them by).
 */
export function changedBeyondUsage(baseText: string | null, keptText: string | null): boolean {
  if (baseText === null || keptText === null) return baseText !== keptText;
  const base = parseObject(baseText);
  const kept = parseObject(keptText);
  if (!base || !kept) return baseText !== keptText;
  return !jsonEqual(withoutUsage(base), withoutUsage(kept));
}

function withoutUsage(record: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(record)) if (!USAGE_FIELDS.has(k)) out[k] = v;
  return out;
}

export async function mergeTrees(codec: Codec, input: TreeMergeInput): Promise<Map<string, PathResult>> {
  const out = new Map<string, PathResult>();
  const deletions: { path: string; id: string; deletedBy: "ours" | "theirs"; kept: string; base: string | null }[] = [];

  // 1. every path on its own (a long merge under the store's lock says it is moving: write-lock.ts heartbeat)
  for (const [path, v] of input.changed) {
    heartbeat();
    if (v.ours === v.theirs) out.set(path, { text: v.ours, clean: true, how: v.ours === null ? "deleted" : "ours" });
    else if (v.ours === v.base) out.set(path, { text: v.theirs, clean: true, how: v.theirs === null ? "deleted" : "theirs" });
    else if (v.theirs === v.base) out.set(path, { text: v.ours, clean: true, how: v.ours === null ? "deleted" : "ours" });
    else if (v.ours !== null && v.theirs !== null) {
      const m: FileMerge = await mergeFileTexts(codec, kindOfPath(path), v.base, v.ours, v.theirs);
      out.set(path, { text: m.text, clean: m.clean, how: m.clean ? "merged" : "text-conflict" });
    } else {
      // modified on one side, deleted on the other: decided below, once all relations are known
      const deletedBy = v.ours === null ? "ours" : "theirs";
      const kept = (v.ours ?? v.theirs)!;
      const id = idOf(path);
      if (kindOfPath(path) === "memory" && id) deletions.push({ path, id, deletedBy, kept, base: v.base });
      else out.set(path, { text: kept, clean: true, how: "restored" });
    }
  }

  // 2. who succeeded a deleted memory: relations in the result that say so (read once: the steps
  // below change memories, and only drop succession relations whose successor is gone)
  const succession = new Map<string, string[]>();
  for (const [p, r] of out) {
    if (kindOfPath(p) !== "relation" || r.text === null) continue;
    const rel = parseObject(r.text);
    if (rel && SUCCESSION.has(String(rel.relation_type)) && typeof rel.to_memory_id === "string" && typeof rel.from_memory_id === "string") {
      succession.set(rel.to_memory_id, [...(succession.get(rel.to_memory_id) ?? []), rel.from_memory_id]);
    }
  }
  const successorsOf = (id: string): string[] => succession.get(id) ?? [];
  const memoryPaths = new Map<string, string[]>(); // every changed memory path, by id (out holds them all after step 2)
  for (const p of input.changed.keys()) {
    const id = idOf(p);
    if (kindOfPath(p) === "memory" && id) memoryPaths.set(id, [...(memoryPaths.get(id) ?? []), p]);
  }
  const pathOfMemory = (id: string): string | undefined => memoryPaths.get(id)?.find((p) => (out.get(p)?.text ?? null) !== null);
  // a memory's text in the result: from the merged paths, else as neither side changed it
  const resultMemoryText = async (id: string): Promise<string | null> => {
    const p = pathOfMemory(id);
    if (p !== undefined) return out.get(p)!.text;
    return memoryPaths.has(id) ? null : ((await input.unchangedMemoryText?.(id)) ?? null);
  };

  for (const d of deletions) {
    const successors = successorsOf(d.id);
    if (successors.length === 0) {
      out.set(d.path, { text: d.kept, clean: true, how: "restored", note: `memory ${d.id} was deleted on one side (not by consolidation or split) while the other used or edited it: kept` });
      continue;
    }
    if (changedBeyondUsage(d.base, d.kept)) {
      // its streams as the successors hold them at least: a use moved to them since is not lost
      const kept = parseObject(d.kept);
      const succ = successors.map((s) => pathOfMemory(s)).map((sp) => (sp ? parseObject(out.get(sp)!.text) : null)).filter((r): r is JsonObject => r !== null);
      const raised = kept && succ.length > 0 ? codec.validate("memory", usageBesideSuccessors(kept, d.id, succ)) : null;
      out.set(d.path, { text: raised?.ok ? raised.text : d.kept, clean: true, how: "restored", note: `memory ${d.id} was merged away into ${successors.join(", ")} on one side while the other edited it (beyond usage): kept, beside them` });
      continue;
    }
    out.set(d.path, { text: null, clean: true, how: "kept-deleted", note: `memory ${d.id} was merged away into ${successors.join(", ")}; its later usage moved there` });
    const base = parseObject(d.base);
    const kept = parseObject(d.kept) ?? {};
    for (const s of successors) {
      const sp = pathOfMemory(s);
      const succ = sp ? parseObject(out.get(sp)!.text) : null;
      if (!sp || !succ) continue;
      const checked = codec.validate("memory", carryUsage(succ, d.id, base, kept));
      if (checked.ok) out.set(sp, { ...out.get(sp)!, text: checked.text });
    }
  }

  // 2b. a memory the result holds beside successors the store already had (the relation unchanged
  // on both sides: it came back in an earlier merge, or arrives now from the side that brought it
  // back, while this side carried a use of it into them): its streams raised to what they carry,
  // as in step 2, or this side's next use of it counts a value the successor holds already.
  await raiseBesideKnownSuccessors(codec, input, out, successorsOf, resultMemoryText);

  // 3. relations: one whose memory is gone goes too; one deleted along with a memory that came back returns
  const memoryAlive = async (id: string): Promise<boolean> => {
    return memoryPaths.has(id) ? pathOfMemory(id) !== undefined : await input.unchangedMemoryExists(id);
  };
  // Whether a side's tree has no memory `id`: from its changed paths, else as the base had it.
  const sideLacks = async (id: string, side: "ours" | "theirs"): Promise<boolean> => {
    const paths = [...input.changed].filter(([k]) => kindOfPath(k) === "memory" && idOf(k) === id);
    return paths.length > 0 ? paths.every(([, v]) => v[side] === null) : !(await input.unchangedMemoryExists(id));
  };
  // A relation that names a gone memory goes, unless a side holding the relation already had it
  // dangling on that memory: it was kept on purpose (`delete --keep-relations`) or dangled in the
  // base, and the other side's edit of it is no reason to drop it. Only a dangling the merge
  // itself would make (a relation added or kept while the other side deleted its memory) is dropped.
  const danglesOnPurpose = async (id: string, v: Versions): Promise<boolean> =>
    (v.ours !== null && (await sideLacks(id, "ours"))) || (v.theirs !== null && (await sideLacks(id, "theirs")));
  const restored = new Set(deletions.filter((d) => out.get(d.path)!.how === "restored").map((d) => d.id));
  // The memories alive in the result that a memory gone by succession lives on in, following a
  // chain (merged away, then split or merged again on the same side since the base), sorted: the
  // same answer on both machines.
  const liveHeirs = async (id: string): Promise<string[]> => {
    const found = new Set<string>();
    const seen = new Set([id]);
    const walk = async (x: string): Promise<void> => {
      for (const s of successorsOf(x)) {
        if (seen.has(s)) continue;
        seen.add(s);
        if (await memoryAlive(s)) found.add(s);
        else await walk(s);
      }
    };
    await walk(id);
    return [...found].sort();
  };
  for (const [path, v] of input.changed) {
    if (kindOfPath(path) !== "relation") continue;
    const r = out.get(path)!;
    if (r.text !== null) {
      const rel = parseObject(r.text);
      if (!rel) continue;
      // provenance (consolidated_from, split_from) names a memory that is gone on purpose
      const provenance = SUCCESSION.has(String(rel.relation_type));
      const ends = { from_memory_id: String(rel.from_memory_id), to_memory_id: String(rel.to_memory_id) };
      let gone = false;
      let moved = false;
      for (const end of provenance ? (["from_memory_id"] as const) : (["from_memory_id", "to_memory_id"] as const)) {
        const id = ends[end];
        if ((await memoryAlive(id)) || (await danglesOnPurpose(id, v))) continue;
        // merged away on the other side: the relation moves under its id to the memory it lives on
        // in, as consolidate moves the relations it finds (core/consolidate.ts rewireRelations), so
        // a relation added while the other side consolidated is kept, not dropped; past a split
        // (several heirs: a split copies relations to every part, under new ids the merge cannot
        // make alike on both machines) it moves to the first of them by id, rather than going
        const heirs = provenance ? [] : await liveHeirs(id);
        if (heirs.length > 0) {
          ends[end] = heirs[0]!;
          moved = true;
          continue;
        }
        gone = true;
        break;
      }
      if (gone || ends.from_memory_id === ends.to_memory_id) {
        out.set(path, { text: null, clean: true, how: "deleted", note: gone ? "a memory it names is gone" : "both ends merged into one memory" });
      } else if (moved) {
        const checked = codec.validate("relation", { ...rel, ...ends });
        out.set(path, checked.ok ? { text: checked.text, clean: true, how: "merged", note: "moved to the memory its end lives on in" } : { text: null, clean: true, how: "deleted", note: "a memory it names is gone" });
      }
    } else if (v.base !== null) {
      const rel = parseObject(v.base);
      const names = rel ? [String(rel.from_memory_id), String(rel.to_memory_id)] : [];
      if (names.some((id) => restored.has(id)) && (await Promise.all(names.map(memoryAlive))).every(Boolean)) {
        out.set(path, { text: v.base, clean: true, how: "restored", note: "deleted along with a memory that came back" });
      }
    }
  }
  return out;
}

/**
 * Step 2b of mergeTrees: every memory whose merged text is not this side's own (taken from the
 * other side, merged, restored) and that succession relations unchanged since the base name,
 * raised to what its successors carry of it (record-merge.ts usageBesideSuccessors; a raise is a
 * maximum, so one already made changes nothing). One store query for all of them.
 */
async function raiseBesideKnownSuccessors(
  codec: Codec,
  input: TreeMergeInput,
  out: Map<string, PathResult>,
  successorsOf: (id: string) => string[],
  resultMemoryText: (id: string) => Promise<string | null>,
): Promise<void> {
  if (!input.successionsTo) return;
  const arrived = new Map<string, string>();
  for (const [p, r] of out) {
    const id = idOf(p);
    if (kindOfPath(p) === "memory" && id && r.text !== null && r.text !== input.changed.get(p)?.ours) arrived.set(id, p);
  }
  if (arrived.size === 0) return;
  const changedRelations = new Set([...input.changed.keys()].filter((p) => kindOfPath(p) === "relation").map(idOf));
  const known = new Map<string, Set<string>>();
  for (const r of await input.successionsTo([...arrived.keys()])) {
    if (changedRelations.has(r.id) || r.from === r.to) continue;
    known.set(r.to, (known.get(r.to) ?? new Set()).add(r.from));
  }
  for (const [id, successors] of known) {
    const p = arrived.get(id)!;
    const own = parseObject(out.get(p)!.text);
    if (!own) continue;
    const records: JsonObject[] = [];
    for (const s of new Set([...successors, ...successorsOf(id)])) {
      const rec = parseObject(await resultMemoryText(s));
      if (rec) records.push(rec);
    }
    const raised = usageBesideSuccessors(own, id, records);
    if (jsonEqual(raised, own)) continue;
    const checked = codec.validate("memory", raised);
    if (checked.ok) out.set(p, { ...out.get(p)!, text: checked.text });
  }
}
