import { type GistLevel, makeGist } from "../core/gist.ts";
import { messages } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Store } from "../store/store.ts";

// backfill-gists: give every memory without a gist one (or every memory, with force), in ONE
// write transaction, so the whole backfill is one commit. A gist is derived from the content, so
// updated_at (the time of the last edit) does not move.

export interface BackfillOptions {
  level: GistLevel;
  dryRun: boolean;
  /** Recompute gists that exist too (a memory whose new gist would be none keeps its own). */
  force: boolean;
  /** Called as work goes on: "making" gists (of every memory), then "writing" the changed ones. */
  onProgress?: (phase: "making" | "writing", done: number, total: number) => void;
}

export interface BackfillChange {
  id: string;
  /** Characters of the content, and of the new gist. */
  content_chars: number;
  gist_chars: number;
  gist: string;
  previous_gist: string | null;
}

export interface BackfillOutcome {
  level: GistLevel;
  dry_run: boolean;
  force: boolean;
  examined: number;
  changed: BackfillChange[];
  skipped: {
    /** Already had a gist (without force). */
    has_gist: number;
    /** Under 30 words: the content is its own gist. */
    too_short: number;
    /** The gist would not be clearly shorter. */
    not_shorter: number;
    /** With force: the gist made is the one it has. */
    unchanged: number;
  };
}

type Decision = { kind: "change"; gist: string } | { kind: "has_gist" | "too_short" | "not_shorter" | "unchanged" };

function decide(m: Memory, opts: BackfillOptions): Decision {
  if (m.gist !== null && !opts.force) return { kind: "has_gist" };
  const gist = makeGist(m.content, opts.level, m.entities);
  if (gist === null) {
    if (m.gist !== null) return { kind: "unchanged" };
    return { kind: m.content.split(/\s+/).filter(Boolean).length < 30 ? "too_short" : "not_shorter" };
  }
  if (gist === m.gist) return { kind: "unchanged" };
  return { kind: "change", gist };
}

export async function backfillGists(store: Store, opts: BackfillOptions): Promise<BackfillOutcome> {
  await store.refresh(false, ["memory"]);
  const { memories } = await store.list({}, null);
  const out: BackfillOutcome = {
    level: opts.level,
    dry_run: opts.dryRun,
    force: opts.force,
    examined: memories.length,
    changed: [],
    skipped: { has_gist: 0, too_short: 0, not_shorter: 0, unchanged: 0 },
  };
  const planned: { id: string; gist: string; content: string }[] = [];
  memories.forEach((m, i) => {
    const d = decide(m, opts);
    if (d.kind === "change") {
      planned.push({ id: m.id, gist: d.gist, content: m.content });
      out.changed.push({ id: m.id, content_chars: m.content.length, gist_chars: d.gist.length, gist: d.gist, previous_gist: m.gist });
    } else {
      out.skipped[d.kind]++;
    }
    opts.onProgress?.("making", i + 1, memories.length);
  });
  if (opts.dryRun || planned.length === 0) return out;
  await store.write((tx) => {
    let done = 0;
    for (const p of planned) {
      opts.onProgress?.("writing", ++done, planned.length);
      // the file is the truth: if it changed since it was indexed, decide again on what it says
      const current = tx.memory(p.id);
      let gist: string | null = p.gist;
      if (current.content !== p.content || (current.gist !== null && !opts.force)) {
        const d = decide(current, opts);
        gist = d.kind === "change" ? d.gist : null;
      }
      if (gist !== null && gist !== current.gist) tx.putMemory({ ...current, gist });
    }
    tx.note("backfill-gists", messages.backfillGists(planned.length, opts.level));
  }, ["memory"]);
  return out;
}
