// A large pattern of the form \b(?:A|B|C|...)\b searched as the same alternatives in groups, each
// group its own pattern with the same flags. /\b(?:A|B)\b/.test(s) is /\b(?:A)\b/.test(s) ||
// /\b(?:B)\b/.test(s) (some position and some alternative match, followed by a word boundary,
// either way); its exec is the leftmost of the groups' first matches, the earliest group's on a tie
// (at one position the pattern tries its alternatives in order). JavaScriptCore compiles a pattern
// at its first search, all of it: cues.ts TROUBLE (~4,000 characters, 110 alternatives) cost a cold
// hook 1.5-2.3 ms on its first test; in groups of ten, a test whose match is in an early group
// compiles only the groups up to it (~0.5 ms), and every group compiles for ~1.1 ms (a compiled
// probe; the compile grows faster than the pattern's length). Only for patterns without capturing
// groups (a match is then its text and position alone) and without the v flag (nested classes).

/** The top-level alternatives of a \b(?:...)\b pattern's source, or null for a pattern of another shape. */
export function topAlternatives(source: string): string[] | null {
  const head = "\\b(?:";
  const tail = ")\\b";
  if (!source.startsWith(head) || !source.endsWith(tail)) return null;
  const inner = source.slice(head.length, source.length - tail.length);
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  // the characters that matter, found natively (a loop over every character of a 4,000-character
  // source cost ~0.3 ms in a cold process's interpreter); an escape is taken whole, whatever it escapes
  for (const m of inner.matchAll(/\\[\s\S]|[[\]()|]/g)) {
    const c = m[0];
    if (c.length === 2) continue;
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") {
      // a capturing group (numbered, or named: "(?<name>", not the lookbehinds "(?<=" "(?<!") would
      // be numbered otherwise in a group's pattern: such a pattern is not split
      const after = inner.slice(m.index + 1, m.index + 4);
      if (!after.startsWith("?") || (after.startsWith("?<") && after[2] !== "=" && after[2] !== "!")) return null;
      depth++;
    }
    else if (c === ")") {
      depth--;
      // the group opened at the head closes inside: the pattern is (?:...)...(?:...), another shape
      if (depth < 0) return null;
    } else if (c === "|" && depth === 0) {
      out.push(inner.slice(start, m.index));
      start = m.index + 1;
    }
  }
  if (depth !== 0 || inClass) return null;
  out.push(inner.slice(start));
  return out;
}

/** The pattern's alternatives in groups of `size`, in order, as patterns with its flags; the pattern alone if its shape is another. */
export function alternativeGroups(re: RegExp, size: number): RegExp[] {
  const alts = re.global || re.sticky || re.flags.includes("v") ? null : topAlternatives(re.source);
  if (!alts || alts.length <= size) return [re];
  const groups: RegExp[] = [];
  for (let i = 0; i < alts.length; i += size) groups.push(new RegExp(`\\b(?:${alts.slice(i, i + size).join("|")})\\b`, re.flags));
  return groups;
}
