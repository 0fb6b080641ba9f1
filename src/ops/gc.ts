import { type ScoringSettings, scoreMemory } from "../core/decay.ts";
import { isMemsyncError } from "../core/errors.ts";
import { firstWords, messages } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { updateMemory } from "../core/records.ts";
import type { ScoringRow } from "../store/index-db.ts";
import type { Store, StoreTx } from "../store/store.ts";
import type { OpsEnv } from "./context.ts";
import { type MaintainerOutcome, takeMaintenance, thisMachine } from "./maintainer.ts";
import { currentScoring, lastGcAt } from "./score.ts";

// gc: the Ebbinghaus pruning. Every active memory is scored from the index (no record file is
// parsed to find the candidates); those under the forget threshold are deleted with every
// relation that names them, or archived, in one transaction, so one commit. Each candidate is
// re-read from its file and scored again before it goes: the file is the truth, and a memory
// used since the index last saw it stays.

export interface GcOptions {
  /** Mark archived instead of deleting (relations then stay: the memory is still there). */
  archive: boolean;
  /** Only say what would go; read-only, needs no maintainer role. */
  dryRun: boolean;
  /** At most this many, the lowest scores first (null: all). */
  limit: number | null;
  claim: boolean;
}

export interface GcCandidate {
  id: string;
  score: number;
  use_count: number;
  last_used: number;
  strength: number;
  /** The first words of its gist or content (in a dry run, for deciding). */
  preview?: string;
}

export interface GcOutcome {
  dry_run: boolean;
  action: "delete" | "archive";
  forget_threshold: number;
  model: string;
  /** Active memories scored. */
  scanned: number;
  /** Under the threshold, before --limit. */
  under_threshold: number;
  /** What goes (or would go), lowest score first. */
  candidates: GcCandidate[];
  /** Deleted or archived (empty in a dry run). */
  removed: string[];
  relations_removed: string[];
  /** Candidates that were not touched: used since the index saw them, or unreadable now. */
  skipped: { id: string; reason: string }[];
  last_gc_at: number | null;
  maintainer: MaintainerOutcome | null;
}

/** Active memories under the threshold, lowest score first (ties by id, so runs agree). */
export function underThreshold(rows: readonly ScoringRow[], now: number, settings: ScoringSettings): GcCandidate[] {
  const out: GcCandidate[] = [];
  for (const r of rows) {
    const score = scoreMemory(r, now, settings.decay);
    if (score < settings.forget_threshold) out.push({ id: r.id, score, use_count: r.use_count, last_used: r.last_used, strength: r.strength });
  }
  return out.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : 1));
}

export async function gcOp(store: Store, env: OpsEnv, opts: GcOptions): Promise<GcOutcome> {
  if (opts.dryRun) return gcPreview(store, opts);
  const machine = thisMachine(store, env);
  const outcome = await store.write((tx) => {
    const role = takeMaintenance(tx, machine, opts.claim);
    const settings = tx.meta().settings;
    const now = tx.now;
    const rows = tx.scoringRows(["active"]);
    const under = underThreshold(rows, now, settings);
    const chosen = opts.limit === null ? under : under.slice(0, opts.limit);
    const out: GcOutcome = {
      ...summary(opts, settings, rows.length, under.length, chosen),
      maintainer: role,
      last_gc_at: now,
    };
    // the file decides: a candidate whose file is not provably the indexed one is read and scored again
    const going: string[] = [];
    for (const c of chosen) {
      if (!opts.archive && tx.indexedAsIs("memory", c.id) !== null) {
        going.push(c.id);
        continue;
      }
      const m = reread(tx, c.id, out);
      if (!m) continue;
      if (m.status !== "active") out.skipped.push({ id: c.id, reason: `status is ${m.status}` });
      else if (scoreMemory(m, now, settings.decay) >= settings.forget_threshold) out.skipped.push({ id: c.id, reason: "used since the index saw it" });
      else going.push(c.id);
    }
    if (opts.archive) {
      for (const id of going) {
        tx.putMemory(updateMemory(tx.memoryQuick(id), { status: "archived" }, now).memory);
        out.removed.push(id);
      }
    } else {
      const relations = tx.relationIdsTouching(going);
      // relations first, as delete does: a gc killed midway leaves no relation to a missing memory
      out.relations_removed.push(...tx.removeMany("relation", relations));
      out.removed.push(...tx.removeMany("memory", going));
    }
    tx.updateMeta((meta) => ({ ...meta, last_gc_at: now }));
    tx.note("gc", messages.gc(out.removed.length, out.relations_removed.length, opts.archive));
    return out;
  });
  // the memories gc removed or archived leave recall's impact postings pending: merged here
  await store.settleBoundedSearch();
  return outcome;
}

/** The candidate's record from its file; a file gone or unreadable since the index saw it is skipped. */
function reread(tx: StoreTx, id: string, out: GcOutcome): Memory | null {
  try {
    return tx.memory(id);
  } catch (e) {
    if (!isMemsyncError(e) || (e.code !== "not_found" && e.code !== "corrupt")) throw e;
    out.skipped.push({ id, reason: e.message });
    return null;
  }
}

function summary(opts: GcOptions, settings: ScoringSettings, scanned: number, under: number, chosen: GcCandidate[]) {
  return {
    dry_run: opts.dryRun,
    action: opts.archive ? ("archive" as const) : ("delete" as const),
    forget_threshold: settings.forget_threshold,
    model: settings.decay.model,
    scanned,
    under_threshold: under,
    candidates: chosen,
    removed: [] as string[],
    relations_removed: [] as string[],
    skipped: [] as { id: string; reason: string }[],
  };
}

/** --dry-run: what gc would take now, from the index; nothing written, no role needed. */
async function gcPreview(store: Store, opts: GcOptions): Promise<GcOutcome> {
  await store.refresh(false, ["memory"]);
  const settings = currentScoring(store);
  const rows = await store.scoringRows(["active"]);
  const under = underThreshold(rows, store.nowSeconds(), settings);
  const chosen = opts.limit === null ? under : under.slice(0, opts.limit);
  for (const c of chosen) {
    const hit = await store.readMemory(c.id);
    if (hit?.result.ok) c.preview = firstWords(hit.result.record.gist ?? hit.result.record.content);
  }
  return { ...summary(opts, settings, rows.length, under.length, chosen), last_gc_at: lastGcAt(store), maintainer: null };
}
