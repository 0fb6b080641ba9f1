// Sentences that carry a decision's or a problem's words but hand on something that is not the
// team's standing knowledge (branch capture18, from tune18's fresh voices): another's words relayed
// in quotes ("Ticket SUP-228 from a customer: 'Export to CSV button does nothing.'"), a tracker's
// event ("ENG-77 moved to Backlog by Sam"), a review's verdict alone ("Approved with comments.") or
// a reviewer's note on one change, a progress report ("hiring is on track", "40% done"), a request
// for the task in hand ("For this task, first show me the plan"), a login handed over in the clear,
// and a rollout's state at the moment ("The new runner image is rolled out to half the fleet").
// Checked, like not-ours.ts, only on a sentence the rules would keep and on one the learned model
// would add.

import { historyOnly } from "./passing-talk.ts";

/** Another's words in quotes, introduced by who or what said them: a customer, a ticket, the docs. */
const RELAYED_QUOTE =
  /\b(?:from (?:a|the|one|our|some) (?:customer|user|client)s?|(?:customer|user|client)s? (?:wrote|writes|said|says|asked|asks|reported|reports|complained)|(?:customer|user|client)(?:'s|s')? (?:email|message|mail|feedback|ticket|report|complaint|review|words)|(?:ticket|bug report|issue|support request)(?: [A-Z]+-\d+| #?\d+)?|docs?|documentation|readme|faq|changelog|manual|man page|spec|specification|rfc|handbook|style guide|guide)\b(?:[^:'"“‘]{0,60}:|\s+(?:says?|said|states?|reads?|warns?|mentions?)(?: that)?)\s*['"“‘]/i;

/** A quote, then a question about it after a dash: "'VACUUM FULL takes a lock' — is that why the app froze". */
const QUOTE_THEN_QUESTION = /['"”’]\s*(?:[—–]|--?)\s*(?:so\s+|but\s+)?(?:how|why|what|which|where|when|is|are|does|do|did|can|could|should|would|will|was|were)\b/i;

/** A quote's source named after it: "'Prefer fetch over axios' — that's from a blog". */
const SOURCE_AFTER = /\b(?:that's|that is|this is|it's)\s+(?:a quote\s+)?(?:from|quoted from)\s+(?:a|an|the|some|this)\s+(?:blog|article|post|talk|book|docs?|tweet|thread|video|podcast|newsletter|course)\b/i;

/** A tracker's event on one ticket: a key (ENG-77) with a move between states. */
const TICKET_KEY = /\b[A-Z][A-Z0-9]{1,9}-\d+\b/;
const STATE_MOVE =
  /\b(?:moved|marked|set|changed|closed|reopened|resolved|transitioned)\b.{0,20}?\b(?:to|as)\s+(?:backlog|done|in progress|in review|to ?do|won't fix|closed|resolved|blocked|triage|icebox|ready)\b|\b(?:assigned to|status:)|^(?:ticket\s+)?[A-Z][A-Z0-9]{1,9}-\d+:?\s+(?:picked up|grabbed|claimed|taken)\b/i;

/** A review's verdict opening a reviewer's notes: "LGTM overall, but `retryCount` should be a const". */
const REVIEW_OPENING = /^(?:lgtm|looks good(?: to me)?|approved|approving)\b[^.;:]{0,20}?,\s*(?:but|just|except|though|only|one|a few|some|minor)\b(?!.*\b(?:from now on|going forward|always|never)\b)/i;

/** A tracker's move said alone, with no ticket key: "Moved to QA.", "Marked as done". */
const MOVE_ALONE = /^(?:moved|marked|set|changed|closed|reopened|resolved|transitioned|sent back)\s+(?:to|as|back to)\s+(?:qa|backlog|done|in progress|in review|review|to ?do|won't fix|closed|resolved|blocked|triage|icebox|ready(?: for \w+)?)[.!]*$/i;

/** A meeting moved to another time or day, once: "Weekly sync moved to 3pm" ("... from now on" is a standing change). */
const MEETING_MOVED = /\b(?:sync|standup|stand-up|meeting|call|1:1|one-on-one|retro|demo|planning|review|all-hands|offsite)\s+(?:is\s+|has been\s+|got\s+)?(?:moved|pushed|rescheduled|shifted|bumped)\s+(?:back\s+)?(?:to|until|till)\b(?!.*\b(?:from now on|going forward|permanently|for good|every|always|each)\b)/i;

/** Asking oneself a question without its mark: "trying to figure out why the rule skipped the queue". */
const OPEN_QUESTION = /^(?:i'm\s+|i am\s+|im\s+|still\s+|just\s+)?(?:trying to|can't|cannot|couldn't|want to|need to)\s+(?:figure out|work out|understand|see|find out|tell)\s+(?:why|how|what|whether|if|where|when|which)\b|^(?:i'm\s+|i am\s+|just\s+)?(?:wondering|curious|confused|puzzled)\s+(?:why|how|what|whether|if|where|when|which)\b/i;

/** A review's verdict said alone: "Approved with comments.", "LGTM!". */
const REVIEW_VERDICT = /^(?:approved|lgtm|looks good(?: to me)?)(?: with (?:comments|nits|suggestions|minor (?:changes|comments)))?[.!]*$/i;

/** A review's verdict on a named thing: "Compliance sign-off on the KYC flow: approved with two copy changes.", "QA review of the signup flow: passed". */
const NAMED_VERDICT =
  /^(?:[\w-]+\s+){0,3}(?:review|sign-?off|approval|audit|check|walkthrough)\s+(?:of|on|for)\s+[^:]{1,60}:\s*(?:approved|rejected|passed|failed|accepted|declined|signed off|lgtm|ok\b|changes requested)/i;

/** A reviewer's note on one change: "left a couple of comments on your PR, mostly naming". */
const REVIEW_NOTE = /\bleft (?:a (?:couple of |few )?|some |two |three |\d+ )?(?:comments?|notes?|nits?|remarks?) on (?:your|the|his|her|their|this|that) (?:[\w-]+ ){0,2}?(?:pr|mr|diff|change|branch|pull request)\b/i;

/** A progress report: "hiring is on track, two offers out", "the planning doc is half written", "40% done". */
const PROGRESS = /\b(?:is|are|was|were) (?:on track|behind schedule|ahead of schedule|half (?:written|done|finished))\b|\b\d+ ?% (?:done|through|complete|finished)\b|\b(?:is|are) at 100 ?%|\bstill at \d+ ?%/i;

/** A request for the task in hand: "For this task, first show me the plan" ("for every task" is a rule). */
const THIS_TASK = /^for (?:this|the current|today's) (?:task|one|pr|change|ticket|session|conversation|bug|fix)\b/i;

/** A rollout's state at the moment: "installed on staging now", "rolled out to half the fleet". */
const ROLLOUT_HINT = /installed|deployed|rolled out|released|live|enabled|turned on/i;
const ROLLOUT_NOW =
  /\b(?:is|are|was|were|got|has been|have been)\s+(?:now\s+)?(?:installed|deployed|rolled out|released|live|enabled|turned on)\s+(?:on|in|to)\s+(?:(?:about|roughly|around)\s+)?(?:half|a third|a quarter|\d+ ?%|some|part|a few|[\w-]+\s+now\b)/i;

/** A login and its password handed over in the clear: "log into grafana with admin / Wint3r!2026". */
const LOGIN_PAIR = /\b(?:with|as|using|login|log in|creds?)\b[^.]{0,30}?\b[\w.@-]+\s*\/\s*(?=\S*[\d!@#$%^&*])(?=\S*[a-z])\S{6,}/i;

/** Why a sentence hands on what is not the team's standing knowledge, or null. Each pattern is searched only in a sentence holding a character or word it needs (these run on every sentence the rules keep). */
export function relayedTalk(s: string): string | null {
  const lower = s.toLowerCase();
  if (/\d/.test(s) && TICKET_KEY.test(s) && STATE_MOVE.test(s)) return "a tracker's event, not a choice";
  if (s.includes("/") && LOGIN_PAIR.test(s)) return "a credential handed over";
  if ((/['"“‘]/.test(s) && RELAYED_QUOTE.test(s)) || (lower.includes("from") && SOURCE_AFTER.test(s)) || QUOTE_THEN_QUESTION.test(s)) return "quoted: another's words relayed";
  if (historyOnly(s)) return "history, not how things are now";
  if (OPEN_QUESTION.test(s)) return "a question, without its mark";
  if (MOVE_ALONE.test(s)) return "a tracker's event, not a choice";
  if (MEETING_MOVED.test(s)) return "a meeting moved once, not a choice";
  if (REVIEW_VERDICT.test(s) || REVIEW_OPENING.test(s) || (s.includes(":") && NAMED_VERDICT.test(s)) || (lower.includes("left") && REVIEW_NOTE.test(s))) return "a review's verdict, not a choice";
  if ((s.includes("%") || lower.includes("on track") || lower.includes("schedule") || lower.includes("half")) && PROGRESS.test(s)) return "a progress report";
  if (THIS_TASK.test(s)) return "a request for the task in hand";
  if (ROLLOUT_HINT.test(s) && ROLLOUT_NOW.test(s)) return "a rollout's state at the moment";
  return null;
}
