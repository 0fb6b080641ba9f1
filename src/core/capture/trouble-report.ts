// Whether a problem is worth keeping for a later session, read from the shape of what is said
// rather than from its subject. A problem teaches something when a clause of it carries a cause
// ("because", "turned out", "since the upgrade"), what ends it (a fix, a workaround), when it
// happens (a condition that stands: "whenever", "over 10 MB", "when users ..."), or a rule drawn
// from it. A report of trouble as it is met teaches nothing a later session can use: the trouble
// under way ("is failing", "still", "again"), one individual by its number ("pipeline #8812",
// "build-07"), one moment ("at 14:05", "right now"), the speaker meeting it ("when I open", "for
// me"), a request for help, a tool's count of its own results, or a pointer at a paste. A problem
// said in a report's shape with no clause of a lesson is a report; a problem said plainly in the
// present ("uploads over 100 MB fail on Android") is a standing condition and stays a problem.

/** A cause: why the trouble happens (not "since 10 min": a time, not a change). */
const CAUSE =
  /\b(?:because|due to|caused by|root cause|turn(?:ed|s) out|c(?:ame|omes?) from|traced (?:it |this |them )?(?:back )?to|the (?:reason|cause|culprit) (?:is|was)|same cause|since (?:the|we|our|they|its|their|v?\d+\.\d|[a-z]+ (?:was|were) (?:added|moved|upgraded|changed|enabled|switched))|after (?:the|we|our|each|every|upgrading|switching|moving|adding|enabling|updating)|, so (?:the|any|every|we|users?|customers?|anything|nothing)|which (?:means|makes|causes|breaks))\b/i;

/** What ends it: a fix, a workaround, a change that made it go away. */
const ENDS_IT =
  /\b(?:(?:fixed|solved|cured|cleared|resolved|flattened|stopped) (?:it|this|that|them)\b|fix(?:ed|es)? (?:it|this|that|them|by)|the (?:fix|workaround|solution)|workaround|goes away|went away|stopped \w+ing (?:once|after|when)|we now|now we|by (?:setting|adding|pinning|raising|lowering|splitting|moving|turning|sending|cutting))\b/i;

/**
 * When it happens, said as a condition that stands: a recurrence, a class of cases ("over 10 MB",
 * "for Outlook users", "when the user has no avatar"), a load, a frequency ("nightly", "far more often"). "when I open ..." is
 * the speaker meeting it once, not a condition (MET_BY_ME).
 */
const CONDITION =
  /\b(?:whenever|every ?time|each time|every \w+|always|only (?:when|if|on|for|after|under|with)|(?:when|if|once|while|until) (?:the|a|an|any|more|there|two|both|its|their|users?|customers?|people|[a-z]+s\b)|under (?:load|heavy|async|heat|pressure|contention)|(?:more |less |fairly |quite )?often|frequently|regularly|usually|sometimes|occasionally|intermittently|randomly|(?:nightly|daily|weekly|hourly|monthly)(?!\s+[a-z])|during (?:peak|deploys?|backups?)|(?:on|for|with) (?:every|all|any)|(?:over|above|more than|beyond|below|under|past) \d[\d,.]*\s*(?:[kmgt]i?b|ms|s|sec|seconds?|mins?|minutes?|hours?|%|v|users?|rows?|items?|requests?|connections?|files?|pages?))\b/i;

/** A rule drawn from it: what to do or never do about it. */
const RULE = /\b(?:don't|do not|never|make sure|must)\b|\bignore (?:it|them)\b/i;

/** Whether a sentence carries a lesson: a cause, a fix, a standing condition or a rule. */
export const statesLesson = (s: string) => CAUSE.test(s) || ENDS_IT.test(s) || CONDITION.test(s) || RULE.test(s);

/** The trouble under way or as a state of the moment: "is failing", "are timing out", "still down", "broke again". */
const UNDER_WAY =
  /\b(?:(?:is|are|'s|'re|am)\s+(?:still\s+|now\s+|currently\s+|also\s+|just\s+)?(?:failing|timing out|crashing|hanging|erroring|throwing|breaking|flaking|stuck|down|offline|red|being \w+|acting up|misbehaving|not (?:working|loading|responding|starting|opening))|still (?:failing|broken|down|red|flaky|stuck|seeing|getting|happening|off)|again)\b/i;

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

/** The speaker meeting the trouble: "when I open", "for me", "I'm getting", "I see". */
const MET_BY_ME = /\b(?:when|as soon as|if|after|whenever) i\s|\bfor me\b|\bi(?:'m| am)? (?:keep )?(?:getting|seeing|hitting)\b|\bi (?:get|see|hit|got|saw)\b|\bon my\b/i;

/** Help asked for, in the sentence: "any idea", "what am I missing", "help,". */
const HELP = /\b(?:any (?:idea|ideas|clue|thoughts?)|what am i (?:missing|doing wrong)|(?:can|could|would) (?:you|someone|somebody) (?:look|check|figure|help|see|tell)|please (?:look|check|help|figure)|^help\b)/i;

/** A tool's count of its own results: "2 tests failed out of 12", "48 tests, 1 failure", "83% tests passed", "Test 3 failed:". */
const TOOL_COUNT = /\b\d+\s+(?:tests?|specs?|examples?|checks?|cases?)\s*,\s*\d+\s+(?:failures?|failed|errors?)\b|\bfailed out of \d+|\b\d+%\s+(?:of\s+)?tests? passed|^\W*test\s+#?\d+\s*(?::|failed)|\*{3}\s*failed/i;

/** Pointing at a paste: "see below", "this:", "the following". */
const POINTS_AT_PASTE = /\b(?:see (?:below|above|attached|the (?:log|logs|output|trace))|below|as follows|the following|here(?:'s| is) the)\b|\bthis\s*:?\s*$/i;

/** Which shape of a report a sentence has, if any. */
export function reportShape(s: string): string | null {
  if (TOOL_COUNT.test(s)) return "a tool's count";
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
 * A problem said as a report of trouble met, with no lesson in it: not a problem to keep.
 * `s` is one sentence, quotes and spaces normalised.
 */
export function troubleReport(s: string): string | null {
  const shape = reportShape(s);
  return shape && !statesLesson(s) ? shape : null;
}
