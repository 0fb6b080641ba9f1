// Whether a problem is worth keeping for a later session, read from the shape of what is said
// rather than from its subject. A problem teaches something when a clause of it carries a cause
// ("because", "turned out", "since the upgrade"), what ends it (a fix, a workaround), when it
// happens (a condition that stands: "whenever", "over 10 MB", "when users ..."), or a rule drawn
// from it. A report of trouble as it is met teaches nothing a later session can use: the trouble
// under way ("is failing", "still", "again"), one occurrence told in the past ("the export failed
// with a 413"), one individual by its number ("pipeline #8812", "build-07"), one moment ("at
// 14:05", "right now"), the speaker's own act meeting it ("when I open", "for me"), a request for
// help, a tool's count of its own results, or a pointer at a paste; and, whatever class of cases
// it names, work asked for on it, a frame of time that passed, or a forecast for a spell. A problem
// said in a report's shape with no clause of a lesson is a report; a problem said plainly in the
// present ("uploads over 100 MB fail on Android") is a standing condition and stays a problem.

import { standingFailure } from "./standing-failure.ts";

/** A cause: why the trouble happens (not "since 10 min": a time, not a change). */
const CAUSE =
  /\b(?:because|due to|caused by|root cause|turn(?:ed|s) out|c(?:ame|omes?) from|traced (?:it |this |them )?(?:back )?to|the (?:reason|cause|culprit) (?:is|was)|same cause|since (?:the(?! (?:weekend|morning|afternoon|evening|night|holidays?|break)\b(?!'s))|we|our|they|its|their|v?\d+\.\d|[a-z]+ (?:was|were) (?:added|moved|upgraded|changed|enabled|switched))|after (?:the|we|our|each|every|upgrading|switching|moving|adding|enabling|updating)|, so (?:the|any|every|we|users?|customers?|anything|nothing)|which (?:means|makes|causes|breaks))\b/i;

/** What ends it: a fix, a workaround, a change that made it go away. */
const ENDS_IT =
  /\b(?:(?:fixed|solved|cured|cleared|resolved|flattened|stopped) (?:it|this|that|them)\b|fix(?:ed|es)? (?:it|this|that|them|by)|the (?:fix|workaround|solution)|workaround|goes away|went away|stopped \w+ing (?:once|after|when)|we now|now we|by (?:setting|adding|pinning|raising|lowering|splitting|moving|turning|sending|cutting))\b/i;

/** When it happens, said as a recurrence or a frequency: "whenever", "every deploy", "far more often", "runs nightly". */
const RECURRENCE =
  /\b(?:whenever|every ?time|each time|every \w+|always|(?:more |less |fairly |quite )?often|frequently|regularly|usually|sometimes|occasionally|intermittently|randomly|(?:nightly|daily|weekly|hourly|monthly)(?!\s+[a-z])|(?:on|for|with) (?:every|all|any))\b/i;

/**
 * When it happens, said as a class of cases that stands: "over 10 MB", "for Outlook users", "when
 * the user has no avatar", "under load". "when I open ..." is the speaker meeting it once, not a
 * condition (MET_BY_ME).
 */
const CASES =
  /\b(?:only (?:when|if|on|for|after|under|with)|(?:when|if|once|while|until) (?:the|a|an|any|more|there|two|both|its|their|users?|customers?|people|[a-z]+s\b)|under (?:load|heavy|async|heat|pressure|contention)|during (?:peak|deploys?|backups?)|(?:over|above|more than|beyond|below|under|past) \d[\d,.]*\s*(?:[kmgt]i?b|ms|s|sec|seconds?|mins?|minutes?|hours?|%|v|users?|rows?|items?|requests?|connections?|files?|pages?))\b/i;

/** A rule drawn from it: what to do or never do about it. */
const RULE = /\b(?:don't|do not|never|make sure|must)\b|\bignore (?:it|them)\b/i;

/**
 * One spell of time near now: "since about 11", "since lunch", "since the weekend", "all
 * afternoon", "today". A recurrence inside it ("every create call since lunch") is the one trouble
 * met many times, not a condition that stands.
 */
const SPELL =
  /\b(?:since (?:about |around |roughly |like )?(?:\d{1,2}(?::\d{2})?(?:\s*[ap]m)?(?!\.\d)|lunch(?:time)?|noon|midnight|breakfast|this (?:morning|afternoon|evening)|yesterday|last night|earlier(?: today)?|the weekend(?!'s)|(?:mon|tues|wednes|thurs|fri|satur|sun)day(?!'s))|all (?:morning|afternoon|day|evening|night)(?: long)?|(?<!\bevery |\beach |\beffective |\bfrom |\bas of |\bstarting |\buntil |\btill )(?:today|tonight)(?!'s)|for the (?:last|past) (?:few |couple of |\d+ )?(?:hours?|minutes?|mins?))\b/i;
/** A spell that is the day itself, not a state since a moment: "today", "all afternoon", "this morning". */
const THIS_SPELL = /\b(?:all (?:morning|afternoon|day|evening|night)(?: long)?|(?<!\bevery |\beach |\beffective |\bfrom |\bas of |\bsince |\bstarting |\buntil |\btill )(?:today|tonight|this (?:morning|afternoon|evening))(?!'s))\b/i;
/** A pause told with its end: "sync paused for the night, resuming at 6", "the feed is down, back up on Monday". */
const PAUSED_TILL = /\b(?:paused|suspended|on hold|stopped|offline|down)\b[^.;]{0,40}?\b(?:resum(?:ing|es)|back (?:up|online|on)|restart(?:ing|s))\s+(?:at|on|in|after|tomorrow|tonight|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b/i;
/**
 * A statement of how things are, told of one spell near now: a recurrence inside a spell ("every
 * query since the weekend"), a pause with its end ("paused for the night, resuming at 6") or the
 * day itself ("each checkout is taking 20 seconds today"). The
 * spell's shape, else null.
 */
export function spellShape(s: string): string | null {
  if (RECURRENCE.test(s) && SPELL.test(s)) return "recurring within one spell";
  if (PAUSED_TILL.test(s)) return "paused, with its end told";
  // "now talks to NATS instead of Redis, cut over this morning": a change made then that holds now;
  // "fans are on manual for now" is the spell's stopgap, not a state that holds
  return THIS_SPELL.test(s) && !/(?<!\bfor )\bnow\b/i.test(s) ? "told of one spell" : null;
}
/** A recurrence that stands: not one bounded by a spell near now. */
const standingRecurrence = (s: string) => RECURRENCE.test(s) && !SPELL.test(s);

/** Whether a sentence carries a lesson: a cause, a fix, a standing condition or a rule. */
/** (A standing failure's own condition, "for files saved in Latin-1", is a class of cases too: standing-failure.ts.) */
export const statesLesson = (s: string) => CAUSE.test(s) || ENDS_IT.test(s) || standingRecurrence(s) || CASES.test(s) || RULE.test(s) || (standingFailure(s) !== null && !SPELL.test(s));
/** A lesson that holds past a frame of time or a request: a cause, a fix, a recurrence, a rule (a class of cases may only describe the one trouble). */
const lessonBeyondCases = (s: string) => CAUSE.test(s) || ENDS_IT.test(s) || standingRecurrence(s) || RULE.test(s);

/** Work asked for on the trouble, in the imperative: "Fix the crash on the settings screen when ...", "please look into why ...". */
const WORK_ASKED = /^(?:(?:please|pls|can you|could you)\s+)?(?:fix|debug|investigate|look into|find out why|figure out why|track down|reproduce|repro|triage|diagnose|sort out|check why)\b/i;

/** Trouble told ahead, for a spell: "the API will be slow for a bit", "will be read-only on Saturday". */
const FORECAST = /\b(?:will|'ll|is going to|are going to|may|might)\s+(?:(?:probably|likely|still)\s+)?(?:be|go|stay|run)\s+(?:(?:a bit|very|quite|really)\s+)?(?:slow|down|offline|unavailable|read-only|degraded|flaky|out|late|laggy|unstable)\b/i;

/** Trouble told in a frame of time that has passed, with nothing said of now: "Last year the checkout crashed every Black Friday". */
const PAST_FRAME = /\b(?:last (?:year|month|spring|summer|autumn|fall|winter|quarter)|back in|in (?:19|20)\d\d|(?:years?|months?) ago|in the (?:old|early) days)\b/i;
const NOW_TOO = /\b(?:now|still|these days|since then|ever since|anymore|any more|no longer|to this day|today)\b/i;


/** The trouble under way or as a state of the moment: "is failing", "are timing out", "still down", "broke again". */
const UNDER_WAY =
  /^(?:still\s+)?(?:blocked|waiting|stuck) (?:on|for|behind)\b|\b(?:(?:while|until) (?:we|i|someone|they) (?:look|dig|investigate|debug|figure|check)|(?:(?:is|are|am|'m) (?:still )?(?:blocked|waiting) (?:on|for))|(?:is|are|'s|'re|am|has been|have been)\s+(?:still\s+|now\s+|currently\s+|also\s+|just\s+)?(?:failing|timing out|crashing|hanging|erroring|throwing|breaking|flaking|stuck|down|offline|red|being \w+|acting up|misbehaving|not (?:working|loading|responding|starting|opening))|still (?:failing|broken|down|red|flaky|stuck|seeing|getting|happening|off)|again)\b/i;

/**
 * One occurrence told in the past: "the export failed with a 413", "the dashboard went blank", "it
 * ran out of disk". An intransitive use only: "20.12 broke our addon" names a cause, "crashed runs" a kind.
 */
const ONE_OCCURRENCE =
  /\b(?:(?:failed|crashed|broke|died|hung|errored|timed out)(?=\s*(?:[.,;:!]|$)|\s+(?:with|at|on|in|during|for|again|twice|when|while|and|but|overnight|last|this|yesterday|today)\b)|went (?:down|blank|red|offline|dark)|fell over|blew up|ran out of|stopped (?:working|responding))/i;

/** One individual named by its number: "pipeline #8812", "patient 4471", "build-07", "car HH-CS 2291". */
const ONE_INDIVIDUAL =
  /(?:^|\s)#\d+\b|\b[a-z]+(?:-[a-z]+)*-\d{1,4}\b|\b(?:patient|car|truck|unit|build|pipeline|job|run|ticket|order|match|episode|pod|host|server|station|customer|account|case|incident|batch|invoice|device|board|worker|runner|attempt|pairing)\s+#?\d+\b/i;

/** One moment: a clock time or a time near now (not a schedule's "02:00 UTC"; "since this morning" is a state that holds, as passing-talk.ts's STANDING reads it). */
const MOMENT =
  /\b(?:\d{1,2}:\d{2}\b(?!\s*(?:utc|gmt|cet|cest|pst|pdt|est|edt|local)\b)|right now|at the moment|tonight|(?<!since )this (?:morning|afternoon|evening)|an? (?:hour|minute|few minutes) ago|just now)\b/i;

/**
 * The speaker's own act or setup meeting the trouble: "when I open", "for me", "on my laptop". ("I'm
 * getting a segfault when loading the native module" relays a symptom that may well stand: the
 * project's seed keeps it a problem.)
 */
const MET_BY_ME = /\b(?:when|as soon as|if|after|whenever) i\s|\bfor me\b|\bon my\b/i;

/** Help asked for, in the sentence: "any idea", "what am I missing", "help,". */
const HELP = /\b(?:any (?:idea|ideas|clue|thoughts?)|what am i (?:missing|doing wrong)|(?:can|could|would) (?:you|someone|somebody) (?:look|check|figure|help|see|tell)|please (?:look|check|help|figure)|^help\b)/i;

/** A tool's count of its own results: "2 tests failed out of 12", "48 tests, 1 failure", "83% tests passed", "Test 3 failed:". */
const TOOL_COUNT = /\b\d+\s+(?:tests?|specs?|examples?|checks?|cases?)\s*,\s*\d+\s+(?:failures?|failed|errors?)\b|\bfailed out of \d+|\b\d+%\s+(?:of\s+)?tests? passed|^\W*test\s+#?\d+\s*(?::|failed)|\*{3}\s*failed/i;

/** Pointing at a paste: "see below", "this:", "the following". */
const POINTS_AT_PASTE = /\b(?:see (?:below|above|attached|the (?:log|logs|output|trace))|below|as follows|the following|here(?:'s| is) the)\b|\bthis\s*:?\s*$/i;

/** Which shape of a report a sentence has, if any. */
export function reportShape(s: string): string | null {
  if (TOOL_COUNT.test(s)) return "a tool's count";
  if (RECURRENCE.test(s) && SPELL.test(s)) return "recurring within one spell";
  if (HELP.test(s)) return "a request for help";
  if (MET_BY_ME.test(s)) return "met by the speaker";
  if (ONE_INDIVIDUAL.test(s)) return "one individual";
  if (MOMENT.test(s)) return "one moment";
  if (UNDER_WAY.test(s)) return "under way";
  if (ONE_OCCURRENCE.test(s)) return "one occurrence";
  if (POINTS_AT_PASTE.test(s)) return "points at a paste";
  return null;
}

/**
 * Why a problem is a report of trouble rather than a lesson, or null. `s` is one sentence, quotes
 * and spaces normalised; `message` the prose of the whole message. Work asked for, a time that
 * passed and a forecast are read on the sentence itself (a class of cases there only describes the
 * one trouble); any other report's shape is a report unless some sentence of the message states a
 * lesson ("The kiosk tests went red again. Same cause as always: the firmware renamed the id.").
 * `pastedShare`: a problem said beside this much pasted output must state a lesson too.
 */
export function troubleReport(s: string, message: string, pastedShare = 0): string | null {
  if (WORK_ASKED.test(s) && !CAUSE.test(s)) return "work asked for";
  if (PAST_FRAME.test(s) && !NOW_TOO.test(s)) return "told of a time that passed";
  if (FORECAST.test(s) && !lessonBeyondCases(s)) return "told ahead, for a spell";
  const shape = reportShape(s) ?? (pastedShare >= SOME_PASTED ? "beside pasted output" : null);
  return shape && !lessonSaid(message) ? shape : null;
}

/** Whether a line of the message in a person's words states a lesson: a tool's line ("Test 3 failed: values differ after restoring state") is not theirs. */
const lessonSaid = (message: string) => message.split("\n").some((line) => !TOOL_COUNT.test(line) && statesLesson(line));

/** The share of a message set aside as pasted above which a problem said beside it must state a lesson to be kept. */
const SOME_PASTED = 0.2;
