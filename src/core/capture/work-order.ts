// A request for work said as something other than a bare imperative (branch capture26, from its
// tuning batch tune26): "we need to bump the Go toolchain to 1.23", "we have to migrate the queue
// to SQS by Friday", "let's bump Kotlin to 2.0 today", "I'd like the Rails app upgraded by end of
// week", "Action item for you: convert the routers". Each names a change to make once: a task for
// now, not how the team works. What keeps a sentence of the same verbs a standing choice is a
// marker of a habit or a verdict ("we bump dependencies every Monday", "from now on pin React at
// 18.2", "decided: we're migrating to SQS"), checked first.

/** A habit, a rule or a verdict: the sentence says how things are done from now on. */
const STANDING =
  /\b(?:always|never|every|each|whenever|from now on|going forward|by default|as a rule|(?:all|any) new|at a time|no exceptions?|decided|agreed|settled|final|rule|policy|convention|standard|anymore|any more|no longer|from (?:today|this \w+) on)\b/i;

/** A change made once to the code or the setup. */
const ONE_TIME_VERB =
  "(?:bump|upgrade|downgrade|migrate|move|switch|port|rename|add|fix|write|rewrite|replace|convert|remove|delete|drop|install|uninstall|create|implement|refactor|set up|introduce|enable|disable|patch|roll back|revert|clean up|split|deploy|ship|get)";

/** An obligation, said by the one who will do the work: "we need to", "I have to", "gotta", "you must". */
const OBLIGATION = new RegExp(
  `^(?:(?:so|ok|okay|alright|right|now|first|then|also|and)[,]?\\s+)*(?:(?:we|i|you|u)\\s+)?(?:(?:really|still|also|first|just)\\s+)?(?:need|needs|have|has|must|gotta|got to|'ve got to|ought)\\s+(?:to\\s+)?(?:(?:also|first|quickly|finally|still|just)\\s+)?${ONE_TIME_VERB}\\b`,
  "i",
);

/** A time of one occasion or a deadline: the change is due once. */
const DUE =
  /\b(?:today|tonight|tomorrow|right now|now|asap|this (?:morning|afternoon|evening|week|weekend|sprint)|by (?:(?:the )?end of (?:the )?(?:day|week|month|sprint|quarter)|eod|eow|(?:next )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|tomorrow|tonight|next week|the (?:demo|release|launch|deadline|freeze|weekend))|before (?:the )?(?:demo|release|launch|deploy|freeze|lunch|standup|meeting|weekend|cutover|migration|license change)\b|for the demo)\b/i;

/** "let's bump Kotlin to 2.0 today": a proposal to do a change now. */
const LETS = new RegExp(`^(?:(?:so|ok|okay|alright|right|now)[,]?\\s+)*let(?:'s| us)\\s+(?:(?:just|first|quickly|also)\\s+)?${ONE_TIME_VERB}\\b`, "i");

/**
 * Asking the assistant for a change in a wish: "I'd like you to switch", "need you to move", "would
 * be great if you could add", "I'd like X upgraded". ("I'd like you to run the linter before saying
 * it's done" asks for a habit: no change verb, no task.)
 */
const WISH_TO_YOU = new RegExp(
  `^(?:(?:i|we)(?:'d| would)\\s+(?:like|love|prefer)\\s+(?:(?:it\\s+)?if\\s+)?you\\s+(?:to|could|would)|(?:i\\s+|we\\s+)?need\\s+you\\s+to|(?:it\\s+)?would\\s+be\\s+(?:great|nice|awesome|good|cool)\\s+if\\s+you\\s+(?:could|would|can))\\s+(?:(?:please|also|first|quickly)\\s+)?${ONE_TIME_VERB}\\b|^(?:i|we)(?:'d| would)\\s+like\\s+(?:the|our|this|that)\\s+(?:[\\w.+#-]+\\s+){1,4}?(?:[a-z]+ed|done|finished|fixed|gone)\\b`,
  "i",
);

/** A heading that assigns a task: "TODO:", "Task:", "Action item for you:", "Your job for today:", "OPS-221:". */
const TASK_HEADING = new RegExp(
  `^(?:todo|to-do|task|next step|next up|action item|follow-?up|your (?:job|task)|[A-Z][A-Z0-9]{1,9}-\\d+)(?:\\s+for\\s+(?:you|today|me|now))?\\s*:\\s*(?:please\\s+)?${ONE_TIME_VERB}\\b`,
  "i",
);

