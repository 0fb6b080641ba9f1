// An instruction to the assistant for every occasion of a kind (branch capture31): "Whenever you
// write a migration, add the down step", "When I ask for a regex, give me a test table", "Check
// with me before you add any new crate", "For any query you write, filter on tenant_id first". The
// occasion is a kind of work (a/an/any/every, a bare noun, "whenever"), so the instruction stands
// for every such task: a preference, whatever the output it is about. The same words for the task
// at hand ("When you're done with the migration, show me the diff", "Before you open the PR, squash
// these", "When you get a chance, ...") are a request for now.

/** What a sentence of this shape is: a standing instruction, or an instruction for one task. */
export type ScopedInstruction = "standing" | "one task";

/** An occasion said first: "Whenever you write X, ...", "When I ask for X, ...", "If you add X, ...". */
const OCCASION_FIRST = /^(whenever|every time|each time|any ?time|when|if|before|after|once)\s+(you|i)(?:\s+|(?='))([^,;]{2,100}?)\s*,\s*(.+)$/i;
/** An occasion said after: "Give me pnpm commands whenever you show install steps", "Check with me before you add any new crate". */
const OCCASION_AFTER = /^(.{3,120}?)\s+(whenever|every time|each time|any ?time|when|if|before|after)\s+(?:you(?:\s+|(?='))([^,;.?!]{2,100})|(\w+ing\s+[^,;.?!]{2,100}))/i;
/** A kind of the assistant's work named with its own relative clause: "any query you write", "anything you generate", "every new endpoint you scaffold". */
const KIND_YOU_DO = /\b(?:(?:any|every|each|all)\s+(?:new\s+)?(?:[\w.'/-]+\s+){0,2}?|anything\s+|everything\s+)you\s+(?!are\b|were\b|have\b|had\b|did\b)[a-z]+/i;

/** The occasion repeats by its word. */
const REPEATING = /^(?:whenever|every time|each time|any ?time)$/i;
/** An occasion that comes once: a state reached ("you're done", "you get a chance"), a sequence ("once"). */
const ONE_TIME_STATE = /^(?:'re|are|'ve|have|'ll|will|get|got|can|could|finish\w*|wake\w*|come back|get back|see this|read this)\b/i;
/** The occasion's work on a thing of now: "open the PR", "draft the release notes for 4.2", "touch it". */
const THIS_THING =
  /^[a-z]+(?:\s+(?:me|us|up|over|out|through|back|on|to|for|with|at|in|into|about|from))?\s+(?:(?:the|this|that|these|those)\b|[\w.-]*\/[\w./-]*\w|[\w-]+\.[a-z]{1,4}\b)/i;
/** Not an occasion but a softener: "if you can", "if you don't mind", "when you want". */
const SOFT_CONDITION = /^(?:still\s+)?(?:can|could|like|want|prefer|don't mind|do not mind|have time|wish|please|need|have to)\b/i;
/** The occasion's work on a thing just named (said first only: "Before you merge it, ..."; said after, "it" is the instruction's own object). */
const THAT_ONE = /^[a-z]+\s+(?:it|them)\b/i;
/** A kind of thing: "a migration", "any new crate", "anything under billing/", "another package". */
const A_KIND = /\b(?:a|an|any|anything|every|each|another|new)\b/i;

/** Words a clause in the imperative does not open with. */
const NOT_A_COMMAND = new Set(
  "i you we it they he she the a an for in on at to with by from of as after before when if this that these those there my our your their its his her what which who how why is are was were will would can could should it's that's there's i'm and but or so nothing everything nobody someone something thanks thank ok okay yes no".split(" "),
);
const SOFTENER = /^(?:please|pls|also|just|then|first|always|simply|kindly)\s+/i;

/** The clause is an instruction: it opens with a verb in the imperative ("use", "add", "don't", "never", "check with me"). */
function commands(clause: string): boolean {
  let c = clause.trim();
  for (let m = SOFTENER.exec(c); m; m = SOFTENER.exec(c)) c = c.slice(m[0].length);
  if (/^(?:don't|do not|never)\b/i.test(c)) return true;
  const first = /^[a-z]+/i.exec(c)?.[0].toLowerCase();
  if (!first || NOT_A_COMMAND.has(first)) return false;
  // a third person's verb or a participle is no imperative ("tests go ...", "lists", "added", "running")
  return !/(?:[^s]s|ed|ing|ly)$/.test(first);
}

/** Whether an occasion ("you <its words>") is a kind of task, one task, or not told either way. */
function occasionKind(word: string, words: string, saidFirst: boolean): ScopedInstruction | null {
  if (SOFT_CONDITION.test(words)) return null;
  if (/^once$/i.test(word)) return "one task";
  if (REPEATING.test(word)) return "standing";
  if (ONE_TIME_STATE.test(words)) return "one task";
  if ((THIS_THING.test(words) || (saidFirst && THAT_ONE.test(words))) && !A_KIND.test(words)) return "one task";
  return "standing";
}

/** The sentence's scoped instruction, or null when it has no occasion of the assistant's work. */
export function scopedInstruction(s: string): ScopedInstruction | null {
  const text = s.trim().replace(/[.!]+$/, "");
  const lower = text.toLowerCase();
  // (cheap gate: every shape needs "you", or "i" for an occasion of the speaker's)
  if (!/\b(?:you|i)\b|ing\b/.test(lower)) return null;
  const first = OCCASION_FIRST.exec(text);
  // (an occasion of the speaker's is one they repeat: "When I ask for a regex", not "when I clicked refund")
  if (first && commands(first[4]!) && !(first[2]!.toLowerCase() === "i" && /^\w+ed\b/i.test(first[3]!))) return occasionKind(first[1]!, first[3]!, true);
  const after = OCCASION_AFTER.exec(text);
  // (the instruction is the sentence's first clause: "nice patch, but please add a test before ..." is no instruction of a kind)
  if (after && commands(after[1]!.split(",")[0]!)) {
    // "Ask before deleting any file": a gerund occasion needs a kind to stand
    if (after[4] !== undefined) return A_KIND.test(after[4]) ? "standing" : null;
    return occasionKind(after[2]!, after[3]!, false);
  }
  // "Keep any CSS you write inside the theme file", "Every new endpoint you scaffold needs an auth check"
  if (KIND_YOU_DO.test(text) && (commands(text) || /\b(?:needs?|must|should|has to|have to)\b/i.test(text))) return "standing";
  return null;
}
