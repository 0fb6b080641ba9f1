// The words a pattern cannot match without, read off its source, so a sentence holding none of
// them is not searched with it (pattern-gate.ts). JavaScriptCore compiles a pattern at its first
// search, all of it (0.1-0.5 ms a capture pattern in a cold hook), and most sentences an agent is
// sent hold no cue at all ("add a test for the parser and run it"): capture's first gate
// (cues.ts mayHoldCue) compiled some thirty patterns for them, ~3 ms of a cold hook (issue 16).
// Reading the sources costs about as much as compiling them, so it is done at build time
// (scripts/gen-pattern-words.ts writes pattern-words.gen.ts), never in a hook.
//
// necessaryWords(re) is a set of lower-cased strings one of which every match of `re` holds, or
// null when none can be told. It is sound by construction, never a guess from examples: only a
// run of literal characters the match must contain in order is a word; anything this reader does
// not know for sure (a class, an escape of a letter, a lookaround, an optional part) ends a run,
// and a construct it cannot read at all gives null (the pattern is then always searched).
//   - a sequence: any one of its parts' words will do; the longest shortest word is kept;
//   - alternatives: every alternative must have words, and the set is all of them;
//   - a part repeated at least once keeps its words; an optional part (?, *, {0,n}) has none.
// Letters are compared lower-cased, and only ASCII ones: without the u flag an i pattern matches
// an ASCII letter only by an ASCII letter (ECMAScript's Canonicalize), so lower-casing the
// sentence keeps every match's letters; with u or v and i (Unicode case folding: "ſ" is "s"),
// and for a global or sticky pattern (its test moves lastIndex), there are no words.

export type Words = readonly string[] | null;

/** Lower-cased strings one of which every match of `re` holds; null when it cannot be told. */
export function necessaryWords(re: RegExp): Words {
  if (re.global || re.sticky || (re.ignoreCase && (re.unicode || re.flags.includes("v")))) return null;
  try {
    return new Reader(re.source).pattern();
  } catch {
    return null; // a construct this reader does not know: no words
  }
}


class Unreadable extends Error {}

