import { devTalk } from "../dev-words.ts";
import { standingFailure } from "./standing-failure.ts";
import { alternativeGroups } from "./pattern-groups.ts";
import { mayMatch } from "./pattern-gate.ts";
import { negatedBefore, type SignalType } from "./signals.ts";

// The second reading of a sentence, for the ones no trigger phrase of signals.ts matched: people
// state a decision, a rule, a preference, a problem or its fix in far more wordings than phrase
// patterns can list ("Consensus in the arch meeting: ...", "no jQuery in new code", "pods were
// crashlooping ... → added an initContainer, solved"). Here a sentence is read by its cue words,
// wherever they stand, and by what makes it specific (a known name, a code-like token): a general
// lexicon of developer talk, not phrasings. Guards (questions, requests, hypotheticals, the
// undecided, someone else's view, progress reports, the past) run first, in extract.ts and here.
// Every pattern is linear: alternations of fixed words, no nested free runs.

export interface CueReading {
  type: SignalType;
  /** The clause that holds what was decided, preferred, broken or fixed. */
  what: string;
  /** Confidence before rationale and entities are counted. */
  base: number;
  /** The cue words, for the report. */
  signal: string;
  /** What is argued against ("no jQuery in new code"). */
  against: boolean;
}

/** What the cue reader needs to know of a sentence's names (from entities.ts, kept out of here). */
export interface CueContext {
  /** The sentence names a known technology, pattern or tool (not a bare term). */
  known: boolean;
  /** Positions of the known names: a clause that holds one is the thing chosen. */
  at: readonly number[];
}

interface Cue {
  type: SignalType;
  re: RegExp;
  base: number;
  /** A word the cue cannot match without, tested first: a literal scan is cheaper than the pattern. */
  hint?: RegExp;
  /** Only when the sentence is specific: a known name or a code-like token. */
  needsSpecific?: boolean;
  /** Only when the sentence names a known technology, pattern or tool. */
  needsKnown?: boolean;
  /** Only when the sentence is about software (a known name, a code-like token or a word of developer talk): "I hate Mondays" is not. */
  needsTopic?: boolean;
  against?: boolean;
}

