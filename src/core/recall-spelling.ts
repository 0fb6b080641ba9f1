// Other spellings of one word, for recall to find a memory written in the other one: British and
// American forms ("colour" / "color", "modelled" / "modeled", "centre" / "center", "catalogue" /
// "catalog", "analyse" / "analyze"). Porter stems these apart, and the "-ise" / "-ize" pair is
// already one base (recall-concepts.ts baseStem). Pure and small: recall calls it only for a query
// word a memory does not hold as it is.

/** Ending pairs: [British, American]. Each direction is tried. */
const ENDINGS: readonly [string, string][] = [
  ["ours", "ors"],
  ["our", "or"],
  ["ourite", "orite"],
  ["ourites", "orites"],
  ["elled", "eled"],
  ["elling", "eling"],
  ["alled", "aled"],
  ["alling", "aling"],
  ["yse", "yze"],
  ["ysed", "yzed"],
  ["yses", "yzes"],
  ["ysing", "yzing"],
  ["tre", "ter"],
  ["tres", "ters"],
  ["logue", "log"],
  ["logues", "logs"],
  ["ence", "ense"],
];

/** A variant keeps at least this many letters before its ending ("four" is no "for"). */
const STEM_FROM = 3;

/** The word's other spellings (none for most words). */
export function spellingVariants(word: string): string[] {
  const out: string[] = [];
  for (const [uk, us] of ENDINGS) {
    if (word.length - uk.length >= STEM_FROM && word.endsWith(uk)) out.push(word.slice(0, -uk.length) + us);
    if (word.length - us.length >= STEM_FROM && word.endsWith(us)) out.push(word.slice(0, -us.length) + uk);
  }
  return out;
}

/** A compound's parts keep at least this many letters each ("in" + "put" is no "input"). */
export const PART_FROM = 3;
