// The text blocks memsync hands an agent (recall, context): a heading, one line per memory, and a
// line saying how many more there are when not all fit. A block never exceeds its budget in
// characters (UTF-16 units, which are never fewer than characters), final newline included.

export interface BlockEntry {
  /** The memory's words (a gist or the content), on one line. */
  text: string;
  /** What follows the text: type, date, short id ("[decision 2026-03-01 1a2b3c4d]"). */
  tail: string;
  /** How many of the matches this line stands for (itself and near-duplicates folded in); default 1. */
  covers?: number;
}

export interface BlockSpec {
  heading: string;
  entries: readonly BlockEntry[];
  /** How many matched in all (entries may be only the best of them); "more" counts the rest. */
  total: number;
  /** The closing line for n more that are not shown. */
  more: (n: number) => string;
  budget: number;
  /** A text is cut at a word boundary to this many characters. */
  itemMax: number;
}

export interface Block {
  text: string;
  /** Entries shown (the last may be cut shorter). */
  shown: number;
  /** Matches the block does not show (what its last line counts). */
  more: number;
}

/** The least text worth showing for a memory cut to fit: below this, it is left to the "more" line. */
const MIN_CUT = 40;

/** One line, whitespace collapsed. */
export function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Cut at a word boundary to at most max characters, marking the cut with "…". */
export function cutAtWord(text: string, max: number): string {
  const t = flat(text);
  if (t.length <= max) return t;
  if (max <= 1) return "";
  const room = t.slice(0, max - 1);
  const space = room.lastIndexOf(" ");
  const cut = space >= Math.floor(max / 2) ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:.–—-]+$/, "")}…`;
}

/** A word as a POSIX shell reads it back (for the commands a block suggests). */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

const line = (text: string, tail: string) => `- ${text} ${tail}`;

export function renderBlock(spec: BlockSpec): Block {
  const { heading, entries, budget } = spec;
  const total = Math.max(spec.total, entries.reduce((a, e) => a + (e.covers ?? 1), 0));
  if (total === 0) return { text: "", shown: 0, more: 0 };
  const moreLen = (n: number) => (n > 0 ? spec.more(n).length + 1 : 0);
  let used = heading.length + 1;
  if (used + moreLen(total) > budget) return { text: "", shown: 0, more: total };
  const lines = [heading];
  let shown = 0;
  let left = total;
  for (const e of entries) {
    const after = moreLen(left - (e.covers ?? 1));
    const full = line(cutAtWord(e.text, spec.itemMax), e.tail);
    if (used + full.length + 1 + after <= budget) {
      lines.push(full);
      used += full.length + 1;
      shown++;
      left -= e.covers ?? 1;
      continue;
    }
    // the last that fits, cut shorter
    const room = budget - used - after - 1 - line("", e.tail).length;
    if (room >= MIN_CUT) {
      const cut = line(cutAtWord(e.text, room), e.tail);
      lines.push(cut);
      used += cut.length + 1;
      shown++;
      left -= e.covers ?? 1;
    }
    break;
  }
  if (left > 0) lines.push(spec.more(left));
  return { text: `${lines.join("\n")}\n`, shown, more: left };
}
