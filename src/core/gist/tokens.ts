// Text split into what a gist may touch (plain words) and what it never may (code spans, URLs,
// paths, versions, numbers and any other token that is not a plain word), then into sentences.

export type TokKind = "word" | "atom" | "punct" | "code" | "url";

export interface Tok {
  text: string;
  kind: TokKind;
  /** The whitespace before the token in the original text ("" when it was attached). */
  pre: string;
  /** Never removed or rewritten (set by the gist's protection pass; atoms, code and URLs always). */
  guard: boolean;
  /** Removed from the gist. */
  gone: boolean;
  /** Already rewritten by a phrase rule: not matched again. */
  fixed: boolean;
}

export interface Sentence {
  toks: Tok[];
  /** A line break before the sentence in the original. */
  newline: boolean;
  gone: boolean;
}

// code: fenced blocks (closed, or running to the end), then inline spans of one or two backticks
const CODE_RE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|``[^\n]+?``|`[^`\n]+`/g;
const RUN_RE = /(\s*)(\S+)/g;
const URL_RE = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+$/i;
const WORD_RE = /^[\p{L}\p{M}]+(?:['’\-‐][\p{L}\p{M}]+)*$/u;
// most text is ASCII: test that first, so the Unicode pattern (costly the first time) rarely runs
const ASCII_WORD_RE = /^[A-Za-z]+(?:['’\-‐][A-Za-z]+)*$/;
// deno-lint-ignore no-control-regex
const NON_ASCII_RE = /[^\x00-\x7f]/;
const isWord = (s: string) => ASCII_WORD_RE.test(s) || (NON_ASCII_RE.test(s) && WORD_RE.test(s));
const PUNCT_ONLY_RE = /^[-–—*•.,;:!?…]+$/;
const OPENERS = new Set(["(", "[", "{", "\"", "'", "“", "‘"]);
const CLOSERS = new Set([".", ",", ";", ":", "!", "?", ")", "]", "}", "\"", "'", "”", "’", "…"]);
const ABBREVIATIONS = new Set(["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "esp.", "et al."]);

function tok(text: string, kind: TokKind, pre: string): Tok {
  return { text, kind, pre, guard: kind === "atom" || kind === "code" || kind === "url", gone: false, fixed: false };
}

/** One whitespace-free run: leading and trailing punctuation peeled off, the core classified. */
function splitRun(run: string, pre: string, out: Tok[]): void {
  let core = run;
  let lead = "";
  if (ABBREVIATIONS.has(core.toLowerCase())) {
    out.push(tok(core, "atom", pre));
    return;
  }
  if (PUNCT_ONLY_RE.test(core)) {
    out.push(tok(core, "punct", pre));
    return;
  }
  while (core.length > 1 && OPENERS.has(core[0]!)) {
    out.push(tok(core[0]!, "punct", lead === "" ? pre : ""));
    lead += core[0];
    core = core.slice(1);
  }
  const tail: string[] = [];
  const url = URL_RE.test(core);
  while (core.length > 1 && CLOSERS.has(core[core.length - 1]!)) {
    const last = core[core.length - 1]!;
    // a URL keeps a closing parenthesis it opened itself
    if (url && last === ")" && core.includes("(") && (core.match(/\(/g)?.length ?? 0) >= (core.match(/\)/g)?.length ?? 0)) break;
    if (ABBREVIATIONS.has(core.toLowerCase())) break;
    tail.unshift(last);
    core = core.slice(0, -1);
  }
  const myPre = lead === "" ? pre : "";
  if (ABBREVIATIONS.has(core.toLowerCase())) out.push(tok(core, "atom", myPre));
  else if (URL_RE.test(core)) out.push(tok(core, "url", myPre));
  else if (isWord(core)) out.push(tok(core, "word", myPre));
  else if (PUNCT_ONLY_RE.test(core)) out.push(tok(core, "punct", myPre));
  else out.push(tok(core, "atom", myPre));
  for (const t of tail) out.push(tok(t, "punct", ""));
}

function splitPlain(text: string, leading: string, out: Tok[]): string {
  let pending = leading;
  let last = 0;
  for (const m of text.matchAll(RUN_RE)) {
    splitRun(m[2]!, pending + m[1]!, out);
    pending = "";
    last = m.index + m[0].length;
  }
  // whitespace after the last run belongs to whatever comes next
  return pending + text.slice(last);
}

export function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let at = 0;
  let pending = "";
  for (const m of text.matchAll(CODE_RE)) {
    pending = splitPlain(text.slice(at, m.index), pending, out);
    out.push(tok(m[0], "code", pending));
    pending = "";
    at = m.index + m[0].length;
  }
  splitPlain(text.slice(at), pending, out);
  return out;
}

const ENDS_SENTENCE = /^[.!?…]+$/;

/** Sentences end at . ! ? and at line breaks; a fenced code block starts its own line. */
export function sentences(toks: readonly Tok[]): Sentence[] {
  const out: Sentence[] = [];
  let cur: Tok[] = [];
  let newline = false;
  const flush = () => {
    if (cur.length) out.push({ toks: cur, newline, gone: false });
    cur = [];
  };
  for (const t of toks) {
    if (t.pre.includes("\n") && cur.length) flush();
    if (cur.length === 0) newline = t.pre.includes("\n");
    cur.push(t);
    if (t.kind === "punct" && ENDS_SENTENCE.test(t.text)) flush();
  }
  flush();
  return out;
}

export function isCloser(t: Tok): boolean {
  return t.kind === "punct" && (/^[.,;:!?…]+$/.test(t.text) || t.text === ")" || t.text === "]" || t.text === "}" || t.text === "”");
}

export function isOpener(t: Tok): boolean {
  return t.kind === "punct" && (t.text === "(" || t.text === "[" || t.text === "{" || t.text === "“");
}

/** A sentence back to text: one space where the original had whitespace, none around brackets. */
export function renderSentence(toks: readonly Tok[]): string {
  let s = "";
  let prev: Tok | undefined;
  for (const t of toks) {
    if (t.gone) continue;
    if (prev) s += isCloser(t) || isOpener(prev) ? "" : t.pre === "" ? "" : " ";
    s += t.text;
    prev = t;
  }
  return s;
}

export function render(sents: readonly Sentence[]): string {
  let s = "";
  for (const sent of sents) {
    if (sent.gone) continue;
    const text = renderSentence(sent.toks);
    if (text === "") continue;
    s += s === "" ? text : `${sent.newline ? "\n" : " "}${text}`;
  }
  return s.trim();
}
