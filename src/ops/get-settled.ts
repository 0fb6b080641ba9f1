import { parseIdRef } from "../core/ids.ts";
import type { Memory } from "../core/model/memory.ts";
import type { Relation } from "../core/model/relation.ts";
import { SettledIndex } from "../store/settled-index.ts";
import type { OpsEnv } from "./context.ts";
import type { GetOutcome } from "./get.ts";

// A plain get of full ids served from a settled index without the Store (store/settled-index.ts):
// the same outcome ops/get.ts getMemories gives, or null when only that path can give it (an
// abbreviation to look up, a folder changed since the index looked, a file not provably the
// indexed one, a store to recover or refuse, a store kept open or a file system of a test's).

/**
 * A refusal of getSettledFirst not yet consumed: the Store's path that answers instead, in the same
 * command, then skips the settled read it would repeat (up to ~2.5 ms of stats and SQLite at 10k).
 */
let refusedJustNow = false;

/** What of the ops environment the settled read looks at. */
type SettledEnv = Pick<OpsEnv, "storeRoot" | "open" | "kept">;

/** getSettled for the command line's quick path (faces/cli/commands/settled-get.ts), which remembers a refusal for the Store's path that follows. */
export function getSettledFirst(env: SettledEnv, raws: readonly string[]): GetOutcome | null {
  const out = getSettled(env, raws);
  refusedJustNow = out === null;
  return out;
}

export function getSettled(env: SettledEnv, raws: readonly string[]): GetOutcome | null {
  if (refusedJustNow) {
    refusedJustNow = false;
    return null;
  }
  if (env.kept || env.open?.fs || env.open?.nowMs) return null;
  const ids: string[] = [];
  for (const raw of raws) {
    let ref;
    try {
      ref = parseIdRef(raw);
    } catch {
      return null; // the catalogue's path refuses it in its own words
    }
    if (!("full" in ref)) return null;
    ids.push(ref.full);
  }
  const index = SettledIndex.open(env.storeRoot, env.open?.busyTimeoutMs ?? 15_000);
  if (!index) return null;
  try {
    if (!index.relationsCurrent()) return null;
    const out: GetOutcome = { found: [], not_found: [], unreadable: [] };
    for (const id of new Set(ids)) {
      const hit = index.memory(id);
      if (hit === null) return null;
      if (hit === "absent") out.not_found.push(id);
      else {
        const rel = index.relations(id);
        const parse = (j: string) => JSON.parse(j) as Relation;
        out.found.push({ memory: JSON.parse(hit.json) as Memory, path: hit.path, outgoing: rel.outgoing.map(parse), incoming: rel.incoming.map(parse) });
      }
    }
    return out;
  } catch {
    return null;
  } finally {
    index.close();
  }
}
