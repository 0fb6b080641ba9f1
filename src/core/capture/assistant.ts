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

/**
 * Words that acknowledge a turn without saying yes to anything in it ("ok", "thanks", "great"):
 * a reply of these alone accepts what was said; followed by anything else ("thanks, now fix the
 * login bug") they close the turn and the rest is a new request, not an acceptance.
 */
const ACKNOWLEDGE = /^(?:ok(?:ay)?|k|kk|yes|yep|yeah|yup|sure|perfect|great|excellent|awesome|nice|cool|fine|alright|all right|good|thank you(?: (?:so much|very much))?|thanks?(?: (?:so much|a lot))?|thx|ty|cheers)\b[\s,.;:!\-–—]*/i;
/**
 * Words that say yes to what was said: they accept it even when a new request follows ("agreed,
 * now add tests"). Those that also open a request ("correct the typo", "approve the PR", "keep it
 * simple") say yes only as a clause of their own.
 */
const ASSENT =
  /^(?:(?:sounds|looks) (?:good|great|fine|right)|lgtm|agreed|i agree|go ahead|go for it|(?:please )?do (?:it|that|so)|ship it|approved|(?:that|this|it) works|works for me|(?:let's|lets) do (?:it|that|this)|(?:let's |lets |we'll )?go with (?:it|that|this|those|them|your|the)|makes sense|good call|fine by me|yes,? please|please do)\b|^(?:agree|approve|correct|exactly|(?:please )?proceed|keep (?:it|that|this)|that's (?:fine|right|good|great|the one))(?=\s*(?:[,.;:!\-–—]|$))/i;
const RESERVATION = /\b(?:but|no|not|don't|do not|instead|wait|rather|actually|hold on|hmm|change|revert|undo|wrong|why)\b|\?/i;

/**
 * Whether the user's reply accepts what the assistant said: it says yes to it ("agreed", "yes,
 * go with that", "sounds good, do it"), or only acknowledges it ("ok", "perfect, thanks"), with
 * nothing against it. An acknowledgement followed by another request accepts nothing.
 */
export function acceptsPrevious(prompt: string): boolean {
  let t = prompt.trim();
  if (t.length === 0 || t.length > 200 || RESERVATION.test(t)) return false;
  for (let m = ACKNOWLEDGE.exec(t); m && m[0].length > 0; m = ACKNOWLEDGE.exec(t)) {
    if (ASSENT.test(t)) return true; // "fine by me", "yes please": assent that opens with an acknowledgement's word
    t = t.slice(m[0].length);
    if (t === "") return true;
  }
  return ASSENT.test(t);
}
