// Whether a message asks to remember something said before ("what did we decide about ...",
// "do you remember ..."), and the words to search for once the asking phrase is taken out. Pure:
// the cortexgraph profile's analyze_for_recall reads it beside a recall of the same words.

const RECALL_PHRASES = [
  "what did i say",
  "what did we say",
  "what did we discuss",
  "what did we decide",
  "what did i decide",
  "what was decided",
  "do you remember",
  "did we decide",
  "remind me",
  "recall",
  "my preference",
  "my choice",
  "what's my",
  "what is my",
  "what was my",
  "last time",
  "previously",
  "we agreed",
] as const;

export interface RecallIntent {
  recall_request: boolean;
  matched_phrases: string[];
  /** The message without the asking phrases, spaces collapsed, question marks trimmed. */
  query: string;
}

export function recallIntent(message: string): RecallIntent {
  const lower = message.toLowerCase();
  const found = RECALL_PHRASES.filter((p) => new RegExp(`(^|[^a-z'])${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^a-z]|$)`).test(lower));
  // "did we decide" inside "what did we decide" is the same request
  const matched = found.filter((p) => !found.some((q) => q !== p && q.includes(p)));
  let query = lower;
  for (const p of matched) query = query.split(p).join(" ");
  query = query.replace(/\s+/g, " ").replace(/^[\s?.,!]+|[\s?.,!]+$/g, "");
  return { recall_request: matched.length > 0, matched_phrases: matched, query };
}
