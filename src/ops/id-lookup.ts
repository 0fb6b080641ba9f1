import { conflict, notFound } from "../core/errors.ts";
import { type IdRef, parseIdRef } from "../core/ids.ts";
import type { Store } from "../store/store.ts";

// The one place an id from a user becomes a full id, for every command that takes one: a full
// id as given, or an abbreviation (core/ids.ts parseIdRef: at least 6 hex digits from the id's
// start, as git users type them, or from its end, as memsync prints them) looked up in the index.
// One that fits several is refused with the candidates (conflict, exit 5).

export type IdKind = "memory" | "relation";

/** At most this many candidates are named when an abbreviation fits several. */
const MAX_CANDIDATES = 10;

export interface IdLookup {
  /** Full ids, in the order given. */
  ids: string[];
  /** Abbreviations that fit no id (full ids are passed on: the operation reports those). */
  not_found: string[];
}

/** Parse every input first (a bad one refuses the whole command), then look up the abbreviations. */
export async function lookUpIds(store: Store, raws: readonly string[], kind: IdKind = "memory", what = "id"): Promise<IdLookup> {
  const refs: IdRef[] = raws.map((r) => parseIdRef(String(r), what));
  if (refs.some((r) => "abbrev" in r)) await store.refresh(false, [kind]);
  const ids: string[] = [];
  const notFoundIds: string[] = [];
  for (const ref of refs) {
    if ("full" in ref) {
      ids.push(ref.full);
      continue;
    }
    const matches = await store.idsAbbreviated(kind, ref.abbrev, MAX_CANDIDATES + 1);
    if (matches.length > 1) {
      const plural = kind === "memory" ? "memories" : "relations";
      const shown = matches.slice(0, MAX_CANDIDATES).join(", ");
      const count = matches.length > MAX_CANDIDATES ? `more than ${MAX_CANDIDATES}` : String(matches.length);
      throw conflict(`short id ${ref.given} fits ${count} ${plural} (${shown}${matches.length > MAX_CANDIDATES ? ", ..." : ""}): give more digits or the full id`, {
        id: ref.given,
        candidates: matches.slice(0, MAX_CANDIDATES),
      });
    }
    if (matches.length === 0) notFoundIds.push(ref.given);
    else ids.push(matches[0]!);
  }
  return { ids, not_found: notFoundIds };
}

/** Full ids for inputs that must all exist: an abbreviation that fits nothing is not found (exit 3). */
export async function resolveIds(store: Store, raws: readonly string[], kind: IdKind = "memory", what = "id"): Promise<string[]> {
  const out = await lookUpIds(store, raws, kind, what);
  if (out.not_found.length) {
    const name = kind === "memory" ? "memory" : "relation";
    throw notFound(`no ${name} id starts or ends with ${out.not_found.join(", ")}`, { not_found: out.not_found });
  }
  return out.ids;
}

export async function resolveId(store: Store, raw: string, kind: IdKind = "memory", what = "id"): Promise<string> {
  return (await resolveIds(store, [raw], kind, what))[0]!;
}
