import { extractCaptures } from "./extract.ts";
import { splitSentences, prepareText } from "./text.ts";

// What the assistant said at the end of a turn (Stop, SubagentStop: last_assistant_message) holds
// decisions only when it states one explicitly ("We decided to use X", "Decision: X", "I switched
// the tests from Jest to Vitest"), never its suggestions ("I'd recommend X", "you could use Y").
// Such a sentence is only a candidate: it is kept when the user's next prompt accepts it ("ok",
// "sounds good"), and dropped when the next prompt says anything else.

/** The words of an explicit decision, as the capture's signal shows them. */
const EXPLICIT_SIGNAL = /\b(?:decid|decision|chose|chosen|picked|selected|opted|settled|agreed|went with|going with|switch|migrat|moved|replac|standardi|won't use|will not use|we'll use|we will use|from now on|going forward|convention|policy|rule)/i;

/** A sentence that opens with a policy's words: "Going forward, all dates are stored in UTC." */
const POLICY_LEAD = /^(?:going forward|from now on|from here on(?: out)?|as of (?:today|now))\b/i;

/** An assistant's proposal, not a decision: left for the user to make. */
const SUGGESTION =
  /\b(?:recommend|suggest|propose|could|might|may|consider|option|alternatively|would|should|i'd|you'd|we'd|if you|do you want|want me to|let me know|perhaps|maybe|possibly|probably|one approach|another approach|tradeoffs?|pros and cons)\b/i;

export const MAX_ASSISTANT_DECISIONS = 5;

/** The sentences of an assistant's message that state a decision explicitly, at most a few. */
export function explicitDecisions(message: string): string[] {
  const prepared = prepareText(message);
  if (prepared.skip) return [];
  const out: string[] = [];
  for (const sentence of splitSentences(prepared.text)) {
    if (out.length >= MAX_ASSISTANT_DECISIONS) break;
    if (SUGGESTION.test(sentence)) continue;
    // a policy's lead ("Going forward, ...") is read off the sentence: its capture names no signal words
    const found = extractCaptures(sentence).captures.filter((c) => (c.type === "decision" || c.type === "preference") && (EXPLICIT_SIGNAL.test(c.signal) || (c.signal === "" && POLICY_LEAD.test(sentence.trim()))));
    if (found.length > 0) out.push(sentence.trim());
  }
  return out;
}

/** A short reply that accepts what was said ("ok", "sounds good, go ahead"), with nothing against it. */
const ACCEPT =
  /^(?:ok(?:ay)?|k|yes|yep|yeah|yup|sure|sounds good|sounds great|looks good|looks great|lgtm|perfect|great|excellent|agreed|i agree|go ahead|go for it|do it|ship it|approved|that works|works for me|let's do (?:it|that)|makes sense|good call|nice|cool|fine|fine by me|thanks?|thank you|ty)\b/i;
const RESERVATION = /\b(?:but|no|not|don't|do not|instead|wait|rather|actually|hold on|hmm|change|revert|undo|wrong|why)\b|\?/i;

export function acceptsPrevious(prompt: string): boolean {
  const t = prompt.trim();
  return t.length > 0 && t.length <= 200 && ACCEPT.test(t) && !RESERVATION.test(t);
}
