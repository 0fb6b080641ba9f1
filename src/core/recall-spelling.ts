// Other spellings of one word, for recall to find a memory written in the other one: British and
// American forms ("colour" / "color", "modelled" / "modeled", "centre" / "center", "catalogue" /
// "catalog", "analyse" / "analyze"). Porter stems these apart, and the "-ise" / "-ize" pair is
// already one base (recall-concepts.ts baseStem). Pure and small: recall makes a query word's other
// spellings once a query, and looks for them where the word itself is not found.

/**
 * Ending pairs: [British, American, the letters that may come before them]. Each direction is
 * tried, only after those letters: "colour" / "color" and "flavour" / "flavor", but not "error",
 * "monitor", "vendor" or "floor" (no "errour"); "catalogue" / "catalog", but not "changelog" or
 * "backlog"; "centre" / "center" one way only ("filter", "cluster" and "router" have no "-tre").
 * A wrong variant costs a term looked for in the index, and could find a word by chance.
 */
const ENDINGS: readonly [string, string, RegExp][] = [
  ["our", "or", /[lbmpgu]$|[^o]v$|avi$|^(?:hon|sav|vap|od|rig|vig|val|hum|rum|tum)$/],
  ["ours", "ors", /[lbmpgu]$|[^o]v$|avi$|^(?:hon|sav|vap|od|rig|vig|val|hum|rum|tum)$/],
  ["ourite", "orite", /v$/],
  ["ourites", "orites", /v$/],
  ["elled", "eled", /(?:od|ab|anc|av|ev|fu|unn|ann|ign)$/],
  ["elling", "eling", /(?:od|ab|anc|av|ev|fu|unn|ann|ign)$/],
  ["yse", "yze", /al$/],
  ["ysed", "yzed", /al$/],
  ["yses", "yzes", /al$/],
  ["ysing", "yzing", /al$/],
  ["logue", "log", /[ao]$/],
  ["logues", "logs", /[ao]$/],
  ["cence", "cense", /li$/],
  ["fence", "fense", /^(?:de|of)$/],
  ["tre", "ter", /^(?:cen|me|li|thea)$/],
  ["tres", "ters", /^(?:cen|me|li|thea)$/],
  ["bre", "ber", /^fi$/],
];

/** British endings turned American for any word ("spectre", "litre"); the other way only as above. */
const ONE_WAY: readonly [string, string][] = [
  ["tre", "ter"],
  ["tres", "ters"],
  ["bre", "ber"],
  ["bres", "bers"],
];

/** A variant keeps at least this many letters before its ending ("four" is no "for"). */
const STEM_FROM = 2;

/** The word's other spellings (none for most words). */
export function spellingVariants(word: string): string[] {
  const out = new Set<string>();
  for (const [uk, us, before] of ENDINGS) {
    for (const [from, to] of [[uk, us], [us, uk]] as const) {
      if (!word.endsWith(from)) continue;
      const rest = word.slice(0, -from.length);
      if (rest.length >= STEM_FROM && before.test(rest)) out.add(rest + to);
    }
  }
  for (const [uk, us] of ONE_WAY) {
    const rest = word.slice(0, -uk.length);
    if (word.endsWith(uk) && rest.length >= STEM_FROM) out.add(rest + us);
  }
  return [...out];
}
