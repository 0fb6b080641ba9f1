// A large pattern of the form \b(?:A|B|C|...)\b searched for whether it matches at all, as the same
// alternatives in groups, each group its own pattern with the same flags: /\b(?:A|B)\b/.test(s) is
// /\b(?:A)\b/.test(s) || /\b(?:B)\b/.test(s) (some position and some alternative match, followed by
// a word boundary, either way). JavaScriptCore compiles a pattern at its first search, all of it:
// cues.ts TROUBLE (~4,000 characters, 110 alternatives) cost a cold hook 1.5-2.3 ms on its first
// test; in groups of ten, a prompt whose match is in an early group compiles only the groups up to
// it (~0.5 ms), and one that matches none compiles every group for ~1.1 ms (a compiled probe; the
// compile grows faster than the pattern's length). Only for a yes or no: where a match's position
// or text is wanted (exec), the pattern itself is searched.

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
    else if (c === "(") depth++;
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
  const alts = re.global || re.sticky ? null : topAlternatives(re.source);
  if (!alts || alts.length <= size) return [re];
  const groups: RegExp[] = [];
  for (let i = 0; i < alts.length; i += size) groups.push(new RegExp(`\\b(?:${alts.slice(i, i + size).join("|")})\\b`, re.flags));
  return groups;
}