/** Where to work, scoped to the task at hand: "only touch the files under src/billing for now", "leave the tests alone for this PR". */
const SCOPED_TO_NOW =
  /^(?:please\s+)?(?:(?:only|just)\s+)?(?:touch|leave|skip|ignore|edit|change|work on|stick to|stay in|focus on|limit (?:yourself|it|changes) to)\b[^.;]*\bfor (?:now|the moment|this (?:task|change|pr|ticket|session|one))\b/i;

/**
 * Looking into a change, not choosing it: a verb of intent ("want to", "plan to", "going to",
 * "will") over a verb of finding out ("explore", "look into", "try out", "check whether"). The
 * mood is the speaker's aim, whoever speaks: "Next sprint I want to explore moving the models to
 * R", "we're planning to look into moving the cron jobs to Temporal".
 */
const EXPLORING =
  /\b(?:want|wants|wanted|plan|plans|planning|intend|intends|hope|hoping|aim|aiming|going|gonna|'d like|would like|will|'ll|need|needs)\s+(?:to\s+)?(?:(?:first|also|quickly|properly|finally|maybe)\s+)?(?:explore|look into|looking into|investigate|evaluate|assess|research|experiment with|spike on|spike|prototype|play (?:around )?with|dig into|try out|test out|check (?:whether|if|out)|see (?:whether|if)|figure out (?:whether|if))\b/i;

/** A near time of one occasion: the plan is for then ("from today" starts a rule). */
const NEAR_TIME =
  /(?<!\b(?:from|as of|starting|since|until) )\b(?:today|tonight|tomorrow|later (?:today|on|this (?:morning|afternoon|evening|week))|this (?:morning|afternoon|evening|weekend|week|sprint)|next (?:week|sprint|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:an?|a few|a couple of|\d+|two|three) (?:minutes?|hours?|days?))\b/i;

/**
 * The speaker's own work of a near time, said as it is planned: a clause led by "I'm <doing>",
 * "I'll", "I plan to", "going to", with a near time ("I'm moving the session keys over this
 * afternoon", "Tomorrow I'll swap Leaflet for MapLibre"). A person's plan for the day is no team
 * choice; "we" is left out (a team's "we're moving X to Y at the end of the month" is one).
 */
const MY_NEAR_WORK =
  /(?:^|[;:,]\s*|\b(?:today|tonight|tomorrow|later|week|sprint|afternoon|evening|morning|weekend|monday|tuesday|wednesday|thursday|friday)\s*,?\s+)(?:so\s+|and\s+|then\s+)?(?:i'm|im|i am|i'll|i will|i plan to|i'm planning to|i am planning to|i want to|i'd like to|i intend to|i'm going to|i am going to|going to|gonna|planning to)\s+\w/i;

/** The speaker's plan: finding out about a change, or their own work of a near time. */
export const myPlan = (s: string): boolean => !STANDING.test(s) && (EXPLORING.test(s) || (NEAR_TIME.test(s) && MY_NEAR_WORK.test(s)));

/** A search through things asked for: "Go through the sim configs and list any over 160". */
const SEARCH_THROUGH = /^(?:(?:please|ok|okay|so|now)[,]?\s+)*(?:(?:can|could|would) you\s+)?(?:go|look|dig|comb|read|search|scan) through\s+(?:the|our|all|every|each|this|these|those|my)\b/i;

/**
 * Why a sentence is a task to do rather than a standing choice, or null. `trouble`: the rules read
 * it as a problem or a fix ("I have to rewrite the export job this week, the Python one is too
 * slow"): only a task asked for or one with its due date says the trouble is the task's reason.
 */
export function workOrder(s: string, trouble = false): string | null {
  if (STANDING.test(s)) return null;
  if (WISH_TO_YOU.test(s)) return "a request to the assistant, said as a wish";
  if (TASK_HEADING.test(s)) return "a request: a task under a heading";
  if (SCOPED_TO_NOW.test(s)) return "a request: where to work, for the task at hand";
  if (SEARCH_THROUGH.test(s)) return "a request: a search through things, for the task at hand";
  if (myPlan(s)) return "the speaker's plan: looking into a change, or their own work of a near time";
  const due = DUE.test(s);
  if (OBLIGATION.test(s) && (due || !trouble)) return "a task to do, not a standing choice";
  if (LETS.test(s) && due) return "a task to do now, not a standing choice";
  return null;
}
