import { promotionCheck, type ScoringSettings, scoreMemory } from "../core/decay.ts";
import { corrupt, isMemsyncError, notFound, usageError } from "../core/errors.ts";
import { messages } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { updateMemory } from "../core/records.ts";
import type { Store, StoreTx } from "../store/store.ts";
import type { OpsEnv } from "./context.ts";
import { type MaintainerOutcome, takeMaintenance, thisMachine } from "./maintainer.ts";
import { currentScoring } from "./score.ts";
import { refuseInsideStore } from "./outside-store.ts";
import { plannedNoteName, prepareVault, writeVaultNote } from "./vault.ts";

// promote: memories that earned it become notes in the long-term vault, and are marked
// promoted (status, promoted_at, promoted_to = the note's path) in one transaction. The note is
// written and fsynced before its memory is marked, so a crash can leave a note whose memory is
// still active (the next promotion finds and reuses it), never a memory marked promoted whose
// note does not exist.

export interface PromoteOptions {
  /** Memories named by the user: promoted whatever their score (unless already promoted). */
  ids: readonly string[];
  /** Also every active memory the promotion rule selects (core/decay.ts promotionCheck). */
  auto: boolean;
  dryRun: boolean;
  /** The vault folder (machine-local); a real run needs it. */
  vault: string | null;
  claim: boolean;
}

export interface PromotedNote {
  id: string;
  score: number;
  /** reinforced or burst (the rule), or requested (named by the user). */
  reason: string;
  /** The note's path (a dry run: the file name it would get). */
  note: string;
  reused_note: boolean;
}

export interface PromoteOutcome {
  dry_run: boolean;
  vault: string | null;
  promoted: PromotedNote[];
  skipped: { id: string; reason: string }[];
  maintainer: MaintainerOutcome | null;
}

interface Choice {
  memory: Memory;
  score: number;
  reason: string;
}

/** What this run promotes: the named memories, then the rule's choices, each once. */
function choose(read: (id: string) => Memory | null, autoIds: readonly string[], opts: PromoteOptions, now: number, settings: ScoringSettings, skipped: PromoteOutcome["skipped"]): Choice[] {
  const picks = new Map<string, Choice>();
  for (const id of opts.ids) {
    const m = read(id);
    if (!m) continue;
    if (m.status === "promoted") skipped.push({ id, reason: `already promoted${m.promoted_to ? ` to ${m.promoted_to}` : ""}` });
    else picks.set(id, { memory: m, score: scoreMemory(m, now, settings.decay), reason: "requested" });
  }
  for (const id of autoIds) {
    if (picks.has(id)) continue;
    const m = read(id);
    if (!m) continue;
    const v = promotionCheck(m, now, settings);
    if (v.eligible) picks.set(id, { memory: m, score: v.score, reason: v.reason });
  }
  return [...picks.values()];
}

function autoCandidates(rows: { id: string; status: string; created_at: number; last_used: number; use_count: number; strength: number }[], now: number, settings: ScoringSettings): string[] {
  return rows.filter((r) => promotionCheck(r, now, settings).eligible).map((r) => r.id);
}

export async function promoteOp(store: Store, env: OpsEnv, opts: PromoteOptions): Promise<PromoteOutcome> {
  if (!opts.ids.length && !opts.auto) throw usageError("give ids, or auto to promote every memory the promotion rule selects", { fields: ["ids", "auto"] });
  if (opts.dryRun) return promotePreview(store, opts);
  const vault = opts.vault;
  if (vault === null) throw usageError("promote writes notes into a vault folder: give vault", { fields: ["vault"] });
  refuseInsideStore("promote", vault, store.root, "vault");
  prepareVault(vault); // a vault that cannot be written is refused before the role is taken
  await store.codec();
  const machine = thisMachine(store, env);
  return store.write((tx) => {
    const role = takeMaintenance(tx, machine, opts.claim);
    const settings = tx.meta().settings;
    const now = tx.now;
    const out: PromoteOutcome = { dry_run: false, vault, promoted: [], skipped: [], maintainer: role };
    const autoIds = opts.auto ? autoCandidates(tx.scoringRows(["active"]), now, settings) : [];
    const named = new Set(opts.ids);
    for (const id of named) tx.memory(id); // refuse a missing or unreadable one before any note is written
    // one the rule chose may have changed since the index saw it: the file decides, a bad one is skipped
    const read = (id: string): Memory | null => {
      if (named.has(id)) return tx.memory(id);
      try {
        return tx.memory(id);
      } catch (e) {
        if (!isMemsyncError(e)) throw e;
        out.skipped.push({ id, reason: e.message });
        return null;
      }
    };
    const picks = choose(read, autoIds, opts, now, settings, out.skipped);
    for (const p of picks) {
      const note = writeVaultNote(vault, p.memory, now);
      mark(tx, p.memory, now, note.path);
      out.promoted.push({ id: p.memory.id, score: p.score, reason: p.reason, note: note.path, reused_note: note.reused });
    }
    if (out.promoted.length) tx.note("promote", messages.promote(out.promoted.map((p) => p.id), picks[0]!.memory.content));
    return out;
  }, []);
}

function mark(tx: StoreTx, m: Memory, now: number, notePath: string): void {
  tx.putMemory(updateMemory(m, { status: "promoted", promoted_at: now, promoted_to: notePath }, now).memory);
}

/** --dry-run: what would be promoted and the note names; nothing written, no role needed. */
async function promotePreview(store: Store, opts: PromoteOptions): Promise<PromoteOutcome> {
  await store.refresh(false, ["memory"]);
  const settings = currentScoring(store);
  const now = store.nowSeconds();
  const memories = new Map<string, Memory>();
  const load = async (id: string) => {
    const hit = await store.readMemory(id);
    if (!hit) throw notFound(`memory ${id} not found`, { id });
    if (!hit.result.ok) throw corrupt(`memory ${id} cannot be read: ${hit.path} is ${hit.result.problem}`, { id });
    memories.set(id, hit.result.record);
  };
  for (const id of opts.ids) await load(id);
  const autoIds = opts.auto ? autoCandidates(await store.scoringRows(["active"]), now, settings) : [];
  for (const id of autoIds) if (!memories.has(id)) await load(id);
  const out: PromoteOutcome = { dry_run: true, vault: opts.vault, promoted: [], skipped: [], maintainer: null };
  const picks = choose((id) => memories.get(id) ?? null, autoIds, opts, now, settings, out.skipped);
  for (const p of picks) out.promoted.push({ id: p.memory.id, score: p.score, reason: p.reason, note: plannedNoteName(opts.vault, p.memory), reused_note: false });
  return out;
}