// A code-like token: `code`, snake_case, camelCase, a path or dotted name, a flag, a version, a size.
const CODE_TOKEN = /`[^`]{1,80}`|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|(?:^|\s)[\w.-]*\/[\w./<>-]+|\b\w+\.\w{2,}\b|(?:^|\s)--?[a-z][\w-]+|\b\d+(?:\.\d+)?\s?(?:ms|s|gb|mb|kb|%|x)\b|\b[A-Z]{2,}[a-z]?\b|\b[A-Z]\d{1,3}\b/;

/** Choosing, agreeing, concluding: a decision whatever the wording around it. */
const CHOSE =
  /\b(?:decided|decide|decision|concluded|consensus|agreed|settled|verdict|landed on|(?:aligned|converged|standardi[sz]ed) on|went with|gone with|(?<!keep\s)going with|gonna (?:use|go with|switch to|move to)|opted (?:for|to)|chose|chosen|picked|voted (?:for|to)|(?:team|we|everyone)\s+voted\b(?=\s*[:—–-])|signed off on|approved|outcome|resolution|(?:our|the|my|final)\s+(?:choice|pick|answer|call)\b|said yes to|(?:we|team|everyone)\s+committed to|action items?\b(?=[^.:]{0,40}(?:\bis\b|\bare\b|:))|decisions\b(?=[^.:;]{0,40}:)|green[- ]?lit|gave (?:it )?the green light|thumbs up (?:on|for|to))\b/i;
/** A note for later: "note: the mobile team uses Kotlin Multiplatform", "heads up for later: ...". */
const NOTE = /^(?:heads[- ]up(?:\s+for\s+(?:later|next time|the future|future sessions?))?|note(?:\s+for\s+(?:later|next time|the future|future sessions?|future reference|you|claude))?|for later|for next time|for future sessions?|nb|n\.b\.)\s*:\s*(?=\S)/i;
/**
 * The user taking up what the assistant proposed, in so many words: "yes, do it the way you
 * suggested", "sounds good, go with your plan". A bare "ok" or "sounds interesting" is not.
 */
export const ACCEPTED =
  /^(?:yes|yep|yeah|ok|okay|alright|all right|sure|agreed|sounds good|perfect|great|good call|fine|fine by me|makes sense|works for me|let's do (?:it|that))\b[\s,.!:-]*(?:then\s+|please\s+|let's\s+|we'll\s+|we will\s+)?(?:go with|go ahead with|do it|do that|(?<=let's\s)do|use|take|keep|stick with)\b[^.?!]{0,60}?\b(?:(?:as|like) you (?:said|described|proposed|suggested)|you (?:suggested|proposed|described|recommended|outlined|laid out|sketched)|your (?:(?:first|second|third|last|other|original)\s+)?(?:plan|suggestion|proposal|approach|design|option|list|options|proposals|suggestions)|option\s+(?:[a-d1-4]|one|two|three|four)(?=\s*(?:[,;:]|from|of|in|$)))\b/i;
/** The assistant's plan taken up without naming it as theirs: "that plan works for me, go ahead with X", "let's do it your way, X it is". */
export const ACCEPTED_PLAN =
  /^(?:(?:ok|okay|yes|yep|yeah|fine|sure|great)[\s,.!]+)?(?:(?:that|this|your|the) (?:plan|approach|proposal|design|option|layout|outline|sketch|draft)\s+(?:works|is fine|is good|looks good|sounds (?:good|right|fine))(?:\s+(?:for|with|to)\s+me)?|(?:let's|we'll|we will)\s+do it your way|(?:yes|ok|okay|agreed)\s+to\s+(?=(?:the|your)\s+[^,.;]{2,60}?\s+you\s+(?:sketched|suggested|proposed|described|outlined|drafted)\b))\b[\s,.!:;-]*(?:then\s+)?(?:go ahead (?:with\s+)?|go with\s+|let's go with\s+|let's (?:implement|build|do|ship) (?:it|that)\s+(?:with\s+)?)?(?=\S)/i;
/** What the team will keep, and where or how: "we'll keep the events in an append-only table". */
const KEEP_PLAN =
  /\b(?:we'll|we will|we're going to|we are going to)\s+(?:keep|store|put|hold|write|log|encrypt|partition|shard|version|track)\s+(?!(?:an? eye|track|it|this|that|them|going|trying|looking|you|in touch|at it)\b)[^.;]{3,80}?\s+(?:in|on|as|with|behind|under|per)\s+(?=\S)/i;
/** A rule, a convention, a policy, a standard: the team's way from now on. */
export const RULE =
  /\b(?:rule|rules|policy|convention|conventions|standard|guideline|house style|code style|style guide|naming|mandatory|(?:hard|strict|firm) requirement|no exceptions|full stop|non-negotiable|from now(?: on)?|going forward|henceforth|from (?:this|next|that|the next) (?:week|sprint|month|quarter|release|version) on|from (?:today|tomorrow|monday) on|from today|from here on(?: out)?|as of (?:now|today|this release|the next release|v?\d[\w.]*|(?:this|next) (?:week|sprint|month|quarter|release|version))|effective (?:immediately|today|now|from|as of|(?:this|next) (?:week|sprint|month|quarter|release))|starting (?:today|now|tomorrow|immediately|(?:this|next) (?:week|sprint|month|quarter|release)|(?:on )?(?:monday|tuesday|wednesday|thursday|friday))|rule of thumb|^in (?:this|our) (?:codebase|repo|repository|project|service|team)\b(?=,?\s+(?:we|all|every|each|[\w-]+s)\b)|the way we do (?:it|things|this)(?: here| in this (?:repo|codebase|team|project))?|how we do (?:it|things) (?:here|in this (?:repo|codebase|team|project))|code freeze|deploy freeze|is final|that's final|this is final|for all (?:repos|repositories|services|packages|projects|apps|teams)|across (?:all|the) (?:repos|repositories|services|packages|apps|codebase))\b/i;
/** A rule against something, in the words people use for it. */
export const FORBID =
  /\b(?:under no circumstances|in no case|not allowed|never allowed|forbidden|prohibited|banned|not permitted|must never|must not|mustn't|should never|(?<!\b(?:are|is|was|were|have|has|had|get|got)\s+)no more|(?:nobody|no one|no-one)\s+(?:should|may|must|is allowed to|gets to|(?!(?:knows|cares|remembers|understands|likes|wants|seems|thinks|says|needs|uses|has|is|was)\b)[a-z]{3,}s))\b|^(?:please|pls|plz)\s+no\s+(?=\S+(?:\s+\S+)?\s+(?:in|at|on|for|anywhere|ever)\b)|^(?:please\s+|pls\s+|plz\s+)?(?:absolutely\s+|definitely\s+|strictly\s+)?no\s+(?=(?:new|more|further|additional)\s+\S+\s+(?:in|for|on|at|anywhere|anymore|ever|allowed)\b|\S+(?:\s+v?\d[\w.]*)?\s+(?:in|for|on|at|left|anywhere|anymore|ever|allowed)\b|\S+\s+\S+\s*[;—–]|(?!(?:need|way|idea|time|reason|point|chance|one|problem|worries|rush|longer|doubt|matter|sense|harm|use|access|response|answer|luck)\b)[\w-]+(?:\s+[\w-]+)?\s+(?:to|into|onto)\s+(?:main|master|prod|production|staging|the\s+\S+|\S+\s+branch)\b)/i;
/** Forbidding words that, after a subject, state the team's rule rather than a taste ("the payments service must never log ..."). */
const FORBID_RULE = /\b(?:must never|must not|mustn't|not allowed|never allowed|forbidden|prohibited|banned|not permitted)\b/i;
/** A modal rule with a subject: "the payments service must never log card numbers". */
const MUST = /(?<=\S\s+)\bmust\b/i;
/**
 * One thing in place of another. ", no X" sets a thing aside ("SQLite, no IndexedDB"), not a
 * state of the speaker's mind or of the work: "no clue why yet", "no luck", "no rush".
 */
const CONTRAST =
  /\b(?:instead of|rather than|in favou?r of|in place of)\b|,\s*(?:no|not)\s+(?!(?:clue|idea|luck|worries|worry|rush|hurry|pressure|biggie|problem|problems|issue|issues|doubt|wonder|joke|kidding|way|dice|news|change|progress|success|response|reply|answer|update|sign|trace|errors?|difference|big deal|sure|yet|really|quite|exactly|bad|great|good|much|often|always|again|anymore|any more)\b)(?=[\w.-]+(?:\s+[\w.-]+){0,2}\s*(?:[.!]|$))/i;
/** The nouns of RULE that have other senses: a document, an adjective, a gathering. */
const RULE_NOUN = /^(?:rule|policy|convention|standard|guideline)$/i;
/** Words that may follow a rule's noun when it names the team's rule: a verb, a preposition, a colon, the end. */
const AFTER_RULE = /^(?:$|[:;,.!—–-]|(?:is|are|was|were|'s|has|have|here|now|for|of|on|in|at|across|to|from|since|that|which|we|you|everyone|applies|apply|says|say|stays|holds|still|will|must|should|going|and|or|but|though|by|with|rule|rules|policy|convention|conventions|standard|naming|style)\b)/i;
/**
 * A rule's noun that names something else: it modifies the noun after it ("the insurance policy
 * PDF", "the standard green, amber and red") or names an event one attends ("at the PyData
 * convention"). Said of the team's way it stands before a colon, a verb (an -s or -ed word, an
 * adverb) or a preposition.
 */
function ruleNounElsewise(s: string, m: RegExpExecArray): boolean {
  if (!RULE_NOUN.test(m[0])) return false;
  if (/\bat (?:the|a|an|this|that)\s+(?:[\w.-]+\s+){0,3}$/i.test(s.slice(0, m.index)) && /^convention$/i.test(m[0])) return true;
  const after = s.slice(m.index + m[0].length).trimStart();
  // a verb may follow with an adverb first: "the escalation rule always routes ...", "the policy changed"
  return !AFTER_RULE.test(after) && !/^(?:[a-z]+ly|always|never|also|only|still|just|now|usually|simply|[a-z]{2,}(?:s|ed))\b/.test(after);
}

/** A change under way or done, without the subject the trigger phrases expect. */
export const CHANGE =
  /\b(?:moving|migrating|switching|porting|moved|migrated|switched|ported|moves|migrates|switches)\b(?!\s+on\b)(?=[^.;]{0,60}\b(?:off|from|to|over|into|onto|out of)\b)|\b(?:we|i)\s+(?:replace|replaced|are replacing|'re replacing|swap|swapped)\b|(?<=\bout\s{0,3}[,;]\s{0,3})[\w.-]+\s+in\b|\b(?:we|i|they)\s+(?:killed|scrapped|tore down|shut down|removed|deleted)\s+(?:the|our)\b|\b(?:ripped|ripping|rip|tore|tearing|yanked)\s+out\b|\bconsolidat(?:e|es|ed|ing)\b(?=[^.;]{0,60}\binto\b)|\b(?:is|are|was|were)\s+(?:being\s+)?replaced\s+(?:by|with)\b|\b(?:leaving|leaves)\s+[\w.-]+(?:\s+[\w.-]+)?\s+for\s+(?!(?:the day|today|now|a bit|a while|lunch|good|later|the weekend|vacation|holiday)\b)(?=\S)|\b(?:we|i)(?:'re| are|'ve| have)?\s+deprecat(?:ing|ed)\s+(?=\S)|\b(?:ditch(?:ing|ed)?|swapp(?:ing|ed)|phas(?:ing|ed|e) out|sunsett?(?:ing|ed)?|retir(?:ing|ed)|abandon(?:ing|ed)?|dump(?:ing|ed))\b/i;
/** A state stated as the new one: "the admin build is Vite now", "we're officially on Node 22", "webpack is gone". */
const NOW_STATE =
  /\b(?:is|are)\s+(?:gone|dead|retired|removed|deprecated)\b|\b(?:is|are)\s+(?:(?![a-z]+ing\s)[\w.-]+\s+)?now\b|\b(?:is|are|'re|'m|am)\s+(?:now\s+|officially\s+|fully\s+)*(?:on|using)\s+/i;
/** A choice with its chooser: "we go Postgres for the audit service", "for the queue we will take SQS". */
const TAKE = /\b(?:we|i)\s+(?:'ll\s+|will\s+|shall\s+)?(?:go|take|took|pick|choose|chose|adopt|adopted)\s+(?:with\s+|for\s+)?/i;
/** Against a choice: "let's not use Redux", "we stopped supporting Python 3.8". */
export const NOT_CHOOSING = /\blet(?:'s| us) not\s+(?:use|add|adopt|go with|introduce|bring in|do)\b|\b(?:we|i)\s+(?:don't|do not|won't|will not)\s+(?:do|use|run|allow|ship|adopt)\s+(?=\S)|^not\s+(?:going with|using|adopting|choosing|picking)\b|\b(?:we|i)\s+(?:stopped|stop|dropped|drop)\s+(?:supporting|using|shipping|running)\b|\b(?:we|i|the team)\s+(?:'ve\s+|have\s+)?(?:ruled out|rejected|turned down|said no to|vetoed)\s+(?!(?:it|this|that|them|the idea|the pr|the change)\b)(?=\S)/i;
/** Support ended for a version or a platform: "we're dropping support for Safari 14". */
const END_SUPPORT = /\b(?:we|i|the team)(?:'re| are|'ve| have|'ll| will)?\s+(?:now\s+)?(?:dropping|dropped|drop|ending|ended|end|removing|removed)\s+support\s+for\s+(?=\S)/i;
/**
 * A thing that never does something, said of a kind of thing: "Feature flags never live longer
 * than two releases", "Credentials never go into committed files". A rule the team keeps.
 */
const NEVER_RULE =
  /^(?!(?:i|we|you|it|this|that|he|she|they|there)\b)(?:the\s+|our\s+|all\s+)?(?:[\w.-]+\s+){0,3}?never\s+(?:go|goes|live|lives|get|gets|touch|touches|run|runs|ship|ships|leave|leaves|call|calls|talk|talks|log|logs|land|lands|merge|merges|hit|hits|store|stores|contain|contains|depend|depends|import|imports|reach|reaches|expose|exposes|stay|stays|end up|bypass|bypasses|skip|skips)\b|^(?!(?:i|we|you|it|this|that|he|she|they|there)\b)(?:the\s+|our\s+|all\s+)?(?:[\w.-]+\s+){0,6}?(?:is|are)\s+never\s+[a-z]{3,}ed\b/i;
/** Not taking something up, said as the team's plan: "we're not doing server components yet", "we aren't adopting microfrontends". */
export const NOT_DOING =
  /\b(?:we|i|the team)(?:'re| are|'m| am)\s+not\s+(?:doing|using|adopting|building|introducing|supporting|shipping|touching|going (?:to|with))\s+(?!(?:it|this|that|anything|much|well|great|good|so|too|very|enough)\b)|\b(?:we|i|the team)\s+aren't\s+(?:doing|using|adopting|building|introducing|supporting|shipping)\s+(?!(?:it|this|that|anything|much|well|great|good|so|too|very|enough)\b)|\b(?:we|i|the team)(?:'re| are|'ll| will)?\s+(?:staying|stay|keeping|keep|steering|steer)\s+(?:away|clear)\s+(?:from|of)\s+(?!(?:it|this|that|them)\b)(?=\S)|^(?!(?:i|you|it|this|that|he|she|they|there)\b)(?:the\s+|our\s+)?(?:[\w.-]+\s+){1,3}?(?:doesn't|does not|don't|do not)\s+(?:get|use|have|ship with|include|need|take)\s+(?!(?:it|this|that|them)\b)[^.;,]{2,40}?,?\s+(?:ever|at all|period)\b|^(?!(?:i|you|it|this|that|he|she|they|there)\b)(?:the\s+|our\s+)?(?:[\w.-]+\s+){1,3}?(?:won't|will not)\s+(?:support|get|have|ship with|include|offer)\s+(?!(?:it|this|that|them|any(?:thing)?|much|a chance|there|far|long)\b)(?=\S)/i;
/**
 * A plan stated as the team's, with the thing it names: "the plan is to put jobs on SQS", "we'll be
 * using Turso for ...", "the rewrite will be in Kotlin", "Postgres it is".
 */
export const PLAN =
  /\b(?:the|our) plan is (?:to|that)\b|\b(?:we'll|we will|we're going to|we are going to|we're gonna)\s+(?:be\s+)?(?:using|use|host|hosting|run|running|deploy|deploying|build|building|put|putting|store|storing|go with|adopt|adopting|switch to|move to|standardi[sz]e on)\b|\b(?:we're|we are)\s+(?:putting|hosting|running|building|standardi[sz]ing)\s+(?!(?:it|this|that|them)\b)[^.;]{1,60}?\s+(?:on|onto|in|with)\s+(?=\S)|\bwill be (?:in|built (?:with|on|in)|written in|done (?:in|with)|hosted on|powered by)\b|^[\w.-]+(?:\s+[\w.-]+)?\s+it is\b/i;
/** The team's one place or default for a thing: "the canonical place for runbooks is ...", "our default region is ...". */
const CANONICAL = /^(?:the|our)\s+(?:canonical|default|official|standard|single|preferred|go-to)\s+(?:place|region|tool|way|format|location|home|source|store|registry|channel|repo|repository|branch|language|runtime|database|queue|provider)\b(?:\s+(?:for|of)\s+[^.;]{1,60}?)?\s+(?:is|are)\s+(?=\S)/i;
/** A practice named by its use: "Redis INCR with a TTL per user is how we count API calls". */
const HOW_WE = /\b(?:is|are)\s+how\s+(?:(?:we|the team)\s+(?!(?:feel|felt|think|thought|got|ended up|found)\b)|(?:this|the|our)\s+(?:codebase|code|repo|repository|project|team|app|service)\s+(?:is|are|gets?)\s+\w+)/i;
/** A participle of how a thing is handled, with a known tool: "emails are templated with Handlebars". */
const HANDLED = /\b(?:is|are)\s+(?:[a-z]+ed|cut|built|run|kept|sent|made|written|driven|set|put|shown|held|taken|given|drawn|bound)\s+(?:and\s+[a-z]+ed\s+)?(?:(?:server|client|build|compile|run)[- ]?(?:side|time)\s+)?(?:with|through|via|by|using|on|in|to)\b/i;
/** The stack as it is: "Background jobs in the Node services run on BullMQ", "the package targets ES2022". */
const STACK =
  /\b(?:runs? on|run in|runs in|uses|is built (?:with|on)|are built (?:with|on)|lives? in|(?:is|are) (?:hosted|deployed|stored|kept|scheduled|written|managed|handled|rendered|served|generated|cached|tested) (?:on|in|with|by|via|through|to)|is backed by|are backed by|goes through|go through|targets|is powered by|are powered by|talks?|speaks?)\b/i;
/** A statement of how things are done, for every case: "All API responses are camelCase", "Branch names follow the pattern ...". */
const UNIVERSAL =
  /^(?:all|every|each|any)\s+(?:[\w.-]+\s+){0,7}?(?:is|are|gets?|goes|go|uses?|follows?|starts?|ends?|lives?|runs?|happens?|stays?|ships?|must|need|needs|should|has|have)\b|\b(?:follows?|use)\s+the\s+(?:pattern|format|convention|scheme)\b|\b(?:are|is)\s+named\b|\b(?:we|i)\s+name\s+(?!(?:it|them|this|that)\b)|\bstart with\b/i;
/**
 * How things are done here, said of a kind of thing: "Env vars in this project are prefixed with
 * APP_", "Commits in this repo use the imperative mood", "Timestamps in the API are always UTC".
 */
const HOUSE_PRACTICE =
  /^(?!(?:i|we|you|it|this|that|he|she|they|there|my|your)\b)(?:the\s+|our\s+|all\s+)?(?:[\w.-]+\s+){1,3}?in (?:this|our) (?:repo|repository|project|codebase|monorepo|app|service|team)\s+(?:use|uses|follow|follows|go|goes|live|lives|look like|looks like|get|gets|must|never|start|starts|end|ends|(?:are|is)\s+(?:always\s+)?(?:[a-z]{3,}ed|kept|written|built|run|set|put)\b)/i;
/** "Log lines in this service are JSON with a request_id field": the same with a specific token. */
const HOUSE_IS = /^(?!(?:i|we|you|it|this|that|he|she|they|there|my|your)\b)(?:the\s+|our\s+|all\s+)?(?:[\w.-]+\s+){1,3}?in (?:this|our) (?:repo|repository|project|codebase|monorepo|app|service|team)\s+(?:are|is)\s+(?!(?:a|an|so|too|very|really|pretty|quite|kind of|always)\b)/i;
/** "Timestamps in the API are always ISO 8601": an always-statement with a specific token (not "logs are always noisy"). */
const ALWAYS_SO =
  /^(?!(?:i|we|you|it|this|that|he|she|they|there|my|your)\b)(?:the\s+|our\s+|all\s+)?(?:[\w.-]+\s+){1,3}?(?:in (?:the|our|this) [\w.-]+\s+)?(?:is|are)\s+always\s+(?!(?:slow|broken|failing|flaky|down|late|red|wrong|stale|empty|missing|a pain|annoying|busy|full|noisy|the first|the last)\b)/i;
/**
 * How a kind of thing is done here, said with a habitual verb and no "in this repo": "Kafka topic
 * names follow domain.entity.event", "Storybook stories sit next to their component", "Hotfix
 * branches are cut from the latest release tag". The subject is a kind of thing (a plural), never
 * a person; trouble said this way ("Safari users get logged out") is read as a problem instead.
 */
const HABIT =
  /^(?:in (?:this|our) (?:repo|repository|project|codebase|monorepo|app|service|team),?\s+)?(?!(?:i|we|you|it|this|that|he|she|they|there|my|your|his|her|nobody|someone|everyone|people|users|customers|folks)\b)(?:(?:the|our|all|each|every)\s+)?(?:[\w.-]+\s+){0,3}?[\w-]*[a-z]s\s+(?:here\s+|for\s+(?:the\s+|each\s+|every\s+)?[\w.-]+(?:\s+[\w.-]+)?\s+)?(?<verb>follow\s+(?!(?:no|none|whatever|nothing|up|through|along)\b)|look\s+like\s+|get\s+(?:a|an|one|their own)\s+(?=[^.;]*(?:`|\b[a-z]+_[a-z0-9_]+\b))|(?:sit|live)\s+(?:next to|beside|alongside|in|under|inside)\s+|go\s+(?:in|into|under|inside)\s+|are\s+(?:always\s+)?(?:cut|squashed|rebased|read|loaded|generated|versioned|prefixed|suffixed|typed|named|written|kept|deleted|stored|tagged|pinned|declared|defined|documented|grouped|placed|put|published|released|deployed|merged|reviewed|approved|signed|scheduled|validated|linted|formatted|encrypted|hashed|exported|imported|compiled|bundled|minified|seeded|mocked)\s+(?:from|on|in|with|as|after|by|into|under|per|only)\s+)/i;
