// An act told as an event, not a standing state or rule: what someone did once, told as a story
// ("Ingrid switched the booking form to Tally over the weekend and nobody complained"), an errand
// of the speaker's done and reported ("Renewed the certificate, and paid the invoice while I was at
// it"), work in progress with its next step told ("lots 1 to 4000 done, photos next"), and a
// choice made for one spell only ("went with last year's template for today"). Read on the
// clause's shape - who acts, its tense, a sequence of acts, a next step - not on its subject;
// a state or rule said with it ("..., so the form lives in Tally now", "from now on") keeps it.
// Checked, like not-ours.ts, only on a sentence the rules would keep and on one the model would add.

import { vocabularyEntry } from "./entities.ts";

/** What holds beyond the telling: a state now, a rule, a recurrence. */
const STANDING =
  /\b(?:now|from now on|going forward|from here on|always|never|every|each|whenever|only|must|should|don't|do not|is the|are the|lives? (?:in|on|at|under)|stays?|remains?|policy|rule)\b|;/i;

/**
 * A named person's act told as an event: a first name (not a product the vocabulary knows) and a
 * verb in the past taking its object (a person moves "the cron jobs"; "auth moved to Cognito" is a
 * thing that moved), told with when it happened or with a second act or a reaction joined on - the
 * sequence of a narrative, not the state it left. A verb of choosing ("Marco decided ...",
 * "Ana picked ...") hands on a choice the team made through them, and is not read here.
 */
const NAMED_ACTOR =
  /^(?:(?:fyi|btw|so|also|ok|and|oh|heads up|update)[,:]?\s+)?([A-Z][a-z]{2,})\s+(?:just\s+|already\s+|finally\s+)?(?!(?:decided|agreed|chose|picked|settled|ruled|confirmed|approved|signed|proposed|suggested|asked|wanted|mentioned|announced|insisted|standardi[sz]ed)\b)(?:[a-z]{3,}ed|put|set up|(?:re)?built|(?:re)?wrote|rolled back|took|made|(?:re)?ran|threw|brought|got rid of|hooked up)\s+(?:the|our|all|every|both|his|her|its|a|an|some)\b/;
const NARRATIVE_TAIL =
  /\b(?:and|then)\s+(?:(?:he|she|they|it)\s+)?(?:wrote|sent|logged|posted|shared|documented|told|said|says|emailed|pinged|took|went|nobody|no one|everyone|it (?:went|worked|seems|looks)|(?:he|she|they) (?:says|said|thinks|reckons))\b|,\s*(?:says|said|reckons|thinks)\b|,\s*(?:took|it took)\s+(?:him|her|them)\b/i;
/** When the act happened: a moment past, not a state since then. */
const PAST_WHEN =
  /\b(?:yesterday|last (?:week|night|month|sprint|year|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|on (?:mon|tues|wednes|thurs|fri|satur|sun)day|over the weekend|this (?:morning|afternoon)|earlier (?:today|this week)|the other day|\d+ (?:days|weeks) ago)\b/i;

/**
 * The speaker's errand, done once and reported: a verb of an errand (not of choosing: "switched
 * the CI to Actions" is a choice), with or without "I"/"we", taking its object.
 */
const ERRAND =
  /^(?:(?:ok|okay|so|also|fyi|btw|done)[,:]?\s+)?(?:(?:i|we)\s+(?:just\s+|finally\s+|already\s+)?)?(?:renewed|paid|approved|signed off(?: on)?|sent(?: round| out| over)?|rebooted|restarted|restored|deleted|emailed|pinged|booked|ordered|filed|submitted|refunded|topped up|cleared out|re-?ran|invoiced)\s+(?:the|our|a|an|all|both|his|her|their|that|those|these|\d+|two|three|four|five)\b/i;

/** Work in progress with its next step told: "photos next", "Liege goes Thursday", "the rest after the weekend". */
const NEXT_STEP =
  /[,;:]\s*(?:and\s+)?(?:then\s+)?(?:the\s+)?(?:[\w'-]+\s+){0,3}?(?:(?:is|are)\s+)?next(?:\s+on the list|\s+up)?\s*[.!]*$|[,;:]\s*(?:and\s+)?(?:the rest|[\w'-]+(?:\s+[\w'-]+)?)\s+(?:goes|go|follows?|comes?|gets? done|(?:is|are) due)\s+(?:on\s+)?(?:tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|after the weekend|later this week)\b|[,;:]\s*(?:and\s+)?the rest\s+(?:on|after|by|from|next)\b/i;
/** Something finished or under way in the same sentence: the progress the next step follows. */
const PROGRESS_DONE =
  /\b(?:done|finished|complete|completed|cut over|live|imported|migrated|moved|rolled out|deployed|installed|(?:is|are) on|landed|shipped|day \d+ of|[a-z]{3,}ed(?=\s*[,;]))\b/i;

/** A choice for one spell only: "went with the backup stream for the second half", "used last year's template for today". */
const ONE_SPELL_CHOICE =
  /\b(?:went with|used|ran (?:on|with)|fell back to|switched to|stuck with)\b.{1,60}?\bfor (?:today|tonight|the (?:first|second) half|this (?:one|run|event|show|match|game|session|time|evening)|the rest of (?:the|this|today's) (?:day|night|show|event|match|session))\b/i;

/**
 * A choice that was not made: "We were going to move the feed to Transistor but it never happened",
 * "I almost switched the app to Flutter". ("We were going to use Redis but went with Postgres" names
 * the choice made, after it.)
 */
const UNMADE_CHOICE =
  /\b(?:(?:i|we|they|he|she)\s+(?:almost|nearly)\s+(?:switched|moved|migrated|went with|picked|chose|dropped|adopted|rewrote|replaced|ported|put)|(?:was|were|had been)\s+going to\s+[a-z]+)\b/i;
const CHOICE_MADE_AFTER = /\b(?:instead|ended up|settled|went with|chose|picked|decided|switched to|stuck with|sticking|stay|staying|stays|kept|keep|keeping|remain|remains|now)\b/i;

/**
 * The shape of an event, or null: each pattern searched only in a sentence holding a word it needs
 * (this runs on every sentence the rules keep, and most have none of these shapes).
 */
function eventShape(s: string, lower: string): string | null {
  if (/^(?:\w+[,:]?\s+){0,2}[A-Z][a-z]/.test(s)) {
    const named = NAMED_ACTOR.exec(s);
    if (named && !vocabularyEntry(named[1]!) && (PAST_WHEN.test(s) || NARRATIVE_TAIL.test(s.slice(named.index + named[0].length)))) return "a named person's act, told as an event";
  }
  if (ERRAND.test(s)) return "an errand done once, reported";
  if ((lower.includes("next") || lower.includes(" go") || lower.includes("follow") || lower.includes("come") || lower.includes("due") || lower.includes("the rest")) && NEXT_STEP.test(s) && PROGRESS_DONE.test(s)) return "progress with its next step, not a choice";
  if (lower.includes(" for ") && ONE_SPELL_CHOICE.test(s)) return "a choice for one spell only";
  return null;
}

/** Why a sentence tells an act as an event rather than a state or rule to keep, or null. */
export function eventTold(s: string): string | null {
  const lower = s.toLowerCase();
  if (lower.includes("going to") || lower.includes("almost") || lower.includes("nearly")) {
    const unmade = UNMADE_CHOICE.exec(s);
    if (unmade && !CHOICE_MADE_AFTER.test(s.slice(unmade.index + unmade[0].length))) return "a choice that was not made";
  }
  // the shape first: STANDING is a long alternation, searched only once a shape is found
  const shape = eventShape(s, lower);
  return shape && !STANDING.test(s) ? shape : null;
}
