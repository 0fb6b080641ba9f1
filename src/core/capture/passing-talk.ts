// Guards for what the rules' own cues store wrongly: trouble that happened once or has already
// passed ("the deploy failed once this morning but the retry went through"), a status line of
// work in hand ("I'm re-running it now"), and small talk said with a preference verb ("I always
// enjoy these demo days"). Each looks like a problem, a fix or a preference by its words; what
// sets it apart is a marker of one occasion, of a state that ended, or of a life outside the code.
// A standing marker ("every time", "whenever", "since version 4.2") keeps trouble a problem.

/** One occasion: a single time, a named moment that passed, a short spell, a mistake of the hand. */
const ONE_OCCASION =
  /\b(?:(?<!\bat )once(?!\s+(?:we|you|i|they|a|an|per|every|each|the|it's|it is|that|this|all)\b)|twice during|a few times (?:this|today|yesterday|last)|this (?:morning|afternoon|evening)(?:'s)?|(?<!\b(?:as of|from|starting|until) )today|last night|overnight|yesterday(?:'s)?|earlier today|over lunch|during the (?:audit|call|demo|meeting|standup|offsite)|(?:on|last) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|just now|by mistake|by accident|accidentally|revert(?:s|ed|ing)? (?:#\d+|pr #?\d+|commit [0-9a-f]{6,})|i spent (?:an?|the|half an?|(?:two|three|four|five|six|\d+)(?: more)?) (?:\w+ )?(?:minutes?|hours?|day|morning|afternoon|evening)|the (?:standup|meeting|call|sync|retro|review) ran (?:over|long|late))\b/i;

/** A short spell, counted only beside a verb in the past ("caches 404s for five minutes" is how it works). */
const SPELL = /\bfor (?:the whole (?:morning|afternoon|evening|night|day)|a bit|a moment|a minute|a few minutes|a couple of minutes|an hour|half an hour|(?:two|five|ten|twenty|thirty|\d+) minutes)\b/i;
const PAST = /\b(?:was|were|went|got|came|ran|had|[a-z]{3,}ed)\b/i;
/** A short spell ahead, said as a forecast ("queries may be slow for a few minutes", "will be down for an hour"). */
const AHEAD = /\b(?:may|might|will|could|would|should)\s+(?:(?:probably|likely|still)\s+)?(?:be|stay|remain|run|feel|look|lag)\b|'ll\s+(?:be|stay|lag)\b/i;

/** A state that ended or was put right by hand, on the spot. */
const ENDED =
  /\b(?:(?:it's|it is|all|everything's|everything is|things are|it was)\s+(?:fine|ok|okay|green|quiet|good|back|fixed(?=\s*(?:now\s*)?[.!]*$))(?:\s+again)?(?:\s+now)?|(?:fine|quiet|green|ok|okay) again|(?:it's|is|are) back (?:to|down|up|now)|(?:then |and )?recovered|came back|picked up again|(?:the )?(?:retry|rerun|re-run|second try|second attempt|next run)\s+(?:passed|worked|went through|succeeded)|but (?:it )?went through|rolled back now|(?:i|we|someone)\s+(?:restarted|rebooted|killed|unsealed|replayed|purged|cleared|reverted|renewed|re-?issued|unblocked|kicked (?:it|them) off)\s+(?:it|them|the|some|by)|restored from (?:a |the )?backup|(?:a|the) (?:hard refresh|clean install|restart|reboot|retry) fixed it|until the (?:deploy|release|rollout|job) finished)\b|,\s*(?:(?:it|all|everything)\s+)?(?:works|working|runs|running) (?:again|now|fine now)\s*[.!]*$/i;

/** Work in hand, said as it happens ("rolled back, still watching", "replica lag at 40s and climbing", "..., rerunning with 5 folds"). */
const IN_HAND =
  /\b(?:(?:i'm|im|i am|we're|we are|someone is|someone's)\s+(?:already\s+)?(?:re-?running|looking at|looking into|redeploying|rebasing|restarting|retrying|on it)\b|(?:i'll|i will) retry\b|for the moment|expect (?:slow|some|a few|delays)|still going|halfway through|(?:is|are) (?:still )?(?:draining|rebalancing|catching up))|\b(?:still|i'm|we're) (?:watching|monitoring)\b|\bkeeping an eye on\b|\band (?:still )?(?:climbing|rising|growing|dropping|falling)\b|^paging\b|(?:^|[,;]\s*)(?:now\s+)?(?:re-?running|re-?training|retrying|digging|reviewing (?:it|them|the \w+))\b[^,;.]*[.!]*$|\b(?:nobody|no one) has (?:looked|touched|checked|picked)\b/i;

/** My own machine or screen: trouble of one person's setup. */
const MY_SETUP = /\b(?:my (?:laptop|machine|screen|local|computer|wifi|setup|connection|run|branch|venv|pr|mr|pull request)|on my end|(?:hotel|office|conference) wifi|sorry (?:about that|if i'm|for the))\b/i;

/** Trouble of the office, not of the code: the printer, the coffee machine. */
const OFFICE_TROUBLE = /\b(?:the (?:office )?printer|coffee machine|the elevator|air ?con(?:ditioning)?)\b/i;

/** History: how things were, with nothing said of how they are now ("In 2021 we had a big outage"). */
const HISTORY = /\b(?:(?:back )?in (?:19|20)\d\d\b(?=.*\b(?:we|there|it|they)\s+(?:had|was|were|went|got|lost|did)\b)|\b(?:was|were)\b[^.;]{1,60}\buntil (?:19|20)\d\d\b|that's (?:where|how|why) (?:the |our )?[\w -]{1,40} came from|we used to|back (?:when|then|in the day)|when (?:we|i|the company|the team) (?:first )?(?:started|began|were (?:small|tiny|a startup|just starting(?: out)?))|in the (?:old|early) days|(?:years?|months?) ago)\b/i;
const NOW_TOO = /\b(?:now|today|these days|since then|anymore|any more|no longer|still|so we|so now|which is why)\b/i;

/** The speaker's own slip found as the cause: nothing of the project to keep ("turned out I was loading the wrong slot"). */
const OWN_SLIP = /\b(?:turned out (?:that )?i (?:was|had|forgot)|because i (?:forgot|had forgotten|didn't|did not)|i forgot to|my bad|my mistake|classic me|pebkac)\b/i;

/** Trouble that stands: it recurs, or holds since a change. */
const STANDING =
  /\b(?:every time|whenever|each time|always|every\s+\w+|(?:one|1) (?:\w+ )?in (?:\d+|two|three|four|five|ten)|since\s+(?!i\b)\w+|under (?:load|heavy)|for (?:every|all|any) (?:user|tenant|customer|request)|all (?:weekend|week|day|night|month)|on (?:mon|tues|wednes|thurs|fri|satur|sun)days|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday) (?:mornings|nights|evenings))\b/i;

/** A cause found or a change made to end the trouble: a problem and its fix to keep, however it ended. Not the speaker's own slip ("turned out I ...") nor a quick fix by hand ("I just lowered the batch"). */
export const LASTING_FIX =
  /\b(?:turned out(?! (?:i|that i|it was me)\b)|because (?!i\b|(?:someone|somebody|a colleague|an intern|one of us|a teammate)\b)|root cause|caused by|due to|the fix (?:was|is)|we now|(?<!\bi just )(?:pinn(?:ing|ed)|bump(?:ed|ing)|lower(?:ed|ing)|rais(?:ed|ing))|(?:until|after|once|when) we (?:added|set|changed|bumped|pinned|moved|switched|raised|lowered|upgraded|downgraded|enabled|disabled|turned))\b/i;

/** A choice said in so many words: never undone by a time marker ("yesterday we decided ..."). */
export const CHOICE_WORDS =
  /\b(?:decid|decision (?:is|was|there|here|stands|made)\b|decision:|agree|settl|switch|migrat(?!ions?\b)|mov(?:e|ed|ing) (?:to|from)|going with|go with|went with|chose|choose|from now on|going forward|adopt|standardi[sz]|policy|convention|rule is)/i;

/** A timeline: three clock times or more in one sentence ("14:02 alert fired, 14:05 acked, 14:11 rollback started"). */
const TIMELINE = /(?:\b\d{1,2}:\d{2}\b[^:]*?){3}/;

/** Redone by hand at the end of the sentence ("..., cleaned it and reran", "and rebooted"): the trouble of that one time. */
const REDONE_END = /(?:,|\band)\s*(?:(?:i|we)\s+)?(?:[a-z]+ed (?:it|them) and )?(?:re-?ran|re-?started|rebooted|re-?deployed|re-?triggered)(?: it| them)?\s*[.!]*$/i;

/** A choice made or changed, said with its verb (CHOICE_WORDS without the nouns "policy", "convention", "rule is"). */
const CHOICE_ACTS = /\b(?:decid|agree|settl|switch|migrat(?!ions?\b)|mov(?:e|ed|ing) (?:to|from)|going with|go with|went with|chose|choose|picked|from now on|going forward|adopt|standardi[sz])/i;

/** How things were, with nothing said of how they are now nor of a choice made: "we used to deploy on Thursdays before the freeze policy changed". */
export const historyOnly = (s: string) => HISTORY.test(s) && !NOW_TOO.test(s) && !CHOICE_ACTS.test(s);

/**
 * A report of trouble that happened once, has passed or is being handled now, with no marker of
 * it standing: not a problem (or a fix) to keep. `s` is one sentence, quotes and spaces normalised.
 */
export function passingTrouble(s: string): boolean {
  if (CHOICE_WORDS.test(s)) return false;
  // one person's own machine or slip, even when it recurs there ("every build on my machine")
  if (OWN_SLIP.test(s) || OFFICE_TROUBLE.test(s) || (HISTORY.test(s) && !NOW_TOO.test(s)) || (MY_SETUP.test(s) && !LASTING_FIX.test(s))) return true;
  if (TIMELINE.test(s) || (ONE_OCCASION.test(s) && REDONE_END.test(s) && !/\bwe now\b|\bfrom now on\b/i.test(s))) return true;
  if (STANDING.test(s) || LASTING_FIX.test(s)) return false;
  return ONE_OCCASION.test(s) || (SPELL.test(s) && (PAST.test(s) || AHEAD.test(s))) || ENDED.test(s) || IN_HAND.test(s);
}

/** Things of a day outside the code: food, travel, the office, time off. */
const LIFE_THINGS =
  /\b(?:lunch|dinner|breakfast|coffee|tea|beer|pizza|tacos|snacks|vacation|day off|(?:window|aisle) seat|(?<!round )trips?|(?<!-)flights?|hotel|the (?:new |old )?office|my badge|the view from|weather|commute|offsite|birthday|demo days|quiet room|open space|gym)\b/i;

/** A feeling or a habit of the speaker's, not a rule: "I always enjoy ...", "I always forget ...". */
const FEELING = /^(?:honestly,?\s+)?i\s+(?:always\s+|really\s+|just\s+)?(?:enjoy|forget|miss)\b/i;

/** Away from work: "I'm out on Friday", "I'm off next week". */
const AWAY = /\bi(?:'m| am| will be|'ll be)\s+(?:out|off|away|on (?:holiday|vacation|leave|pto))\b/i;

/** Small talk said with a preference or rule word: nothing of the project to keep. */
export function smallTalk(s: string, namesSomething: boolean): boolean {
  if (CHOICE_WORDS.test(s)) return false;
  if (FEELING.test(s) || AWAY.test(s)) return true;
  return !namesSomething && LIFE_THINGS.test(s);
}

/**
 * A line about how things are at the moment, or as far as one person knows: never kept on the
 * learned model's word alone ("Currently all traffic goes through the backup load balancer",
 * "Nobody uses the old admin panel anymore, as far as I can tell"). Not a guard of the rules'
 * own captures: "Currently the import fails for files over 2 GB" is trouble that stands. Also a
 * progress report ("Quick update: checkout v2 is about 70% done"), a request with a date ("the
 * OKRs are in the doc, please comment by Friday") and a to-do list ("Three things before Monday: ...").
 */
const STATUS_NOW = /\b(?:currently|temporarily|as far as i (?:can tell|know)|nobody has (?:looked|touched|checked|fixed)|,\s*fyi|(?:is|are) getting (?:a lot of|lots of|more|many|some)|(?:is|are) (?:installed|deployed|running|up|live) (?:on|in) \w+ now|quick update|,\s*(?:take|have) a look|at the moment|right now|waiting (?:for|on)|running late|still on (?:step|stage|phase)|^(?:just )?finished\b|(?:about|around|roughly|~)?\s?\d+ ?% (?:done|complete|finished|through)|nothing (?:is )?blocking|no blockers|please (?:comment|review|read|take a look|have a look|fill (?:it|this) in|vote|sign off)\b(?!.*\b(?:always|never|every|from now on|going forward)\b)|^(?:[\w-]+\s+){0,2}update(?:\s+draft)?(?=\s*:(?:[^,]*,){2})(?!.*\b(?:decided|agreed|always|never|from now on|going forward)\b)|(?:things|items|to-?dos?) (?:before|by|for) (?:monday|tuesday|wednesday|thursday|friday|tomorrow|eod|the weekend)|^(?:just |also )?(?:uploaded|pushed|submitted|sent|shared|published|deployed|released|merged|shipped|posted) (?:the|a|an|my|our|it|them|v?\d)\b(?!.*\b(?:always|never|every|from now on|going forward)\b))\b/i;
export const statusNow = (s: string) => STATUS_NOW.test(s) || IN_PROCESS.test(s);
/** Something being processed by a machine at the moment: "build 2.4.1 is processing on Apple's side", "the DNS change is propagating". */
const IN_PROCESS = /\b(?:is|are)\s+(?:still\s+)?(?:processing|uploading|propagating|queued|in (?:the )?queue|pending review|in review|waiting for review)\b/i;

/**
 * Not chosen yet, whatever its words of choosing: an idea put forward ("One idea: run the linter only
 * on changed files", "Proposal on the table: one chart per tenant"), an agenda item or an invite ("Agenda for Thursday: decide between ..."), a plan that waits on
 * an event ("Once legal signs off, we can start ..."), a change half made ("we're halfway through
 * moving the docs to ..."), or options laid out ("Options for the tiles: A) Mapbox, B) ...").
 */
const NOT_CHOSEN_YET =
  /^(?:(?:one|an|another|a|quick|random|wild|crazy|just an?|small)\s+)?(?:idea|thought|suggestion|proposal|option)\s*(?:[:—–-]|,\s)|^(?:(?:one|an|another|a|new)\s+)?(?:idea|suggestion|proposal|option|pitch)\s+(?:on the table|(?:up )?for discussion|for [^:]{1,40}|from [^:]{1,30})\s*:|^(?:the\s+)?(?:agenda|topics?|discussion points?|items? to discuss|invite|invitation|meeting invite|calendar|event)(?:\s+for\s+[^:]{1,40})?\s*:|^(?:once|as soon as|when|after)\s+[^,;]{3,60}\s+(?:signs? off|approves?|agrees?|is approved|is signed|gives? the (?:go-ahead|ok|green light)|lands|is done|is merged)\s*,\s*(?:we|i|you)\s+(?:can|could|will|'ll|might|may)\b|\b(?:halfway|half way|partway|part way|midway) through\b|^(?:the\s+)?(?:options?|choices|alternatives|candidates)(?:\s+(?:for|on|to|of)\s+[^:]{1,60})?\s*:/i;
/** A choice said as made: it stands under an agenda's heading or beside a change half made ("... we decided to use Loki"). */
const CHOSEN = /\b(?:decided|agreed|settled on|chose|picked|went with|(?:is|are|was|were) approved)\b/i;
export const suggestionOnly = (s: string) => NOT_CHOSEN_YET.test(s) && !CHOSEN.test(s);

/** One person's machine or setup, for the learned model's adds: "Just switched my local setup to OrbStack" is no team choice. */
export const mySetup = (s: string) => MY_SETUP.test(s);
