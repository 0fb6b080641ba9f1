// A sentence that tells a moment of the speaker's day, not a state or rule to keep: their own work
// reported as done or tried ("Finished porting the reminders to the new queue, PR is up", "Checked
// the tide chart on three tablets, no freezes anymore", "Tried the new form on my phone and the
// button was hidden"), or any account closed on a reaction to it ("..., weird.", "..., odd.",
// "..., sorry about that", "Ugh, ..."). Read on the sentence's shape - an act of work opening it,
// a reaction closing a clause - not on its subject. A choice, a rule or a lasting fix said in the
// same sentence keeps it ("Spent the day on it - decision: the suite runs against a real broker",
// "Tried pinning grpcio to 1.58 and that fixed it"). Checked in notOurs, so it turns down the
// rules' captures and the learned model's adds alike.

import { CHOICE_WORDS, LASTING_FIX } from "./passing-talk.ts";

/**
 * The speaker's work told as an act, opening the sentence (with or without "I"/"we"): verbs of
 * working on or trying a thing, not of changing or choosing it ("Switched the CI to Actions" is a
 * choice). What they did is reported; what it left standing is not said. What follows the verb is
 * its object or a particle: "Finished orders are archived ..." and "Tested builds go to beta ..."
 * are things named by a participle, a rule about them.
 */
const WORK_DONE =
  /^(?:(?:ok|okay|so|also|fyi|btw|update|quick update)[,:]?\s+)?(?:(?:i|we)\s+)?(?:just\s+|finally\s+|already\s+)?(?:finished|tried|tried out|checked|tested|went through|spent|fiddled|poked|played|verified|had a (?:quick )?look|took a (?:quick )?look|looked (?:at|into))\s+(?:the|a|an|my|our|their|his|her|its|this|that|these|those|it|them|all|both|some|most|half|\d+|one|two|three|four|five|an?\s+hour|[a-z]+ing|up|out|on|with|around|through|at|into|about|over)\b/i;

/**
 * A reaction to what was just told, closing one of its clauses ("..., weird.", "..., yikes, will
 * ping the owner", "..., which is nice"), or a groan opening it ("Ugh, ..."): an account of a
 * moment. "no idea why" is left out: a standing problem's cause may be unknown.
 */
const REACTION =
  /[,;—–]\s*(?:weird|odd|strange|bizarre|yikes|ugh|oof|sigh|annoying|sorry about that|go figure|oh well|fun times|classic|typical|which is (?:nice|weird|odd|annoying|funny|great))\s*(?:[,.!]|$)|^(?:ugh|oof|sigh|argh|meh|yikes)\b/i;

/**
 * A status line's tail: the sentence ends on the speaker's next step under way ("..., checking
 * tomorrow", "..., closing as dupe", "..., rerunning", "..., will ping the owner") or on the work's
 * state ("..., PR is up", "..., it's deployed"), or opens a day's log ("Day 2 of the migration:").
 * A bare "ping me ..." is left out: it closes standing instructions too ("..., ping me in #ops").
 */
const STATUS_TAIL =
  /[,;]\s*(?:and\s+)?(?:(?:will|i'll|we'll)\s+(?:be\s+)?)?(?:checking|closing|deploying|merging|digging|investigating|following up|retrying|rerunning|re-running|keeping an eye|(?:will|i'll|we'll)\s+ping|pinging)\b(?:\s+[\w'#-]+){0,5}\s*[.!]*$|[,;]\s*(?:it's|it is|(?:the\s+)?(?:pr|mr|fix|branch|change|patch)\s+is)\s+(?:deployed|merged|up|live|out|in review|green|done|in)\s*[.!]*$|^day \d+ of\b/i;

/** What holds beyond the moment: said as a rule or a recurrence. */
const HOLDS = /\b(?:always|never|must|should|every(?:one|body)? (?:time|day|night|run|build|release)|whenever|by default|rule|policy)\b/i;

/** Why a sentence tells a moment of the speaker's day rather than something to keep, or null. */
export function momentReport(s: string): string | null {
  const shape = WORK_DONE.test(s) ? "the speaker's work reported" : REACTION.test(s) ? "a reaction to a moment" : STATUS_TAIL.test(s) ? "a status line" : null;
  if (shape === null || CHOICE_WORDS.test(s) || LASTING_FIX.test(s) || HOLDS.test(s)) return null;
  return `${shape}, not a state to keep`;
}
