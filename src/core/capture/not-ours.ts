// Sentences that carry a decision's words but are not a decision of the user's to keep: a request
// to bring back what was decided before ("pull up the decision we made on caching"), someone
// else's choice told as news ("the Next.js team switched to Turbopack, apparently"), a question
// after a lead-in clause ("As we decided before, which Node version do we target"), and small talk
// ("Remember me when you're famous :)"). Checked on each sentence before its signal is read.

import { anothersView } from "./anothers-view.ts";
import { eventTold } from "./event-told.ts";
import { momentReport } from "./moment-report.ts";
import { outsiderAct } from "./outsider-act.ts";
import { relayedTalk } from "./relayed-talk.ts";
import { scopedInstruction } from "./scoped-instruction.ts";

/** A pointer to something decided earlier: "what we decided", "the decision we made", "our policy on". */
const PAST_DECISION =
  /\b(?:(?:what|which|whatever|the\s+(?:one|decision|choice|call|conventions?|polic(?:y|ies)|rules?|memory|note|thing|reason))\s+(?:[\w'-]+\s+){0,3}?(?:we|you|i|the team)\s+(?:had\s+|have\s+|'d\s+)?(?:decided|made|agreed|picked|chose|settled|said|wrote|discussed|went with|landed on|noted|saved|set|adopted|established|introduced|came up with|follow(?:ed)?)|as (?:we|you) (?:decided|agreed|said|discussed)|(?:our|the)\s+(?:decisions?|polic(?:y|ies)|conventions?|rules?)\s+(?:on|about|for|around|regarding)|(?:every|all|any|each)\s+(?:decisions?|choices?)\s+(?:about|on|regarding|for|we)\b)/i;

/** Asked for back: a verb of retrieval said to the assistant, or a need for the earlier answer. */
const RETRIEVE =
  /(?:^|[,;]\s*|\band\s+|\b(?:can|could|would|will)\s+you\s+(?:please\s+)?|\bplease\s+)(?:recall|pull|go back|look up|dig up|bring up|find|fetch|retrieve|show|paste|summari[sz]e|list|repeat|remind|tell|give|read)\b|^(?:i|we)\s+(?:need|want|'d like|would like|forgot|can't remember|don't remember)\b/i;

/** Asking for a recap outright: "refresh my memory on ...", "need a recap of ...". */
const RECAP = /^(?:please\s+)?(?:(?:can|could) you\s+)?(?:refresh|jog) my memory\b|^(?:i\s+)?(?:need|want|'d like)\s+(?:a|the)\s+(?:quick\s+)?(?:recap|summary|reminder|rundown)\s+of\b/i;
/** A statement turned into a question by its tag: "..., right", "..., correct?" */
const TAG_QUESTION = /,\s*(?:right|correct|yes|no|isn't it|aren't we|didn't we|wasn't it|weren't we|or not)\s*[.!]*$/i;
/** A question after a lead-in clause: "As we decided before, which Node version do we target". */
const LED_QUESTION =
  /^[^,;]{2,60}[,;]\s*(?:(?:what|which|why|how|where|when|who)\s+(?:[\w.+#-]+\s+){0,3}?(?:do|does|did|is|are|was|were|should|shall|can|could|will|would)\s+(?:we|i|you|they|it|the)\b|(?:do|does|did|should|shall|can|could|will|would|is|are)\s+(?:we|i|you)\b)/i;

/** A question told, not asked: "The interns asked whether we use git flow", "wondering if we still pin ...". */
const ASKED_WHETHER = /\b(?:asked|asking|wondered|wondering|wants? to know|wanted to know)\s+(?:me\s+|us\s+|you\s+|the team\s+|around\s+)?(?:whether|if)\b/i;
/** Asking for something known before, without the mark: "wait what was the convention for metric names again". */
const ASKED_AGAIN = /^(?:(?:wait|hmm+|ok|okay|so|um+|uh+|remind me)[,:]?\s+)*(?:what|which|where|who|when|how)\s+(?:was|were|is|are|did|do)\b.*\bagain\b/i;

/** Words that put a choice at a distance: another's news, not the user's project. */
export const DISTANT =
  /\b(?:apparently|reportedly|interesting (?:read|article|post|talk|thread|approach)|(?:not|isn't|is not) (?:relevant|applicable) (?:for|to) us|(?:doesn't|does not) (?:apply to|affect) us|(?:for|in|on) (?:their|his|her) (?:own )?(?:app|apps|repo|repos|project|projects|codebase|side|stack|product|team)|(?:i'm|i am) (?:skeptical|sceptical|unconvinced)|(?:the|an?) other (?:team|squad|project|repo|company|org|group)s?|another (?:team|squad|company|project|org)|(?:my|our) (?:old|previous|former|last) (?:team|company|job|employer|project)|at my (?:old|previous|former|last) (?:job|company|team)|(?:our|my) (?:stack|setup|case|situation|codebase) is different|in (?:most|many|some|other) (?:teams|companies|projects|codebases|shops)(?: i've (?:seen|worked (?:in|at|with)))?|we haven't (?:looked at|tried|used|considered) (?:it|that|them|this)|(?:the|an?|that) (?:example|sample|demo|starter|tutorial|boilerplate|workshop)(?:'s)? (?:repo|project|app|template|code)|(?:template|repo|example|tutorial|project|codebase) (?:we|i) (?:looked at|saw|watched|found|tried)|in (?:that|the) (?:talk|video|article|workshop|podcast|book|tutorial|course)|the speaker's|(?:(?<=\w)'s|(?<=\ws)') own (?:app|apps|dashboard|site|website|product|docs|stack|ui|api|sdk)|that's (?:just )?(?:his|her|their) (?:own )?(?:opinion|take|preference|view)|from what i (?:read|hear|heard|saw|understand)|the [\w-]+ community (?:prefers|uses|likes|recommends))\b/i;

/**
 * Words one of which every match of DISTANT holds, lower-cased, read off its alternatives ("her" in
 * "for her team" and in "(an)other team", "haven" in "we haven't tried it"): a sentence holding
 * none is not searched (it compiled on every statement's first sentence, ~0.2 ms of a cold hook).
 * No u flag: toLowerCase keeps the ASCII letters it matches. tests/core/guard-words.test.ts holds the list.
 */
export const DISTANT_WORDS: readonly string[] = [
  "apparently", "reportedly", "interesting", "relevant", "applicable", "apply", "affect", "their", "his", "her", "skeptical", "sceptical", "unconvinced",
  "old", "previous", "former", "last", "different", "teams", "companies", "projects", "codebases", "shops", "haven",
  "example", "sample", "demo", "starter", "tutorial", "boilerplate", "workshop", "we looked at", "i looked at", "we saw", "i saw", "we watched", "i watched",
  "we found", "i found", "we tried", "i tried", "talk", "video", "article", "podcast", "book", "course", "speaker", "'s own", "s' own", "from what", "community",
];
const mayBeDistant = (lower: string) => DISTANT_WORDS.some((w) => lower.includes(w));

/** Laughter and smileys: a joke, not a rule. */
const LAUGH = /\b(?:ha(?:ha)+|he(?:he)+|lol|lmao|rofl)\b|(?:^|\s)[:;]-?D(?=\s|$)|[\u{1F602}\u{1F923}\u{1F606}]/u;
/** A smiley: a joke, unless it names something of the trade. */
const SMILEY = /(?:^|\s)[:;]-?\)(?=\s|$)|[\u{1F604}\u{1F605}\u{1F642}\u{1F600}]/u;

/** "we decided that was the best Friday", "we agreed the offsite was the best one yet": a verdict on a moment, not a choice. */
const VERDICT =
  /\b(?:decided|agreed|settled)\s+(?:that\s+)?(?:(?:it|that|this|he|she|they)(?:'s|\s+(?:was|is|were|are))\s+(?:the\s+|a\s+|an\s+)?(?:best|worst|greatest|funniest|great|good|fine|funny|awesome|terrible|amazing|nice|enough|win|fluke|joke|highlight)|the\s+[\w-]+\s+(?:was|is)\s+(?:the\s+)?(?:best|worst|greatest|funniest)\s+(?:one\s+)?(?:yet|ever|so far))\b/i;

/** Why a sentence is not one to keep though it sounds like one, or null. */
export function notOurs(s: string, namesSomething: () => boolean): string | null {
  const relayed = relayedTalk(s);
  if (relayed) return relayed;
  // "When you're done with the migration, show me the diff": an instruction for the task at hand
  if (scopedInstruction(s) === "one task") return "an instruction for one task";
  const outsider = outsiderAct(s);
  if (outsider) return outsider;
  // "Kai reckons we should move the sim to Isaac": a view whose holder is named, not the team's choice
  const view = anothersView(s);
  if (view) return view;
  const event = eventTold(s);
  if (event) return event;
  // "Finished porting the reminders to the new queue, PR is up", "... it shows a blank calendar, weird."
  const moment = momentReport(s);
  if (moment) return moment;
  if (PAST_DECISION.test(s) && RETRIEVE.test(s)) return "a request for what was decided before";
  if (RECAP.test(s)) return "a request for what was decided before";
  if (LED_QUESTION.test(s) || TAG_QUESTION.test(s) || ASKED_WHETHER.test(s) || ASKED_AGAIN.test(s)) return "a question";
  if (mayBeDistant(s.toLowerCase()) && DISTANT.test(s)) return "someone else's choice, told as news";
  if (VERDICT.test(s)) return "a verdict, not a choice";
  if (LAUGH.test(s) || (SMILEY.test(s) && !namesSomething())) return "small talk";
  return null;
}

/**
 * "Shopify moved their checkout to React Native", "the payments team standardised on Kotlin for
 * their services": a choice whose owner is "their" with no one of ours before it is another's.
 */
/** A person described by their taste or skill, as a job ad does: "a developer who loves TypeScript". */
const SOMEONE_DESCRIBED =
  /\b(?:someone|somebody|developers?|engineers?|candidates?|people|folks|designers?|contractors?|persons?|hires?)\s+(?:who|that)\s+(?:(?:really|also|already)\s+)?(?:loves?|likes?|prefers?|enjoys?|knows?|hates?|is|are)\b|\b(?:we're|we are|we're currently|currently)\s+(?:looking for|hiring)\b/i;
export const someoneDescribed = (s: string): boolean => SOMEONE_DESCRIBED.test(s);

export function othersOwn(s: string): boolean {
  const at = s.search(/\btheir\b/i);
  // ("nobody runs migrations from their laptop", "every service owns its own data": a rule for all)
  return at !== -1 && !/\b(?:we|we're|we've|we'll|our|us|i|i'm|i've|my|let's|nobody|no one|everyone|everybody|anyone|anybody|each|every|all|devs|developers|engineers|contributors|reviewers|people)\b/i.test(s.slice(0, at));
}

/** Words of chat alone: a `what` made of these says nothing ("ok cool"). */
const CHAT_WORDS = new Set(
  "ok okay cool nice great good fine sure yes yep yeah alright right perfect awesome thanks thank you then so well lol haha that's that it's it settled done agreed".split(" "),
);

/** Whether a decision's `what` holds nothing but chat words. */
export function hollow(what: string): boolean {
  const words = what.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  return words.every((w) => CHAT_WORDS.has(w));
}
