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
 * Why a sentence is a task to do rather than a standing choice, or null. `trouble`: the rules read
 * it as a problem or a fix ("I have to rewrite the export job this week, the Python one is too
 * slow"): only a task asked for or one with its due date says the trouble is the task's reason.
 */
export function workOrder(s: string, trouble = false): string | null {
  if (STANDING.test(s)) return null;
  if (WISH_TO_YOU.test(s)) return "a request to the assistant, said as a wish";
  if (TASK_HEADING.test(s)) return "a request: a task under a heading";
  if (SCOPED_TO_NOW.test(s)) return "a request: where to work, for the task at hand";
  const due = DUE.test(s);
  if (OBLIGATION.test(s) && (due || !trouble)) return "a task to do, not a standing choice";
  if (LETS.test(s) && due) return "a task to do now, not a standing choice";
  return null;
}