/** The same with any participle ("API errors are wrapped in a problem+json body"): only with a specific token or name. */
const HABIT_DONE =
  /^(?:in (?:this|our) (?:repo|repository|project|codebase|monorepo|app|service|team),?\s+)?(?!(?:i|we|you|it|this|that|he|she|they|there|my|your|his|her|nobody|someone|everyone|people|users|customers|folks)\b)(?:(?:the|our|all|each|every)\s+)?(?:[\w.-]+\s+){0,3}?[\w-]*[a-z]s\s+(?:(?:in|on|for|of|at|from)\s+(?:the\s+|our\s+|each\s+|every\s+)?[\w.'-]+(?:\s+[\w.'-]+){0,2}?\s+)?(?<verb>are\s+(?:always\s+)?[a-z]{3,}(?<!need|feed|speed|seed)ed\s+(?:from|on|in|with|as|after|by|into|under|per|only|to|every|each|within|automatically|nightly|weekly|daily|monthly|once)\s+)/i;

/** Whether a sentence states how a kind of thing is done here (HABIT), whatever else it holds. */
/** The practice of a sentence whose trouble (at `at`) is what the practice keeps away, or null. */
export function troubleKeptAway(s: string, at: number): string | null {
  const guard = GUARDED_PRACTICE.exec(s);
  // "..., but it still crashes at noon": trouble the practice did not keep away
  return guard && at >= guard[1]!.length && !/\b(?:but|yet|still|anyway)\b/i.test(s.slice(guard[0].length)) ? guard[1]! : null;
}

export function isHousePractice(s: string): boolean {
  const m = HABIT.exec(s) ?? HABIT_DONE.exec(s);
  return m !== null && !troubleInPredicate(s, m);
}

/** Trouble in what a practice says of its subject ("API errors are wrapped ..." names errors, and is no trouble). */
function troubleInPredicate(s: string, m: RegExpExecArray): boolean {
  return isTrouble(s.slice(m.index + m[0].length - (m.groups?.verb?.length ?? m[0].length)));
}

/** A practice the team keeps everywhere: "we store money as integer cents everywhere". */
const WE_EVERYWHERE =
  /\b(?:we|the team)\s+(?:always\s+)?(?:store|keep|write|log|name|version|tag|deploy|run|host|build|represent|encode|format|send|return|validate|sign|hash|encrypt)\s+(?!(?:it|this|that|them)\b)[^.;]{2,60}?\s+(?:everywhere|across (?:all|the|every)|in (?:all|every)|for (?:all|every))\b/i;

/** Who alone may do a thing, or what the team holds to: "Only the platform team may change the VPC", "for CSS we stick to BEM". */
const ONLY_OR_STICK =
  /^only\s+(?:the\s+)?[\w.-]+(?:\s+[\w.-]+){0,3}?\s+(?:may|can|is allowed to|are allowed to|gets? to)\s+(?=\S)|\b(?:we|the team)\s+(?:always\s+)?(?:stick|stay|keep)\s+(?:to|with)\s+(?!(?:it|this|that|them|the plan|the schedule)\b)(?=\S)/i;
/** A naming style stated for a kind of thing: "Config keys are snake_case in YAML". */
const NAMING_CASE = /\b(?:are|is)\s+(?:in\s+|all\s+)?(?:snake_case|camelCase|PascalCase|kebab-case|SCREAMING_(?:SNAKE_)?CASE|lower[ -]?case|upper[ -]?case|title case|singular|plural)\b/i;
/** A thing of ours getting a new part, or served a new way: "the api is getting a gql layer", "we're exposing the catalogue over gql". */
const GETS_NEW =
  /\b(?:is|are)\s+getting\s+(?:a|an|its own|their own)\s+(?:[\w.-]+\s+){0,2}?(?:layer|gateway|api|cache|queue|index|endpoint|service|database|db|proxy|frontend|backend|sdk|client|schema|pipeline|worker|cluster|replica|read replica|cdn|search|store)s?\b|\b(?:we're|we are|we'll|we will)\s+(?:exposing|serving|publishing|shipping|offering)\s+[^.;]{1,40}?\s+(?:over|via|through)\s+(?=\S)/i;
/** When alone a thing may happen: "Production deploys happen only between 9 and 16 on weekdays". */
const ONLY_WHEN =
  /^(?!(?:i|we|you|it|this|that|he|she|they|there)\b)(?:the\s+|our\s+|all\s+)?(?:[\w.-]+\s+){1,3}?(?:happen|happens|run|runs|go out|goes out|ship|ships|are allowed|is allowed|can happen)\s+(?:only\s+(?:between|on|from|after|before|during|in|via|through|with)\b|(?:on|between|during)\s+[^.;,]{2,40}?\s+only\b)/i;
/** The user's own taste. */
const LIKE =
  /\b(?:personally,?\s+i\s+(?:go for|use|want|like|prefer)|i (?:really |strongly |much |tend to |usually |generally |always )?(?:like|love|dislike|hate|prefer|favou?r|go for)|i (?:really )?(?:don't|do not) (?:like|love|want)|i(?:'m| am) (?:a (?:big |huge )?fan of|not a fan of)|for me (?:is|it's|it is) better|i want (?!you\b|to\b|claude\b)|i(?:'d| would) like (?!you\b|to\b)|my (?:personal )?(?:preference|taste|style|default|go-to)(?:\s+for\s+[^.;,]{1,30}?)? is|i find\b[^.;]{1,40}\b(?:easier|better|clearer|cleaner|nicer|simpler|more readable)|(?:i'm|im|i am)\s+(?:more\s+|most\s+)?(?:comfortable|at home|happier)\s+with|i(?:'d| would)\s+go\s+with)\b/i;
/** A taste said as an instruction: "For logging, prefer structured logs with pino over console.log". */
const PREFER_OVER =
  /^(?:(?:for|in|with|when)\s+[^,;]{1,40},\s*)?(?:please\s+)?(?:always\s+)?prefer\s+(?=[^.;]{2,80}?\s+(?:over|to|instead of|rather than)\s+\S)/i;
