// Guards for talk that belongs to one session, one run or one meeting's progress, not to the
// project: a task handed to an agent "for this session only", a status list under a "## Status"
// heading, a test run's summary, a brainstorm ("## What if ... (just brainstorming)"), a greeting
// with a rule word in it ("happy friday, no new blockers"), options still being weighed, a failed
// run being re-run. Each looks like a decision, a preference or a problem by its words; what sets
// it apart is a marker of the occasion, in the sentence or in the message around it. A choice said
// in so many words ("we decided", "going forward") is never undone by them.

/** A choice said in so many words. */
const CHOSEN = /\b(?:decided|agreed|settled on|going forward|from now on|from here on|always|never|our (?:rule|policy|convention) is)\b/i;

/** A message that says it is for one session or run, or only an idea ("(just brainstorming)"). */
const ONE_SESSION_MESSAGE =
  /^(?:for|in) this (?:task|session|run|chat)\b|\b(?:for this (?:session|run|task|chat) only|(?:notes|instructions) for this (?:run|session)|(?:long )?instructions (?:for )?today|just brainstorming|only brainstorming|thinking out loud)\b|(?:^|\n)\s*#{1,6}\s*(?:what if|ideas|brainstorm(?:ing)?)\b/i;

/** A message that hands on a draft or a proposal not adopted: "From the style guide draft (not adopted yet): ...". */
const NOT_ADOPTED = /\((?:[^)]*\b)?(?:not (?:yet )?(?:adopted|approved|agreed|final|decided|ratified)(?: yet)?|draft|proposal|proposed)\)/i;

/**
 * A report's list under its heading: "Weekly lab update: the new freezer arrived, two samples failed
 * QC, ...", "INC-225 timeline: 14:02 ..., 14:05 ...", "Escalation summary for the week: 14 tickets,
 * ...". Two or more commas after the heading; nothing chosen nor standing said in it.
 */
