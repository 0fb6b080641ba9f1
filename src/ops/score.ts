import {
  type PromotionVerdict,
  promotionCheck,
  reviewPriority,
  type ScoringSettings,
  scoreMemory,
  scoringSettingsFrom,
  timeUntilThreshold,
} from "../core/decay.ts";
import type { Memory } from "../core/model/memory.ts";
import { readRawMeta, type Store } from "../store/store.ts";

// Decay scores as a read: `memsync score`, `list/search --scores`. Not maintenance (an edge
// machine can score). The settings are read from .meta.json as it is on disk, without the schema
// library, so a scored read costs what the read costs.

/** The store's scoring settings now (another machine's change may have arrived with a pull). */
export function currentScoring(store: Store): ScoringSettings {
  return scoringSettingsFrom(readRawMeta(store.fs, store.root).settings);
}

export function lastGcAt(store: Store): number | null {
  const v = readRawMeta(store.fs, store.root).last_gc_at;
  return typeof v === "number" ? v : null;
}

export interface MemoryScore {
  id: string;
  status: string;
  score: number;
  use_count: number;
  last_used: number;
  strength: number;
  /** 0..1, highest in the middle of the danger zone. */
  review_priority: number;
  /** Seconds until the score falls under the forget threshold (0: it has; null: never). */
  forget_in: number | null;
  /** When that happens, Unix seconds (null: never). */
  forget_at: number | null;
  promotion: PromotionVerdict;
}

export function scoreOf(m: Memory, now: number, settings: ScoringSettings): MemoryScore {
  const score = scoreMemory(m, now, settings.decay);
  const t = timeUntilThreshold(m, now, settings.forget_threshold, settings.decay);
  const finite = Number.isFinite(t);
  return {
    id: m.id,
    status: m.status,
    score,
    use_count: m.use_count,
    last_used: m.last_used,
    strength: m.strength,
    review_priority: reviewPriority(score, settings.danger_zone),
    forget_in: finite ? Math.ceil(t) : null,
    forget_at: finite ? now + Math.ceil(t) : null,
    promotion: promotionCheck(m, now, settings),
  };
}

export interface ScoreOutcome {
  now: number;
  settings: ScoringSettings;
  scores: MemoryScore[];
  not_found: string[];
  unreadable: { id: string; path: string; problem: string }[];
}

/** `memsync score ID...`: each memory's score and what follows from it. */
export async function scoreMemories(store: Store, ids: readonly string[]): Promise<ScoreOutcome> {
  const settings = currentScoring(store);
  const now = store.nowSeconds();
  const out: ScoreOutcome = { now, settings, scores: [], not_found: [], unreadable: [] };
  for (const id of new Set(ids)) {
    const hit = await store.readMemory(id);
    if (!hit) out.not_found.push(id);
    else if (!hit.result.ok) out.unreadable.push({ id, path: hit.path, problem: hit.result.problem });
    else out.scores.push(scoreOf(hit.result.record, now, settings));
  }
  return out;
}

/** Scores of memories already read (list, search), keyed by id. */
export function scoresFor(store: Store, memories: readonly Memory[]): Record<string, number> {
  const settings = currentScoring(store);
  const now = store.nowSeconds();
  const out: Record<string, number> = {};
  for (const m of memories) out[m.id] = scoreMemory(m, now, settings.decay);
  return out;
}