/** A standing instruction to the assistant: "when you write commit messages keep them ...". */
const STANDING = /^(?:when(?:ever)?|every time|each time|any time)\s+you\b/i;
/** A fix, said any way: "…, solved", "resolved X by …", "X did the trick", "… so we cached ETags", "went from 3s to 200ms". */
export const FIXED =
  /\b(?:so|and|then)\s+(?:we|i)\s+(?=(?:add|enabl|switch|set|bump|rais|increas|reduc|remov|clos|mov|turn|disabl|upgrad|downgrad|pinn|cach|rewr|replac|configur|restart|limit|wrapp|split|tun|lower|shrank|shrunk|capp|batch|index|shard)\w*\s)|\b(?:went|got|came|dropped|fell)\s+(?:down\s+)?from\s+\d[\w.]*\s+to\s+\d|\buntil (?:we|i|they)\s+(?=(?:add|enabl|switch|set|bump|rais|increas|reduc|remov|clos|mov|turn|disabl|upgrad|downgrad|pinn|cach|rewr|replac|configur|restart|limit|wrapp|split)\w*\s|[a-z]{3,}ed\s|(?:built|made|set|put|cut|wrote|split|ran|threw|took|gave)\s)|\bwas\s+~?\d[\d.,]*\s?(?:ms|s|mb|gb|kb|%|x|minutes?|seconds?)?\b[^.;]{0,80}?,\s*now\s+(?:it's|it is|its|we're at|down to|at|only)\s+~?\d|\blet (?:it|them|the [\w-]+(?: [\w-]+)?) (?:finish|complete|pass|succeed|start|through)\b|\bstopped (?:the [\w-]+ )?(?:restarting|crashing|failing|timing out|leaking|hanging|flapping|crashlooping|rejecting|refusing|dropping|erroring|throwing)\b|\bmade (?:it|them|the [\w-]+) (?:\d+(?:\.\d+)?x\s+)?(?:pass|work|stable|reliable|faster|quicker|smaller|go away)|\b(?:got|brought|took) (?:it|them|this|that) (?:down\s+|back\s+)?(?:under|below|to) ~?\d|\bgot (?:it|them|things|the [\w-]+) (?:moving|working|running|going|flowing) again\b|\bgot (?:it|them|things) (?:moving|working|running|going|flowing)\b|\b(?:stopped|ended|killed) (?:it|them|this|that)\b|\b(?:stopped|ended|eliminated|prevented|removed) the (?:[\w-]+\s+)?(?:evictions?|errors?|crash(?:es)?|timeouts?|leaks?|restarts?|failures?|spikes?|duplicates?|warnings?|oom\w*|drops|lag|flakiness|deadlocks?|retries|outages?|kills)\b|\bcut (?:it|them|this|that|the [\w-]+(?: [\w-]+)?) (?:down )?(?:to|from|by|in half)\b|\bthe (?:fix|solution|workaround|remedy)(?: for [^.;:]{1,60}?)? (?:was|is) (?:to\s+)?(?!(?:in|under|ready|merged|deployed|done|coming|pending|landing|still|not|being|on)\b)|^workaround(?: for [^.;:]{1,60}?)?\s*:\s*(?=\S)|\b(?:fixed|fixes|fixing|solved|solves|resolved|resolves|cured|did the trick|sorted it|went away|are gone|is gone|disappeared|stopped (?:happening|failing|crashing)|stopped (?:once|after|when) (?:we|i) [a-z]+ed|works now|(?:it's|it is|all) fine now|worked around|and (?:it's|it is) fine|no longer (?:fails|crashes|happens|times out))\b/i;
/**
 * Words one of which every match of FIXED holds, lower-cased: each of its alternatives names one
 * ("so", "and", "then" before "we"; "from"; "until"; "now"; ...; "fix" in fixed, fixes, fixing;
 * "so" in solution, solved, resolves and sorted; "around" in workaround and worked around; "gone"). A sentence holding none is not searched: FIXED's first
 * search compiles ~2,000 characters of pattern (1.4 ms of a cold hook's "yes, go on"). FIXED has
 * no u flag, so its letters match ASCII letters only, which toLowerCase keeps as they are.
 */
export const FIXED_HINTS: readonly string[] = [
  "so", "and", "then", "from", "until", "now", "let", "stopped", "made", "got", "brought", "took", "ended", "killed", "eliminated",
  "prevented", "removed", "cut", "fix", "remedy", "cured", "trick", "away", "around", "gone", "disappeared", "longer",
];

/** Whether a sentence may hold a match of FIXED (it holds one of FIXED_HINTS). */
export function mayBeFixed(s: string): boolean {
  const lower = s.toLowerCase();
  return FIXED_HINTS.some((h) => lower.includes(h));
}

/** A fix with how it was done: "Fixed the duplicate webhook handling by storing the event id ...". */
const FIXED_BY = /\b(?:fixed|solved|resolved|worked around|cured|sorted out)\s+(?!(?:it|this|that|them)\b)[^.;]{3,80}?\s+by\s+(?:[a-z]+ing|adding|using|setting)\b/i;
/** What was done to fix it. */
const ACTION =
  /\b(?:add(?:ed|ing)|enabl(?:ed|ing)|switch(?:ed|ing)|set(?:ting)?|bump(?:ed|ing)|rais(?:ed|ing)|increas(?:ed|ing)|reduc(?:ed|ing)|remov(?:ed|ing)|clos(?:ed|ing)|mov(?:ed|ing)|turn(?:ed|ing) on|turn(?:ed|ing) off|disabl(?:ed|ing)|upgrad(?:ed|ing)|downgrad(?:ed|ing)|pinn(?:ed|ing)|cach(?:ed|ing)|rewr(?:ote|iting)|replac(?:ed|ing)|configur(?:ed|ing)|restart(?:ed|ing)|limit(?:ed|ing)|wrapp(?:ed|ing)|split(?:ting)?|capp(?:ed|ing)|built with|preload(?:ed|ing))\b|\b(?:we|i)\s+now\s+(?!have\b|know\b|see\b|think\b)\w+/i;
/** A fix's own clause: what was done, said first ("raising it to 8 ...", "we split it into batches", "so we now reindex"). */
const FIX_CLAUSE =
  /^(?:and\s+|so\s+|then\s+)?(?:(?:we|i)\s+(?:(?:now|then|just|finally)\s+(?!(?:have|know|see|think|need|want|wait)\b)(?=[a-z]{3,}\s)|(?=[a-z]+ed\s)|(?=(?:set|split|cut|put|moved|pinned|bumped|capped|swapped|added|rewrote|gave|made)\s))|(?=[a-z]{3,}ing\s)|(?=(?:added|bumped|raised|set|pinned|moved|swapped|capped|lowered|increased|reduced|switched|split|trimmed|enabled|disabled|upgraded|downgraded|replaced|removed|inlined|bundled|reindexed|sharded|batched|cached|limited|wrapped|restarted|reconfigured|tuned|patched|reverted|allowlisted|whitelisted)\s))(?:[a-z]+\s+){0,2}?(?:add(?:ed|ing)?|rais(?:e|ed|ing)|bump(?:ed|ing)?|set(?:ting)?|split(?:ting)?|trimm(?:ed|ing)|trim|pinn(?:ed|ing)|pin|mov(?:e|ed|ing)|switch(?:ed|ing)?|swapp(?:ed|ing)|swap|reindex(?:ed|ing)?|rewr(?:ote|ite|iting)|replac(?:e|ed|ing)|enabl(?:e|ed|ing)|disabl(?:e|ed|ing)|increas(?:e|ed|ing)|decreas(?:e|ed|ing)|lower(?:ed|ing)?|dropp(?:ed|ing)|capp(?:ed|ing)|cap|limit(?:ed|ing)?|batch(?:ed|ing)?|cach(?:e|ed|ing)|shard(?:ed|ing)?|inlin(?:e|ed|ing)|bundl(?:e|ed|ing)|upgrad(?:e|ed|ing)|downgrad(?:e|ed|ing)|restart(?:ed|ing)?|reconfigur(?:e|ed|ing)|configur(?:e|ed|ing)|tun(?:e|ed|ing)|patch(?:ed|ing)?|revert(?:ed|ing)?|wrapp(?:ed|ing)|turn(?:ed|ing)\s+(?:on|off)|sampl(?:e|ed|ing)|convert(?:ed|ing)?|shar(?:e|ed|ing)|roll(?:ed|ing)?\s+back|point(?:ed|ing)?|order(?:ed|ing)?|strip(?:ped|ping)?|reduc(?:e|ed|ing)|remov(?:e|ed|ing)|allowlist(?:ed|ing)?|whitelist(?:ed|ing)?|put(?:ting)?|us(?:e|ed|ing)|write|wrote|writ(?:e|ing)|run(?:ning)?|ran|stream(?:ed|ing)?|retr(?:y|ied|ying)|dedup(?:e|ed|ing)?|index(?:ed|ing)?|narrow(?:ed|ing)?|shorten(?:ed|ing)?|lengthen(?:ed|ing)?|extend(?:ed|ing)?|loosen(?:ed|ing)?|tighten(?:ed|ing)?|throttl(?:e|ed|ing)|debounc(?:e|ed|ing)|paginat(?:e|ed|ing)|compress(?:ed|ing)?|migrat(?:e|ed|ing)|split(?:ting)?|gave|giv(?:e|ing)|made|mak(?:e|ing)|scal(?:e|ed|ing)\s+(?:up|out|down))\b/i;
/** A fix said as what is done now: "we now create it in the migration". */
const WE_NOW = /^(?:and\s+|so\s+|then\s+)?(?:we|i)\s+now\s+(?!(?:have|know|see|think|need|want|wait|understand|get|believe)\b)[a-z]{3,}\s/i;
/** Trouble or its cause in a sentence's first part: what a fix clause after it fixes. */
const CAUSE = /\b(?:because|since(?!\s+(?:then|\d))|due to|caused by|root cause|came from|comes from|traced (?:it |them )?(?:back )?to|turned out to be|kept\s+[a-z]+ing|keeps?\s+[a-z]+ing|were\s+[a-z]+ing|was\s+[a-z]+ing)\b/i;
/** The fix said with its result: the latency "smoothed out", "it runs clean now", "they're gone", "got them delivered". */
const FIX_RESULT =
  /\b(?:smooth(?:ed|s)? (?:it |them |things )?out|even(?:ed|s)? (?:it |them |things )?out|runs? (?:clean|fine|green)|pass(?:es)? (?:reliably|consistently|again|now)|(?:they're|they are|it's|it is) (?:gone|back to normal|fine now|stable now)|back to normal (?:speed|times?)|got (?:it|them) (?:delivered|through|passing|green|stable|building|running|working)|(?:the )?(?:errors?|timeouts?|crashes|failures|drops|duplicates|warnings|alerts) (?:stopped|went away|are gone|disappeared)|(?:the )?counts? match(?:es)?|(?:got|brought|took) (?:it|them) (?:down\s+|back\s+)?(?:under|below) (?:a|one) (?:second|minute)|(?:brought|got|put|took) (?:us|it|them|things) back (?:under|below|within|to))\b/i;