/** A character that stands for itself outside a class (not one of the syntax characters). */
const PLAIN = /[^\\^$.*+?()[\]{}|/]/;
/** An escape that stands for the character after it: the syntax characters and other punctuation. */
const ESCAPED_SELF = /[\^$\\.*+?()[\]{}|/\-,:;!=<>'"`~@#%&_ ]/;
/** Escapes of a letter that match one character of a class or a control character, or assert: no word. */
const ESCAPED_CLASS = /[bBdDwWsSnrtfv0]/;

class Reader {
  private at = 0;
  constructor(private readonly src: string) {}

  pattern(): Words {
    const words = this.alternatives();
    if (this.at !== this.src.length) throw new Unreadable();
    return words;
  }

  /** Alternatives up to a ")" or the end. */
  private alternatives(): Words {
    const all = new Set<string>();
    let none = false;
    for (;;) {
      const words = this.sequence();
      if (words === null) none = true;
      else for (const w of words) all.add(w);
      if (this.src[this.at] !== "|") break;
      this.at++;
    }
    return none ? null : [...all];
  }

  /** A sequence up to a "|", a ")" or the end: the best of its parts' words. */
  private sequence(): Words {
    let best: Words = null;
    let run = "";
    const offer = (words: Words) => {
      if (words === null || words.length === 0) return;
      if (best === null || better(words, best)) best = words;
    };
    const endRun = () => {
      if (run) offer([run]);
      run = "";
    };
    while (this.at < this.src.length) {
      const c = this.src[this.at]!;
      if (c === "|" || c === ")") break;
      if (c === "(") {
        endRun();
        const inner = this.group();
        const min = this.quantifier();
        if (inner !== undefined && min >= 1) offer(inner);
        continue;
      }
      let literal: string | null = null;
      if (c === "\\") literal = this.escape();
      else if (c === "[") {
        this.charClass();
      } else if (c === "." || c === "^" || c === "$") {
        this.at++;
      } else if (PLAIN.test(c) || c === "/") {
        this.at++;
        // an ASCII character only (see the header); any other ends the run
        literal = c.charCodeAt(0) < 128 ? c.toLowerCase() : null;
      } else throw new Unreadable(); // "{" or a quantifier with nothing before it
      const min = this.quantifier();
      if (literal === null) {
        endRun();
      } else if (min === 1 && this.lastWasPlain) {
        run += literal;
      } else {
        // repeated (the run goes on past the first repeat, so it ends with it) or optional
        if (min >= 1) run += literal;
        endRun();
      }
    }
    endRun();
    return best;
  }

  /** Whether the last quantifier read was none at all (the part occurs exactly once). */
  private lastWasPlain = true;

  /**
   * The least number of times the part before is matched, read from a quantifier after it (1
   * when there is none: lastWasPlain), its lazy "?" read too.
   */
  private quantifier(): number {
    const c = this.src[this.at];
    let min = 1;
    this.lastWasPlain = false;
    if (c === "*" || c === "?") {
      min = 0;
      this.at++;
    } else if (c === "+") {
      this.at++;
    } else if (c === "{") {
      const m = /^\{(\d+)(,\d*)?\}/.exec(this.src.slice(this.at));
      if (!m) throw new Unreadable();
      min = Number(m[1]);
      this.at += m[0].length;
    } else {
      this.lastWasPlain = true;
      return 1;
    }
    if (this.src[this.at] === "?") this.at++;
    return min;
  }

  /** An escape: the character it stands for when that is itself, else null; what it cannot read throws. */
  private escape(): string | null {
    const c = this.src[this.at + 1];
    if (c === undefined) throw new Unreadable();
    this.at += 2;
    if (ESCAPED_SELF.test(c)) return c;
    if (ESCAPED_CLASS.test(c)) return null;
    if (/[1-9]/.test(c)) {
      while (/[0-9]/.test(this.src[this.at] ?? "")) this.at++;
      return null;
    }
    const rest = this.src.slice(this.at);
    const m = c === "x" ? /^[0-9a-fA-F]{2}/.exec(rest) : c === "u" ? /^(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]+\})/.exec(rest) : c === "c" ? /^[a-zA-Z]/.exec(rest) : c === "p" || c === "P" ? /^\{[^}]*\}/.exec(rest) : c === "k" ? /^<[^>]+>/.exec(rest) : null;
    if (!m) throw new Unreadable();
    this.at += m[0].length;
    return null;
  }

  /** A class, "[...]": one character of a set, no word. */
  private charClass(): void {
    this.at++;
    if (this.src[this.at] === "^") this.at++;
    while (this.at < this.src.length && this.src[this.at] !== "]") this.at += this.src[this.at] === "\\" ? 2 : 1;
    if (this.src[this.at] !== "]") throw new Unreadable();
    this.at++;
  }

  /** A group: its alternatives' words; undefined for a lookaround (it holds none of the match's characters). */
  private group(): Words | undefined {
    const rest = this.src.slice(this.at, this.at + 4);
    const head = /^\((?:\?:|\?<=|\?<!|\?=|\?!|\?<[A-Za-z_$][\w$]*>|(?!\?))/.exec(this.src.slice(this.at));
    if (!head) throw new Unreadable(); // a modifier group "(?i:" and anything newer
    this.at += head[0].length;
    const look = /^\(\?(?:<=|<!|=|!)/.test(rest);
    const words = this.alternatives();
    if (this.src[this.at] !== ")") throw new Unreadable();
    this.at++;
    return look ? undefined : words;
  }
}

/** Whether a set of words filters more than another: its shortest word longer, else fewer words. */
function better(a: readonly string[], b: readonly string[]): boolean {
  const la = Math.min(...a.map((w) => w.length));
  const lb = Math.min(...b.map((w) => w.length));
  return la !== lb ? la > lb : a.length < b.length;
}