const REPORT_LIST = /^(?:[\w&-]+\s+){0,3}(?:update|recap|summary|notes|timeline|report|minutes|highlights)(?:\s+(?:for|from|of)\s+(?:the\s+|this\s+|last\s+)?[\w-]+(?:\s+[\w-]+)?)?\s*:(?:[^,;]*[,;]){2}/i;
const STANDS = /\b(?:decid|decision|agreed|settled on|chose|chosen|choose|picked|going with|go with|went with|switch|migrat(?!ions?\b)|mov(?:e|ed|ing) (?:to|from)|adopt|standardi[sz]|going forward|from now on|for the record|always|never|every time|whenever|(?:we|we're|we are) (?:keep|keeping|stay|staying|sticking)|(?:our|the) (?:rule|policy|convention) is|rule:|policy:|convention:)/i;
export const reportList = (s: string) => REPORT_LIST.test(s) && !STANDS.test(s);

/** A status list: "## Status" / "Status:" heading a message, or a progress count ("pass 2 of 3 done", "so far"). */
const STATUS_MESSAGE = /(?:^|\n)\s*(?:#{1,6}\s*(?:status|progress|standup|stand-up)\b|(?:status|progress)\s*(?:update)?\s*:)/i;
const PROGRESS = /\b(?:(?:pass|step|phase|batch|round|run) \d+ of \d+|\d+ of \d+ (?:done|complete|completed|finished)|so far\b(?!,? so good)|still on (?:step|stage|phase|batch) \d+|(?:proceeded|progressed|going|gone) (?:broadly |largely |mostly )?(?:to|according to) plan)/i;

/** A standup's report: what was done yesterday, then what is on today. */
const STANDUP_PAIR = /(?:^|[:,;.]\s*)yesterday\b[^.;]{0,80}?[,;]\s*(?:and\s+)?today\b/i;

/** A moment just past or now: "about an hour ago", "at the moment". */
const JUST_NOW = /\b(?:(?:about |around |roughly )?(?:an?|a few|a couple of|\d+|two|three|five|ten|twenty) (?:minutes?|hours?) ago|at the moment|right now)\b/i;

/** A test run's summary pasted with a line of the speaker's ("Suites: 48 passed, 2 failed"). */
const TEST_SUMMARY = /\b\d+ passed,\s*\d+ failed\b|\b\d+ failed,\s*\d+ passed\b|\b\d+ tests? pass(?:es|ed)?,? and \d+ fail(?:s|ed)?\b/i;
/** A labelled line of test results: "Failed: refund_partial, refund_full". */
const RESULT_LINE = /^(?:failed|failing|failures|errors|passed|skipped|flaky)\s*:\s*\S/i;

/** A greeting opening a short sentence: small talk even with a rule word after it. */
const GREETING = /^(?:happy (?:monday|tuesday|wednesday|thursday|friday|weekend|holidays|new year)|good (?:morning|afternoon|evening)|(?:hi|hey|hello|morning|evening) (?:all|everyone|team|folks|y'all))\b/i;

/** Options still being weighed: nothing chosen. */
const WEIGHING =
  /\b(?:no (?:choice|decision) (?:made|taken|yet)|(?:is|are|am|presently|currently|still) (?:evaluating|weighing|comparing|trialling|trialing)\b|a recommendation will follow)/i;

/** A run that failed and is being run again: trouble of one occasion, whatever its cause. */
const RERUN = /(?:[,;]|\s[-—–])\s*(?:re-?running|retrying|re-?triggering|restarting)(?:\s+(?:it|now|the job|the build))?\s*[.!]?$|\b(?:on|in) this (?:pr|mr|pull request)\b.*\bfailed\b/i;

/** The message's own markers, read once per message (the guards ask for each sentence of it). */
let lastMessage: string | null = null;
let lastMarks = { oneSession: false, status: false, testSummary: false, notAdopted: false };
function marksOf(message: string) {
  if (message !== lastMessage) {
    lastMessage = message;
    lastMarks = { oneSession: ONE_SESSION_MESSAGE.test(message), status: STATUS_MESSAGE.test(message), testSummary: TEST_SUMMARY.test(message), notAdopted: NOT_ADOPTED.test(message) };
  }
  return lastMarks;
}

/**
 * Why a capture the rules made of `sentence` (one sentence, quotes and spaces normalised) is talk
 * of one session, run or meeting, given the whole `message`; null when it is not.
 */
export function sessionTalk(sentence: string, message: string, type: string): string | null {
  if (CHOSEN.test(sentence)) return null;
  // short: a long sentence after "morning all —" carries the news ("... we're keeping MySQL for billing")
  if (GREETING.test(sentence) && sentence.split(/\s+/).length <= 12) return "small talk";
  if (WEIGHING.test(sentence)) return "not decided yet";
  // "Standup: yesterday the invoices API, today the webhooks": a day's report, whatever it names
  if (STANDUP_PAIR.test(sentence)) return "a status line, not a problem to keep";
  if (reportList(sentence)) return "a report's list, not a choice";
  const marks = marksOf(message);
  if (marks.oneSession) return "a one-off task or idea, for this session only";
  if (marks.notAdopted) return "a draft or proposal, not adopted";
  if (type !== "problem") return null;
  if (marks.status || PROGRESS.test(sentence) || JUST_NOW.test(sentence)) return "a status line, not a problem to keep";
  if (RESULT_LINE.test(sentence) || marks.testSummary) return "pasted test output";
  if (RERUN.test(sentence)) return "a one-off or passing trouble, not a standing one";
  return null;
}

/** Steps of a task handed to an agent ("Step 1: read src/billing", "After that, run the tests"), or a promise to do a thing soon. */
const TASK_STEP = /^(?:step \d+\s*[:.]|first,|then,? |after that,|next,|finally,|report back\b)|\b(?:i shall|i will|i'll|we shall|we will|we'll) (?:circulate|send|share|follow up|get back|post)\b/i;

/** For a sentence the learned model would add: talk of one session, or a step of a task handed over. */
export const sessionTalkForModel = (sentence: string, message: string) => !CHOSEN.test(sentence) && (TASK_STEP.test(sentence) || WEIGHING.test(sentence) || PROGRESS.test(sentence) || JUST_NOW.test(sentence) || reportList(sentence) || marksOf(message).oneSession || marksOf(message).notAdopted);

/** "remember that ...", "Meeting outcome: ...": said so it is kept, whatever else its words look like (another's "their", a "day off"). */
export const saidToKeep = (s: string) => /^(?:please\s+)?remember(?: that|:)\s|^(?:meeting )?outcome\s*:|^(?:we )?agreed\s*:/i.test(s);