/** A number cut by what was done: "Got the test suite from 9 minutes down to 2 by running ...". */
const CUT_FROM_TO = /\b(?:got|brought|took|cut|dropped|shrank|reduced)\s+(?:[\w.-]+\s+){1,4}?from\s+~?\d[\w.]*(?:\s+[a-z]+)?\s+(?:down\s+)?to\s+~?\d[\w.]*(?:\s+[a-z]+)?\s+by\s+(?=[a-z]+ing\b)/i;
/** A state that lasted until what was done: "PDFs rendered with the wrong fonts until we bundled the fonts". */
const UNTIL_DONE = /\b(?:was|were|kept|had|did|would|wrong|without|missing|broken|never|didn't|wouldn't|couldn't|wasn't|weren't)\b[^.;]{3,120}?\buntil (?:we|i)\s+[a-z]+ed\b/i;

/**
 * Trouble and its fix in one sentence, the fix in a clause of its own after the trouble: "X were
 * queueing because Y; raising it to 8 smoothed out the latency", "X kept failing, we split it
 * into batches". The statement kept is the sentence (the fix points back at the trouble: "raising
 * it"), or from the fix's clause on when the sentence is too long to keep whole.
 */
export function troubleThenFix(s: string): CueReading | null {
  // the cheap tests first: a fixed word ("from", "until"), then anchored clause starts
  const cut = s.includes("from") ? CUT_FROM_TO.exec(s) : null;
  if (cut) return { type: "solution", what: s.slice(cut.index + cut[0].length), base: 0.65, signal: "cut by", against: false };
  const until = s.includes("until") ? UNTIL_DONE.exec(s) : null;
  if (until) return { type: "solution", what: s.slice(until.index + until[0].lastIndexOf("until")), base: 0.65, signal: "until", against: false };
  const cs = clauses(s);
  if (cs.length < 2) return null;
  for (let i = 1; i < cs.length; i++) {
    const c = cs[i]!;
    // "...; we now create it in the migration": what is done now, whatever its verb
    if (!FIX_CLAUSE.test(c.text) && !WE_NOW.test(c.text)) continue;
    const rest = s.slice(c.start);
    // the fix names what it did and what came of it, or a setting or a number
    if (!(FIX_RESULT.test(rest) || FIXED.test(rest) || /\d|[_.=]\w|`/.test(rest) || /^(?:and\s+|so\s+)?(?:we|i)\s+now\b/i.test(c.text))) continue;
    const first = s.slice(0, cs[1]!.start);
    // "cold starts were around 4s; trimming the bundle got them under a second": a number, then its fix
    if (!(isTrouble(first) || CAUSE.test(s.slice(0, cs[Math.min(2, cs.length - 1)]!.start)) || (/\d/.test(first) && FIX_RESULT.test(s)))) return null;
    // one memory of trouble and fix: the whole sentence while it fits a statement, else the fix on
    return { type: "solution", what: s.length <= 160 ? s : rest, base: 0.65, signal: "fix clause", against: false };
  }
  return null;
}

/** The trouble ended by what was done: "the bugs went away once we stored ...". */
const ENDED_BY = /\b(?:went away|disappeared|vanished|stopped|(?:is|are) gone)\s+(?:once|after|when)\s+(?:we|i)\s+[a-z]+ed\b/i;
/** Trouble, in the words of developer talk. */
export const TROUBLE =
  /\b(?:keeps?\s+(?:climbing|growing|increasing|rising|going up)|(?:doesn't|does not|can't|cannot|won't|don't) scale|(?:returns?|returned|shows?|showed|gives?|gave|reports?|reported) (?:the )?wrong|wrong (?:totals?|results?|values?|numbers?|counts?|amounts?)|out of (?:disk|space|inodes)|disk (?:is )?full|(?:grows?|grew|growing|climbs?|leaks?)\s+(?:by\s+)?(?:about |around |roughly |~)?\d[\d.,]*\s?(?:mb|gb|kb|%)\s+(?:an?|per|every)\s+(?:hour|day|minute|request|deploy)|(?:isn't|aren't|wasn't|weren't|didn't|don't|doesn't|stopped|stop)\s+(?:arriv|work|load|start|send|sent|show|render|connect|sync|build|compil|respond|updat|deliver)\w*|mismatch(?:es|ed)?|broke|drops|dropping|disconnect(?:s|ed|ing)?|fail(?:s|ed|ing|ure|ures)?|crash(?:es|ed|ing|looping|loops?)?|broken|breaks|errors?(?!\s+(?:codes?|messages?|handling|handlers?|format|types?|pages?|classes|objects?|boundar\w*|budget))|timeouts?|timing out|times out|time out|timed out|slow(?:er|ly|ness)?|hangs?|hanging|leak(?:s|ed|ing)?|logged out|take(?:s)? forever|took forever|too (?:big|slow|large|long|many)|ooms?|oom(?:ed|killed)|which is (?:bad|terrible|awful|a problem|wrong|risky|dangerous|insecure|not great|not ok)|(?:is|are|get|gets|got|were|was)\s+(?:duplicated|lost|truncated|overwritten|mangled|garbled|double[- ]counted)|bloat(?:ed)?|flak(?:y|iness)|regress(?:ed|ion)|spik(?:e|es|ed)|unusable|stuck|sluggish|laggy|janky|unresponsive|(?:drop|die|disconnect|restart|reset|crash|fail|hang)s?\s+(?:every time|whenever|each time|randomly|constantly|all the time)|(?:loses?|backs? up)\s+(?:(?:their|its|the|all|any)\s+)?(?:[\w-]+\s+){0,2}?(?:every time|whenever|each time)|takes?\s+~?\d+(?:\.\d+)?\s?(?:s|secs?|seconds?|mins?|minutes?|hours?)\s+(?:because|due to|since)|corrupt(?:ed|ion)?|not working|doesn't work|does not work|can't|cannot|rejected|refused|doubled|tripled|\w+ed wrong(?:ly)?|went wrong|stale|freez(?:es|ing)|froze|runs? out of|ran out of|running out of|(?:arrives?|arrived|comes?|came|shows? up|showed up)\s+(?:(?:up to |about |around |over )?(?:\d+|an?|a few|several)\s+\w+\s+)?late|climbs?|creeps? up|gets? killed|got killed|overlap(?:s|ping)? with|overloaded|throttled|out of memory|lags?|lagg(?:ing|ed)|falls? behind|fell behind|falling behind|stall(?:s|ed|ing)?|drift(?:s|ed|ing)?|(?:arrives?|arrived|fires?|fired|runs?|ran|sent|sends?|charged|processed|delivered|shows? up|showed up|triggers?|triggered) (?:twice|two times|multiple times|more than once)|double[- ](?:fired|charged|sent|counted|processed|charges?|bookings?|payments?)|(?:is|are|gets?|got|stays?) locked\b|half the time|collaps(?:es|ed|ing)|degrad(?:es|ed|ing)|plummet(?:s|ed|ing)?|tank(?:s|ed)|(?:is|are) missing|ends? up (?:with|as|in) (?:an? )?(?:empty|blank|zero-byte|corrupt\w*|broken|wrong|missing|duplicate\w*|truncated)|takes? \d+(?:\.\d+)? ?(?:s|secs?|seconds?|mins?|minutes?|hours?) to (?:load|render|respond|start|boot|open|finish|complete|sync)|race conditions?|deadlocks?|silently|(?:hits?|reach(?:es|ed)?|climbs? to|spikes? to)\s+\d+(?:\.\d+)?(?=\s?%)|pil(?:e|es|ed|ing) up|(?:blank|white|empty) (?:screen|page)|chok(?:e|es|ed|ing)|caused by|hit the (?:[\w-]+\s+){0,3}?(?:limit|quota|ceiling)|rate[- ]limit(?:ed)?|adds?\s+(?:about\s+|roughly\s+|around\s+|over\s+|up to\s+|~)?\d[\d.,]*\s?(?:ms|s|secs?|seconds?)\s+to\s+(?:every|each|all)|(?:hours|minutes|days)\s+late|(?<=\b(?:goes|go|went|turns?|turned)\s)(?:yellow|red|unhealthy|offline|read-only)|falls?\s+(?:about\s+|up to\s+|~)?\d[\w.]*\s+(?:seconds?|minutes?|hours?|s|ms)\s+behind|evicts?|overruns?|doubles\s+(?:its|their|in))\b/i;

/**
 * Words one of which every match of TROUBLE holds, lower-cased, read off its alternatives in order
 * ("keep", "scale", "wrong", "out" in out of, logged out and times out, "n't" in isn't and don't,
 * "tim" in timeout, timing, time, times, "%" after "hits 95", "go", "went", "turn" before "red", ...).
 * A sentence holding none is not searched: TROUBLE's first search compiles ~4,000 characters of
 * pattern (~0.6-1.1 ms of a cold hook). No u flag, so its letters match ASCII letters only, which
 * toLowerCase keeps as they are.
 */
export const TROUBLE_HINTS: readonly string[] = [
  "keep", "scale", "wrong", "out", "full", "grow", "grew", "climb", "leak", "n't", "stop", "mismatch", "broke", "drop", "disconnect",
  "fail", "crash", "breaks", "error", "tim", "slow", "hang", "too", "oom", "which is", "duplicated", "lost", "truncated",
  "overwritten", "mangled", "garbled", "bloat", "flak", "regress", "spik", "unusable", "stuck", "sluggish", "lag", "janky",
  "unresponsive", "whenever", "randomly", "constantly", "take", "corrupt", "not work", "cannot", "rejected", "refused", "double",
  "tripled", "stale", "freez", "froze", "late", "creep", "killed", "overlap", "overloaded", "throttled", "behind",
  "drift", "twice", "more than once", "locked", "collaps", "degrad", "plummet", "tank", "missing", "end", "race condition", "deadlock",
  "silently", "%", "pil", "blank", "white", "empty", "chok", "caused by", "limit", "quota", "ceiling", "every", "each", "all", "go",
  "went", "turn", "evict", "overrun",
];

/** Whether a sentence may hold a match of TROUBLE (it holds one of TROUBLE_HINTS). */
export function mayBeTrouble(s: string): boolean {
  const lower = s.toLowerCase();
  return TROUBLE_HINTS.some((h) => lower.includes(h));
}

/**
 * TROUBLE's alternatives in groups of this many (pattern-groups.ts), made at the first need, and
 * searched in its place: its first search compiled all ~4,000 characters (1.5-2.3 ms of a cold
 * hook, a compiled probe), the groups compile for ~1.1 ms all together, and a test stops at the
 * first group that matches (~0.5 ms for a question's hook whose trouble word is in an early group).
 */
const TROUBLE_GROUP = 10;
let troubleGroups: readonly RegExp[] | null = null;
const troubleParts = () => (troubleGroups ??= alternativeGroups(TROUBLE, TROUBLE_GROUP));

/**
 * TROUBLE's first match in `s` (TROUBLE.exec's), searched only when `s` holds a hint: the leftmost
 * of the groups' first matches, the earliest group's on a tie (at one position TROUBLE tries its
 * alternatives in order, so the first group holding one that matches there gives its match).
 * TROUBLE has no capturing groups: the match is its text and position.
 */
export function firstTrouble(s: string): RegExpExecArray | null {
  if (!mayBeTrouble(s)) return null;
  const lower = s.toLowerCase();
  let first: RegExpExecArray | null = null;
  for (const re of troubleParts()) {
    // a group is searched only in a sentence holding one of its words (pattern-words.ts)
    const m = mayMatch(re, lower) ? re.exec(s) : null;
    if (m && (first === null || m.index < first.index)) first = m;
  }
  return first;
}

/** Whether `s` holds trouble: TROUBLE.test behind its hints, the same answer (its groups, pattern-groups.ts). */
export function isTrouble(s: string): boolean {
  if (!mayBeTrouble(s)) return false;
  const lower = s.toLowerCase();
  return troubleParts().some((re) => mayMatch(re, lower) && re.test(s));
}

/**
 * A measure of the system at a level that hurts: "our p99 jumped to 2.4s", "database CPU sits at
 * 90%", "the e2e suite takes 45 minutes on CI", "cold start is 6 seconds". (A limit or a target
 * set on purpose is no trouble: TARGET below.)
 */
const METRIC =
  /\b(?:p9\d|p50|latency|cold starts?|cpu|memory|ram|heap|builds?|deploys?|suite|pipeline|startup|start-up|boot time|load times?|response times?|page loads?|ttfb)\b[^.;]{0,40}?\b(?:is|are|was|were|takes?|took|sits?|sat|jump(?:s|ed)? to|spik(?:e|es|ed) to|climb(?:s|ed)? to|went up to|peaks? at|peaked at|hovers? (?:at|around)|pinned at|stuck at|averages?)\s+(?:at\s+|around\s+|about\s+|over\s+|nearly\s+|~)?\d+(?:\.\d+)?\s?(?:ms|s|secs?|seconds?|minutes?|mins?|hours?|%|gb|mb)(?![\w])/i;
/** A thing that takes minutes or hours: "Our Terraform plans take 20 minutes for the network stack". */
const TAKES_LONG = /\btakes?\s+(?:about\s+|around\s+|over\s+|nearly\s+|almost\s+|~)?\d+(?:\.\d+)?\s?(?:minutes?|mins?|hours?|hrs?)\b/i;
/** Trouble that comes back at a rate: "Kafka consumers rebalance several times an hour". */
const REPEATS = /\btimes\s+(?:an?|per|every)\s+(?:hour|day|week|minute|night)\b|\btwice\s+(?:an?|per)\s+(?:hour|minute)\b|\bevery few (?:minutes|hours|days)\b/i;
/** A rate that is a schedule, not a symptom: "releases happen twice a week". */
const SCHEDULED = /\b(?:happen|happens|deploy|deploys|deployed|ship|ships|release|releases|released|publish|publishes|rotate|rotates|rotated|back(?:ed)? up|backups?|scheduled|syncs?|runs? (?:at|on)|we|i|our team)\b/i;
/** A symptom that goes on: "the consumers keep rebalancing", "it's blocking every merge". */
const ONGOING = /\b(?:keeps?|kept)\s+(?!(?:an? eye|track|in mind|going|trying|working|using|getting|asking|saying|telling|coming back to)\b)(?:re)?[a-z]{3,}ing\b|\b(?:it's|it is|is|are)\s+(?:blocking|killing|hurting|eating)\s+(?:every|our|the|all)\b/i;
/** A number that is a limit, target or setting, not a symptom. */
const TARGET = /\b(?:timeout|ttl|limit|budget|target|goal|max|maximum|min|minimum|interval|window|retention|threshold|slo|sla|should|must|needs? to|under|below|within|fine|ok|okay|acceptable|good enough|expected|normal|fast enough|down from|improved|better)\b/i;

/** A sentence whose subject is a thing (the, our, a plural noun), not a person (I, we, you). */
const TROUBLE_SUBJECT = /^(?!(?:i|we|you|i'm|we're|you're|it|this|that|he|she|they|my|your)\b)(?:the|our|their|some|all|every|most|\p{L}+s|\p{L}+\s+(?:\p{L}+\s+)?\p{L}+(?:s|ies)(?=\s+(?!(?:is|was|says|said|thinks|wants|likes|needs|asked|asks)\b)))\b/iu;

/** Cues that describe how things are (not a choice, a rule or a taste): a cause when said after "because". */
const STATE_CUES: ReadonlySet<RegExp> = new Set([HANDLED, STACK, NOW_STATE, UNIVERSAL, HABIT, HABIT_DONE, HOUSE_IS, ALWAYS_SO, NAMING_CASE]);

/** Whether position `at` lies in a "because/since/due to" clause after a clause of trouble. */
function causeBefore(s: string, at: number): boolean {
  const cause = /\b(?:because|since|due to|as)\s/i.exec(s);
  if (cause === null || cause.index >= at) return false;
  const before = s.slice(0, cause.index + cause[0].length);
  return isTrouble(before) || TAKES_LONG.test(before) || METRIC.test(before);
}

/**
 * Words one of which every match of a cue holds, lower-cased, read off its alternatives: a
 * sentence holding none is not searched with the cue (each compiles on its first search, 0.2-0.5 ms
 * of a cold hook apiece). The patterns have no u flag: their letters match ASCII letters only,
 * which toLowerCase keeps as they are. tests/core/cue-words.test.ts holds each list to its pattern.
 */
export const CUE_WORDS: ReadonlyMap<RegExp, readonly string[]> = new Map<RegExp, readonly string[]>([
  // "from" in from now on, from next week on, from today; "we do" in the way we do it, how we do things
  [RULE, ["rule", "polic", "convention", "standard", "guideline", "style", "naming", "mandatory", "requirement", "exception", "full stop", "negotiable", "from", "going forward", "henceforth", "as of", "effective", "starting", "in this", "in our", "we do", "freeze", "final", "for all", "across"]],
  // "no" in no more, nobody, no one, not allowed, under no circumstances and "please no X in ..."
  [FORBID, ["no", "forbidden", "prohibited", "banned", "must", "never"]],
  // "out" in ripped out, phasing out and "X out, Y in"
  [CHANGE, ["mov", "migrat", "switch", "port", "replac", "swap", "out", "killed", "scrapped", "tore", "shut down", "deleted", "consolidat", "leav", "deprecat", "ditch", "sunset", "retir", "abandon", "dump"]],
  [NOT_CHOOSING, ["not", "n't", "stop", "drop", "ruled out", "rejected", "turned down", "said no", "vetoed"]],
  [NOT_DOING, ["not", "n't", "away", "clear"]],
  // "we" in we'll, we will, we're going to, we are
  [PLAN, ["plan is", "we", "will be", "it is"]],
]);

/** Whether lower-cased `lower` holds one of a cue's words (or the cue has none). */
function mayHoldWords(cue: Cue, lower: string): boolean {
  const words = CUE_WORDS.get(cue.re);
  return words === undefined || words.some((w) => lower.includes(w));
}

const CUES: readonly Cue[] = [
  { type: "decision", re: CHOSE, base: 0.7 },
  { type: "decision", re: ACCEPTED, base: 0.7 },
  { type: "decision", re: ACCEPTED_PLAN, base: 0.7, hint: /plan|approach|proposal|design|option|layout|outline|sketch|draft|your way|you /i },
  { type: "decision", re: RULE, base: 0.65 },
  { type: "preference", re: FORBID, base: 0.7, against: true },
  { type: "preference", re: LIKE, base: 0.65, needsTopic: true },
  { type: "preference", re: STANDING, base: 0.6 },
  { type: "preference", re: PREFER_OVER, base: 0.65, needsTopic: true, hint: /prefer/i },
  { type: "decision", re: MUST, base: 0.6 },
  { type: "decision", re: CONTRAST, base: 0.6, needsSpecific: true },
  { type: "decision", re: NOT_CHOOSING, base: 0.65, against: true },
  { type: "decision", re: END_SUPPORT, base: 0.65 },
  { type: "decision", re: NEVER_RULE, base: 0.65, needsTopic: true },
  { type: "decision", re: NOT_DOING, base: 0.6, against: true, needsTopic: true },
  { type: "decision", re: HOW_WE, base: 0.6, needsTopic: true },
  { type: "decision", re: NOTE, base: 0.6, needsSpecific: true },
  { type: "decision", re: TAKE, base: 0.6, needsKnown: true },
  { type: "decision", re: PLAN, base: 0.6, needsKnown: true },
  { type: "decision", re: CANONICAL, base: 0.65 },
  { type: "decision", re: KEEP_PLAN, base: 0.6, needsTopic: true },
  { type: "decision", re: CHANGE, base: 0.6, needsSpecific: true },
  { type: "decision", re: NOW_STATE, base: 0.6, needsKnown: true },
  { type: "decision", re: HANDLED, base: 0.6, needsKnown: true },
  { type: "decision", re: STACK, base: 0.6, needsKnown: true },
  { type: "decision", re: UNIVERSAL, base: 0.6 },
  { type: "decision", re: WE_EVERYWHERE, base: 0.6, needsTopic: true, hint: /everywhere|across|in all|in every|for all|for every/i },
  { type: "decision", re: HABIT, base: 0.6, needsTopic: true, hint: /\b(?:follow|look|sit|live|go|get|are)\b/i },
  { type: "decision", re: HABIT_DONE, base: 0.6, needsSpecific: true, hint: /\bare\b/i },
  { type: "decision", re: HOUSE_PRACTICE, base: 0.6, needsTopic: true, hint: / in (?:this|our) /i },
  { type: "decision", re: ALWAYS_SO, base: 0.6, needsSpecific: true, hint: / always /i },
  { type: "decision", re: HOUSE_IS, base: 0.6, needsSpecific: true, hint: / in (?:this|our) /i },
  { type: "decision", re: ONLY_OR_STICK, base: 0.6, needsTopic: true, hint: /only|stick|stay|keep/i },
  { type: "decision", re: NAMING_CASE, base: 0.6, needsTopic: true, hint: /case|singular|plural/i },
  { type: "decision", re: ONLY_WHEN, base: 0.6, needsTopic: true, hint: / only /i },
  { type: "decision", re: GETS_NEW, base: 0.6, needsKnown: true, hint: /getting|exposing|serving|publishing|shipping|offering/i },
];

/** A state that passes ("CI is slow today", "failed once but passed on retry, all good"): no problem to keep. */
export const PASSING = /\b(?:(?<!from |as of )today|tonight|right now|at the moment|all good|on retry|back to normal|false alarm|never ?mind|seems? to)\b/i;

/** Not a statement to keep, whatever its cue words: a maybe, someone still deciding, progress, the past, a passing state. */
const NOT_KEPT =
  /\b(?:any idea|no (?:decision|consensus|agreement|idea|conclusions?)|not yet|thinking (?:about|of)|tonight|watching it|keep(?:ing)? an eye|looks? (?:fixed|good|fine|ok)|seems? fixed|regret(?:ted)?|right now|at the moment|will take a while|brb|all good|on retry|back to normal|false alarm|never ?mind|seems? to|leaning (?:towards?|to)|need to think|not sure|still (?:investigating|looking|debugging|checking|waiting|working on)|investigating|looking into|digging into|let me (?:check|look|dig|see|investigate|find out|figure out)|no root cause|going out now|in progress|wip|todo|used to|back in|back then|in the past|we tried|once we(?!\s+[a-z]+ed\b)|what if|if we|when we (?:get|have)|try (?:to|increasing|adding|using)|you could|you can|one option|an option)\b/i;

/** A plan of the speaker's just before a word: "we'll", "I'm going to", "let's", "we plan to" (one adverb between). */
const PLANNED_ACT = /(?:\b(?:we|i)(?:'ll|\s+will|'re going to|\s+are going to|'m going to|\s+am going to|\s+plan to|\s+intend to|\s+want to)|\blet(?:'s|\s+us))\s+(?:[a-z]+ly\s+|also\s+|then\s+|just\s+|first\s+)?$/i;

/** A pasted error line: "Error: connect ECONNREFUSED ...", "TypeError: x is undefined". */
const ERROR_LINE = /^\s*(?:[\w .-]{1,40}:\s*)?(?:[A-Z]\w*)?(?:Error|Exception|Warning|FATAL|ERROR|WARN|PANIC|panic)\b\s*:/;

/** Cues a negation before them undoes: "the team hasn't agreed", "we never decided". */
const UNDONE_BY_NEGATION: ReadonlySet<RegExp> = new Set([CHOSE, RULE, LIKE]);

/** Output the assistant gives: a standing instruction about it is a preference, not a task. */
const OUTPUT = /\b(?:(?:pr|pull request|commit|merge request) (?:descriptions?|messages?|titles?)|answers?|explanations?|responses?|replies|examples?|snippets?|comments?|summaries|summary|summari[sz]e|output|code blocks?|bullet points?|diffs?|patch(?:es)?|(?:whole|full|entire) files?)\b/i;
/** A step asked for before every report of work done: a standing instruction whatever the task. */
const BEFORE_REPORT = /\bbefore (?:you (?:tell|say|report|claim|mark|call|declare)|telling|saying|reporting|claiming|marking|calling|declaring)\b[^.;]{0,40}\b(?:done|finished|complete|ready|works|fixed|passes)\b/i;
/** The language the user wants answers in: "Reply in French", "answer in German please". */
const LANGUAGE =
  /^(?:please\s+|pls\s+)?(?:always\s+)?(?:reply|answer|respond|write|talk|speak)\s+(?:to me\s+)?in\s+(?:english|german|french|spanish|italian|portuguese|dutch|polish|swedish|danish|norwegian|finnish|czech|turkish|greek|japanese|chinese|korean|russian|ukrainian|hindi|arabic|hebrew)\b(?!\s+or\b)/i;
/** Words that make an instruction standing rather than for now. */
const STANDING_WORDS = /\b(?:when(?:ever)? you|by default|always|never|every time|in general|from now on|short|shorter|concise|brief|terse|skip|without|no more|don't|do not)\b/i;

/**
 * A request that is a standing instruction about the assistant's output ("keep explanations
 * short, skip the basics", "give me TypeScript examples by default"): the preference it states.
 */
export function standingInstruction(s: string): CueReading | null {
  const lower = s.toLowerCase();
  // (each searched only in a sentence holding one of its words: pattern-gate.ts)
  const found = (re: RegExp) => mayMatch(re, lower) && re.test(s);
  if (found(NOT_KEPT)) return null;
  // "Answer in German please, but keep identifiers in English": the language of every answer
  if (found(LANGUAGE)) return { type: "preference", what: s, base: 0.65, signal: "language", against: false };
  // "run the linter before telling me something is done": a check asked for before any report
  if (found(BEFORE_REPORT)) return { type: "preference", what: s, base: 0.6, signal: "standing instruction", against: false };
  if (!found(OUTPUT) || !STANDING_WORDS.test(s)) return null;
  return { type: "preference", what: s, base: 0.6, signal: "standing instruction", against: false };
}

/** A clause: the parts of a sentence between its commas, semicolons, colons, dashes and arrows. */
function clauses(s: string): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  const BREAK = /\s*(?:[,;:—–→]|\s-\s|->|=>|\bbc\b|\bbecause\b|\bso\b)\s*/gi;
  let at = 0;
  for (let m = BREAK.exec(s); m; m = BREAK.exec(s)) {
    if (m[0].length === 0) {
      BREAK.lastIndex++;
      continue;
    }
    out.push({ text: s.slice(at, m.index), start: at, end: m.index });
    at = m.index + m[0].length;
  }
  out.push({ text: s.slice(at), start: at, end: s.length });
  return out.filter((c) => c.text.trim().length > 0);
}

const CONTENT_WORD = /[\p{L}\p{N}][\p{L}\p{N}'._/-]*/gu;
const POINTER = /^(?:and\s+)?(?:that|this|it)(?:'s| is| was)?\b|^(?:agreed|settled|decided|final|no exceptions|solved|fixed|resolved)\b/i;

/** The clause that holds what the cue is about: a known name's clause near the cue, else the cue's own (a pointer like "that is the rule now" leans on its neighbour). */
function clauseOf(s: string, cueAt: number, ctx: CueContext, type: SignalType, contrast = false, label = false): string {
  const cs = clauses(s);
  if (cs.length === 1) return s;
  let i = Math.max(0, cs.findIndex((c) => cueAt >= c.start && cueAt <= c.end + 1));
  // "Consensus in the arch meeting: event sourcing only for the ledger": a lead names what follows
  const lead = label && s.slice(cs[i]!.end).trimStart().startsWith(":") && i + 1 < cs.length;
  if (lead) {
    // "The way we do it here: feature folders, not layer folders": all that follows the colon
    if (type !== "solution" && type !== "problem") return s.slice(cs[i + 1]!.start);
    i++;
    label = false;
  }
  // "Instead of cron on the box, jobs are scheduled with Temporal": the other clause is the choice
  else if (contrast && cueAt <= cs[i]!.start + 1) {
    const other = cs.find((c, j) => j !== i && ctx.at.some((p) => p >= c.start && p < c.end)) ?? cs[i + 1] ?? cs[i - 1];
    if (other) return other.text;
  }
  if (type === "solution") {
    // the fix: after "by", else the clause that says what was done
    const by = /\bby\s+/i.exec(s.slice(cueAt));
    if (by) return s.slice(cueAt + by.index + by[0].length);
    // the fix's own clause: the one nearest before the cue ("..., since nginx capped X; raising it fixed it")
    const act = cs.filter((c) => c.start <= cueAt).reverse().find((c) => ACTION.test(c.text)) ?? cs.find((c) => ACTION.test(c.text));
    // "setting it to 3600 fixed the duplicates": "it" is named in another clause, keep them all
    if (act && /^\s*(?:and\s+)?[a-z]+(?:ing|ed)\s+(?:it|them|that|this)\b/i.test(act.text)) return s;
    return act ? act.text : s;
  }
  if (type === "problem") return s;
  const holds = (c: { start: number; end: number }) => ctx.at.some((p) => p >= c.start && p < c.end);
  // "Secrets are rotated every 90 days, enforced by the vault policy": a label in a later clause
  // names the kind of statement; the statement is the first clause
  if (label && i > 0 && !holds(cs[i]!)) {
    const first = cs.find(holds) ?? cs[0]!;
    // "Also, we landed on ULIDs ...": a lone filler before the cue is no statement
    if ((first.text.match(CONTENT_WORD) ?? []).length >= 2) return first.text;
  }
  const own = cs[i]!;
  const words = (own.text.match(CONTENT_WORD) ?? []).length;
  if (holds(own) || (words >= 4 && !POINTER.test(own.text.trim()))) return own.text;
  const after = cs.slice(i + 1).find(holds);
  const before = cs.slice(0, i).reverse().find(holds);
  const near = after ?? before ?? (i > 0 ? cs[i - 1] : cs[i + 1]);
  return near ? near.text : own.text;
}

/** A name written as one: Capitalised or in capitals (Karpenter, Handlebars, SES), not a day, a month or a language. */
const NAME = /(?<=^|[\s(/"'])(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|English|German|French|Spanish|I)\b)(?:\p{Lu}[\p{Ll}\p{N}]+(?:\p{Lu}[\p{Ll}\p{N}]*)*|\p{Lu}{2,}[\p{Ll}\p{N}]*)\b/u;

/**
 * Whether a name follows a cue of the stack ("runs on", "uses", "is templated with"): the thing a
 * team uses is named after the verb, its people before it ("Maria uses ..."). Names the
 * vocabulary does not know are most of the tools people name (Karpenter, Handlebars, Unleash).
 */
function namedAfter(s: string, from: number): boolean {
  return NAME.test(s.slice(from));
}

/** METRIC, ONGOING, FIX_RESULT, TAKES_LONG and REPEATS in one pass over a sentence (most sentences hold none of them). */
export const SYMPTOM_OR_RESULT = new RegExp([METRIC, ONGOING, FIX_RESULT, TAKES_LONG, REPEATS].map((r) => `(?:${r.source})`).join("|"), "i");
/**
 * Words one of which every match of SYMPTOM_OR_RESULT holds, lower-cased: a digit (METRIC and
 * TAKES_LONG need a number), "tim", "twice", "every" (REPEATS), "keep", "kept", "blocking", ...
 * (ONGOING), "smooth", "even", "run", "pass", "gone", ... (FIX_RESULT). A sentence holding none is
 * not searched (its first search compiles ~2,500 characters of pattern). No u flag: ASCII letters only.
 */
export const SYMPTOM_OR_RESULT_HINTS: readonly string[] = [
  "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "tim", "twice", "every", "keep", "kept", "blocking", "killing", "hurting", "eating",
  "smooth", "even", "run", "pass", "gone", "fine", "stable", "got", "stopped", "away", "disappeared", "match", "brought",
  "took", "back",
];

/** Whether a sentence may hold a match of SYMPTOM_OR_RESULT (it holds one of its hints). */
export function mayBeSymptomOrResult(s: string): boolean {
  const lower = s.toLowerCase();
  return SYMPTOM_OR_RESULT_HINTS.some((h) => lower.includes(h));
}

/**
 * Whether a sentence holds any cue word at all: most sentences hold none, and finding their
 * names (the entity finder) costs more than all the cue patterns.
 */
export function mayHoldCue(s: string): boolean {
  const lower = s.toLowerCase();
  // each pattern searched only in a sentence holding one of the words it cannot match without
  // (pattern-words.ts): a sentence with no cue compiled some thirty of them
  const found = (re: RegExp) => mayMatch(re, lower) && re.test(s);
  if (found(NOT_KEPT)) return false;
  // a cause alone is common ("because ..."): only with a fix clause after it (troubleThenFix)
  return (mayBeFixed(s) && found(FIXED)) || isTrouble(s) || (mayBeSymptomOrResult(s) && found(SYMPTOM_OR_RESULT)) || found(LANGUAGE) || (found(CAUSE) && troubleThenFix(s) !== null) || (s.includes("from") && found(CUT_FROM_TO)) || found(OUTPUT) || found(BEFORE_REPORT) || CUES.some((c) => mayHoldWords(c, lower) && (!c.hint || found(c.hint)) && found(c.re)) || /^(?:the|our|all|every)\s/i.test(s) || standingFailure(s) !== null;
}

/**
 * "We pin X so a retagged action can't change our builds", "We run migrations in their own job so
 * a failed one doesn't take the app down": a present practice of ours (group 1), then what it keeps
 * from happening, said with a negation
 */
const GUARDED_PRACTICE =
  /^((?:we|our team|the team)\s+(?:always\s+|now\s+|deliberately\s+)?(?!(?:were|was|had|got|did|went|ran|forgot|broke|left|lost|saw|tried|found)\b)[a-z]+(?<!ed)\b[^;:]{3,140}?)\s*,?\s+(?:so(?:\s+that)?|to (?:avoid|prevent|stop|make sure)|in case)\s+(?=[^;]*\b(?:can't|cannot|won't|doesn't|does not|don't|do not|never|no longer|not|avoid|prevent|stop)\b)/i;

/** The patterns searched through pattern-gate.ts mayMatch: scripts/gen-pattern-words.ts reads their words at build time. */
export function wordGatedPatterns(): RegExp[] {
  return [NOT_KEPT, FIXED, SYMPTOM_OR_RESULT, LANGUAGE, CAUSE, CUT_FROM_TO, OUTPUT, BEFORE_REPORT, ...CUES.flatMap((c) => (c.hint ? [c.hint, c.re] : [c.re])), ...troubleParts()];
}

/**
 * Read a sentence by its cue words: what it states, or null. `s` is one sentence that the trigger
 * phrases found nothing in, already past the question and request guards.
 */
export function readCues(s: string, ctx: CueContext): CueReading | null {
  if (NOT_KEPT.test(s)) return null;
  const specific = ctx.known || CODE_TOKEN.test(s);
  // a fix with the trouble it fixes (or what was done) comes first: "…, solved"
  const fixed = FIXED.exec(s);
  // "Workaround for the Safari date bug: pass ISO strings": a fix named as one needs no word of trouble
  if (fixed && (isTrouble(s) || ACTION.test(s) || ENDED_BY.test(s) || /^workaround\b/i.test(fixed[0]) || (FIXED_BY.test(s) && (specific || devTalk(s))))) {
    return { type: "solution", what: clauseOf(s, fixed.index, ctx, "solution"), base: 0.65, signal: fixed[0].toLowerCase(), against: false };
  }
  const fix = troubleThenFix(s);
  if (fix) return fix;
  // "The export returns an empty file whenever the name has an ampersand": a standing problem whose
  // trouble is in what the thing gives, with no word of trouble (read before the habit cues, which
  // would keep it as how the thing works)
  if (standingFailure(s) && (s.match(CONTENT_WORD) ?? []).length >= 5) return { type: "problem", what: s, base: 0.55, signal: "standing failure", against: false };
  const lower = s.toLowerCase();
  for (const cue of CUES) {
    if (!mayHoldWords(cue, lower) || (cue.hint && !cue.hint.test(s))) continue;
    const m = cue.re.exec(s);
    if (!m) continue;
    if ((cue.needsSpecific && !specific) || (cue.needsKnown && !ctx.known && !namedAfter(s, m.index + m[0].length)) || (cue.needsTopic && !specific && !devTalk(s))) continue;
    // "the team hasn't agreed on ...", "we never decided": a negation just before undoes it
    // ("not going with Firebase" is a choice against, read by NOT_CHOOSING further down)
    // "Safari users get logged out after every deploy": trouble, not a practice
    // ("Error messages look like garbage in the console today": a passing state, no practice)
    const habit = cue.re === HABIT || cue.re === HABIT_DONE;
    if (habit && (troubleInPredicate(s, m) || PASSING.test(s))) continue;
    // "Payments are duplicated in the ledger": a participle of trouble is no state of the stack
    if (STATE_CUES.has(cue.re) && !habit && isTrouble(m[0])) continue;
    // "The compile step takes 14 minutes because the build cache is disabled on CI": a state said as
    // the cause of trouble is part of the problem, not a decision
    if (STATE_CUES.has(cue.re) && causeBefore(s, m.index)) continue;
    if (UNDONE_BY_NEGATION.has(cue.re) && negatedBefore(s.slice(Math.max(0, m.index - 30), m.index))) {
      if (NOT_CHOOSING.test(s)) continue;
      return null;
    }
    // "the insurance policy PDF", "the standard green", "at the PyData convention": the rule's noun in another sense
    if (cue.re === RULE && ruleNounElsewise(s, m)) continue;
    // "I love this": a taste for what was just said is no preference to keep
    if (cue.re === LIKE && /^\s*(?:this|that|it|these|those)\b/i.test(s.slice(m.index + m[0].length))) return null;
    let type = cue.type;
    let against = Boolean(cue.against);
    // "Dockerfiles go in the service folder, never at the root": the practice and its ban are one statement
    if (against && isHousePractice(s)) return { type: "decision", what: s, base: cue.base, signal: "house practice", against: false };
    // "the payments service must never log card numbers": a subject's rule, kept as said
    // "nobody should run migrations from a laptop": the rule names who it binds, kept as said
    // "Docker image tags look like <service>-<sha>, never latest": a rule said of a kind of thing, the team's
    // "The ledger code doesn't get an ORM, ever": a thing's rule, said with the thing as subject
    if (against && ((m.index > 0 && FORBID_RULE.test(m[0])) || HABIT.test(s) || (cue.re === NOT_DOING && m.index === 0 && !/^(?:we|i|the team)\b/i.test(s)) || /^(?:nobody|no one|no-one)\b/i.test(m[0]) || (/^no\s/i.test(m[0]) && !/\b(?:please|pls|i|me|my)\b/i.test(s)))) {
      type = "decision";
      against = false;
    }
    // "yes, do it the way you suggested: a tenant_id column": what was accepted follows the colon
    // "Feature folders, not layer folders, is how this codebase is organised": the practice is all of it
    if (habit) return { type, what: clauseOf(s, m.index, ctx, type), base: cue.base, signal: "house practice", against };
    if (cue.re === HOW_WE) return { type, what: s, base: cue.base, signal: m[0].trim().toLowerCase(), against: false };
    if (cue.re === ACCEPTED_PLAN) return { type, what: s.slice(m[0].length), base: cue.base, signal: "accepted", against: false };
    if (cue.re === ACCEPTED) return { type, what: s.includes(":") ? s.slice(s.indexOf(":") + 1) : s, base: cue.base, signal: "accepted", against: false };
    return { type, what: clauseOf(s, m.index, ctx, type, cue.re === CONTRAST, cue.re === RULE || cue.re === CHOSE || cue.re === NOTE || cue.re === ACCEPTED), base: cue.base, signal: m[0].trim().toLowerCase() || type, against };
  }
  // "The analytics pipeline is Kafka → Flink → ClickHouse": a thing of ours said to be a known one
  for (const m of s.matchAll(/^(?:the|our|all|every|(?!(?:this|that|it|he|she|they|there|what|who|which|here)\b)[\w.-]+)\s+(?:[\w.-]+\s+){0,4}?(?:is|are)\s+/gi)) {
    if (ctx.at.includes(m.index + m[0].length)) return { type: "decision", what: s, base: 0.6, signal: "is", against: false };
  }
  // "please keep explanations short, skip the basics": a standing instruction about the output
  const standing = standingInstruction(s);
  if (standing) return standing;
  // a problem: trouble with a subject that names something specific
  const trouble = firstTrouble(s) ?? ONGOING.exec(s) ?? (TARGET.test(s) ? null : (METRIC.exec(s) ?? TAKES_LONG.exec(s))) ?? (TROUBLE_SUBJECT.test(s) && !SCHEDULED.test(s) ? REPEATS.exec(s) : null);
  // (or a thing of the trade that is the subject: "the checkout page freezes for a few seconds",
  // not "I'm stuck on the login bug": a person's state is no problem to keep)
  const words = (s.match(CONTENT_WORD) ?? []).length;
  const thingFails = words >= 6 && TROUBLE_SUBJECT.test(s) && (devTalk(s) || namedAfter(s, 1));
  // "Next sprint we'll spike both Tauri and Electron", "I'll fail over the primary": the speaker's plan, the word its verb
  if (trouble && PLANNED_ACT.test(s.slice(Math.max(0, trouble.index - 40), trouble.index))) return null;
  if (trouble && !ERROR_LINE.test(s) && ((specific && words >= 5) || thingFails)) {
    // "We pin every action to a SHA so a retagged action can't break our builds": the trouble is
    // what the practice keeps away, the practice is the decision
    const practice = troubleKeptAway(s, trouble.index);
    if (practice) return { type: "decision", what: practice, base: 0.6, signal: "practice against trouble", against: false };
    return { type: "problem", what: s, base: 0.55, signal: trouble[0].toLowerCase(), against: false };
  }
  return null;
}
