// The phrases capture listens for. Every pattern is case-insensitive, anchored on words, and
// linear: alternations of fixed words, and every free run is bounded ({1,80}) or stops at a
// character it cannot contain.

export type SignalType = "decision" | "preference" | "problem" | "solution";

export interface Trigger {
  type: SignalType;
  re: RegExp;
  /**
   * Words one of which every match holds, lower-cased, read off the pattern's alternatives: a
   * sentence holding none is not searched (each pattern compiles on its first search; the 66 took
   * ~2 ms of a cold hook on a statement). No pattern here has the u flag: its letters match ASCII
   * letters only, which toLowerCase keeps. tests/core/trigger-words.test.ts holds each list to its pattern.
   */
  words?: readonly string[];
  /** Confidence before rationale, alternatives and entities are counted. */
  base: number;
  /** "don't use X": the object is what is argued against. */
  against?: boolean;
  /** "never commit secrets": the object keeps the trigger's negation ("never commit secrets"). */
  keepTrigger?: boolean;
  /** Only a decision when the object names a known entity (weak wording: "we use X"). */
  needsEntity?: boolean;
  /** The capture group holding an alternative ("from X to", "replace X with"). */
  altGroup?: number;
  /** The object is the clause around the trigger (a problem: "offset pagination times out"). */
  wholeClause?: boolean;
  /** Strong enough to stand after a request ("fix the tests, we decided to use Vitest"). */
  strong?: boolean;
  /** The capture group holding the object, written before the trigger ("pinning Node 20 fixed it"). */
  subjectGroup?: number;
  /** Worded as a rule for any project (Use X, Always, Never, Avoid), not a team's own choice. */
  rule?: boolean;
  /** "From now on, ...": the words mark a policy; the statement is the rest of the clause. */
  policy?: boolean;
  /** Only when the object names something of the vocabulary (a word spelled like a name is not enough). */
  needsKnown?: boolean;
}

const USE_VERBS = "use|go with|adopt|switch to|move to|migrate to|stick with|stay with|keep using|standardi[sz]e on|settle on|rely on|pick|choose";

export const DECISION_TRIGGERS: Trigger[] = [
  { type: "decision", re: new RegExp(`\\blet(?:'s| us)\\s+(?:just\\s+|definitely\\s+|simply\\s+|now\\s+)?(?:${USE_VERBS})\\s+`, "i"), words: ["let"], base: 0.7, strong: true },
  {
    type: "decision",
    re: /\b(?:i|we)(?:'ve| have)?\s+(?:finally\s+|already\s+|just\s+|now\s+)?(?:decided|chosen|chose|picked|selected|opted|settled|agreed)\s+(?:(?:to\s+(?:use|go with|adopt|switch to|move to|migrate to|stick with|standardi[sz]e on)|on\s+using|on|for|upon|with|that\s+(?:we|i)(?:'ll| will| should)\s+use)\s+)?/i,
    words: ["decided", "chose", "picked", "selected", "opted", "settled", "agreed"], base: 0.75,
    strong: true,
  },
  { type: "decision", re: /\b(?:i|we)(?:'ve| have)?(?:'re| are)?\s+(?:went|gone|going|sticking|staying)\s+with\s+/i, words: ["with"], base: 0.7, strong: true },
  {
    type: "decision",
    re: new RegExp(`\\b(?:i|we)(?:'ll| will|'re going to| are going to|'re gonna| are gonna| shall)\\s+(?:${USE_VERBS})\\s+`, "i"),
    words: ["ll", "going", "gonna"], base: 0.65,
    strong: true,
  },
  { type: "decision", re: /\b(?:the\s+)?(?:final\s+|team(?:'s)?\s+)?(?:decision|consensus|verdict)\s*(?:is|was|:)\s+(?:made\s+to\s+|to\s+(?:use\s+|go with\s+)?|that\s+we(?:'ll| will)?\s+use\s+)?/i, words: ["decision", "consensus", "verdict"], base: 0.8, strong: true },
  // said without a subject, as in chat: "Switching to pnpm for all packages", "Going with Postgres", "Settled on Zod"
  { type: "decision", re: /^(?:switching|moving|migrating|porting)\s+(?:over\s+)?to\s+/i, words: ["switching", "moving", "migrating", "porting"], base: 0.65, needsEntity: true, strong: true },
  { type: "decision", re: /^(?:going|sticking|staying)\s+with\s+/i, words: ["with"], base: 0.65, needsEntity: true, strong: true },
  { type: "decision", re: /^(?:settled|decided|agreed|standardi[sz]ed)\s*(?:on\s+|upon\s+|:\s*)/i, words: ["settled", "decided", "agreed", "standardi"], base: 0.7, strong: true },
  { type: "decision", re: /^(?:convention|policy|rule|team rule|standard|guideline)\s*:\s*/i, words: [":"], base: 0.7, strong: true },
  // a choice kept: "we'll stay on Node 20", "we are keeping MySQL"
  { type: "decision", re: /\b(?:we|i)(?:'ll| will|'re| are| am|'m)?\s+(?:stay(?:ing)?\s+(?:on|with)|keep(?:ing)?|remain(?:ing)?\s+on)\s+(?!(?:an? eye|track|in mind|it|this|that|them|going|trying|looking)\b)/i, words: ["stay", "keep", "remain"], base: 0.6, needsEntity: true, strong: true },
  { type: "decision", re: /\bstandardi[sz](?:e|ed|ing)\s+on\s+/i, words: ["standardi"], base: 0.7, strong: true },
  {
    type: "decision",
    re: /\b(?:switch|switched|switching|migrate|migrated|migrating|move|moved|moving|port|ported|porting)\s+(?:(?:everything|it|over|the\s+[\w-]+(?:\s+[\w-]+)?)\s+)?from\s+([^,;]{1,80}?)\s+(?:over\s+)?to\s+/i,
    words: ["from"], base: 0.7,
    altGroup: 1,
    needsEntity: true,
    strong: true,
  },
  {
    type: "decision",
    re: /\b(?:we|i|let's)\s+(?:(?:have|'ve|just|already|finally|now)\s+)*(?:switched|migrated|moved|switching|migrating|moving)\s+(?:over\s+)?to\s+/i,
    words: ["switch", "migrat", "mov"], base: 0.65,
    needsEntity: true,
    strong: true,
  },
  { type: "decision", re: /\breplac(?:e|ed|ing)\s+([^,;]{1,80}?)\s+with\s+/i, words: ["replac"], base: 0.65, altGroup: 1, needsEntity: true },
  // "we swapped ESLint and Prettier for Biome"
  { type: "decision", re: /\b(?:we|i|they|team)\s+(?:have\s+|'ve\s+|just\s+)?swap(?:ped|ping)?\s+([^,;]{1,80}?)\s+(?:for|with)\s+/i, words: ["swap"], base: 0.65, altGroup: 1, needsEntity: true, strong: true },
  // a change under way with any subject: "Deployments are switching to Argo CD", "we're moving to X"
  {
    type: "decision",
    re: /\b(?:is|are|'re|am|'m|were|have|'ve|has)\s+(?:now\s+|finally\s+|officially\s+)?(?:switching|moving|migrating|porting|switched|moved|migrated)\s+(?:(?!on\b|back\b)[\w-]+\s+){0,3}?(?:over\s+)?to\s+/i,
    words: ["switch", "mov", "migrat", "port"], base: 0.65,
    needsEntity: true,
    strong: true,
  },
  // "we're adopting Sentry", "we're standardizing on Temporal"
  { type: "decision", re: /\b(?:we|i|the team)(?:'re| are| am|'m| will be|'ll be)\s+(?:now\s+|officially\s+)?(?:adopting|introducing|rolling out|standardi[sz]ing on)\s+/i, words: ["adopting", "introducing", "rolling", "standardi"], base: 0.7, needsEntity: true, strong: true },
  // a version chosen: "we're bumping React to 18.3", "let's upgrade Node to 22 LTS"
  {
    type: "decision",
    re: /\b(?:(?:we|i)(?:'re| are|'ll| will|'ve| have)?|let(?:'s| us))\s+(?:now\s+|just\s+)?(?:upgrad(?:e|ed|ing)|bump(?:ed|ing)?|pinn?(?:ed|ing)?|mov(?:e|ed|ing))\s+(?=[^,;.]{1,40}?\s+(?:to|at|on)\s+v?\d)/i,
    words: ["upgrad", "bump", "pin", "mov"], base: 0.7,
    needsEntity: true,
    strong: true,
  },
  // "we're upgrading to Node 22", "we moved to Kotlin 2.0": the name and its version after "to"
  {
    type: "decision",
    re: /\b(?:we|i)(?:'re| are|'ll| will|'ve| have)?\s+(?:now\s+|finally\s+|officially\s+)?(?:upgrad(?:e|ed|ing)|bump(?:ed|ing)?|mov(?:e|ed|ing))\s+(?:everything\s+|all\s+)?to\s+(?=[^,;.]{0,30}?\bv?\d)/i,
    words: ["upgrad", "bump", "mov"], base: 0.7,
    needsEntity: true,
    strong: true,
  },
  // moved X off Y to Z
  { type: "decision", re: /\b(?:moved?|moving|migrat(?:e|ed|ing))\s+(?:[\w-]+\s+){0,3}?off\s+([^,;]{1,60}?)\s+(?:over\s+)?(?:to|onto|into)\s+/i, words: ["off"], base: 0.7, altGroup: 1, needsEntity: true, strong: true },
  // present state stated as settled: "CI is now on GitHub Actions", "Uploads are stored in S3", "jobs run on BullMQ"
  { type: "decision", re: /\b(?:is|are)\s+now\s+(?:on|in|using|built with|hosted on|running on|done with|handled by)\s+/i, words: ["now"], base: 0.6, needsEntity: true },
  {
    type: "decision",
    re: /\b(?:is|are|will be|'ll be|gets?|is being|are being)\s+(?:always\s+|only\s+)?(?:stored|kept|hosted|deployed|written|built|implemented|rewritten|handled|served|managed|validated|generated|run)\s+(?:in|on|with|by|through|via|using)\s+/i,
    words: ["stored", "kept", "hosted", "deployed", "written", "built", "implemented", "handled", "served", "managed", "validated", "generated", "run"], base: 0.6,
    needsEntity: true,
  },
  // "Application logs are kept for 30 days", "Database credentials are rotated every 90 days": a
  // kind of thing handled on a standing schedule or for a set time is the team's policy (said in the
  // present; "the index is being rebuilt" and "were kept" are not)
  {
    type: "decision",
    // (matched as a look-ahead at the start: the whole statement is what is kept)
    re: /^(?=(?!(?:it|this|that|my|your)\b)[^,;:]{3,80}?\b(?:is|are)\s+(?!being\b)(?:\w+\s+)?(?:kept|retained|deleted|purged|rotated|rebuilt|refreshed|backed up|reviewed|bumped|archived|renewed|reindexed|re-indexed|synced|scanned|audited|patched|snapshotted|exported)\s+(?:for\s+(?:\d+|one|two|three|six|seven|thirty|ninety)\s+(?:days?|weeks?|months?|years?)|every\s+|after\s+(?:\d+|one|two|three|seven|thirty)\s|(?:nightly|weekly|daily|monthly|hourly|quarterly|yearly)\b|once\s+a\s))/i,
    words: ["kept", "retained", "deleted", "purged", "rotated", "rebuilt", "refreshed", "backed up", "reviewed", "bumped", "archived", "renewed", "indexed", "synced", "scanned", "audited", "patched", "snapshotted", "exported"],
    base: 0.6,
  },
  // "Transactional email goes out through Postmark", "The admin tools sit behind Cloudflare Access": where a kind of thing goes or sits, plainly
  { type: "decision", re: /\b(?:go|goes|will go|will run|will live|sits?|sitting)\s+(?:out\s+)?(?:only\s+|always\s+)?(?:on|in|through|to|via|behind)\s+(?=[^,;.?]{1,60}?(?:\bnow\b|[.,;]|$))/i, words: ["go", "run", "live", "sit"], base: 0.55, needsEntity: true },
  // the project's stack stated as it is: "the notifications service uses RabbitMQ", "our jobs run on BullMQ"
  {
    type: "decision",
    re: /^(?:our|the|all|all of our|every|each|both)\s+(?:[\w.-]+\s+){0,5}?(?:uses|use|is using|are using|runs on|run on|runs in|run in|lives in|live in|is hosted on|are hosted on|is deployed (?:on|to)|are deployed (?:on|to)|is built (?:on|with)|are built (?:on|with)|is backed by|are backed by|stores? (?:its |their )?data in|talks? to|goes through|go through)\s+/i,
    words: ["use", "using", "run", "live", "hosted", "deployed", "built", "backed", "data", "talk", "through"], base: 0.6,
    needsEntity: true,
    needsKnown: true,
  },
  // "Redis is our cache", "Cloudflare is the team's CDN": a role given to a known thing
  { type: "decision", re: /\b(?:is|are)\s+(?:now\s+)?(?:our|the team's)\s+(?:new\s+|default\s+|main\s+|primary\s+|only\s+|standard\s+|go-to\s+|single\s+)?/i, words: ["our", "team"], base: 0.6, wholeClause: true, needsEntity: true, needsKnown: true },
  // "Postgres over Mongo for anything relational": a choice written without its verb
  { type: "preference", re: /^(?=[\w.+#/-]+(?:\s+[\w.+#/-]+){0,2}\s+over\s+(?!\d)[\w.+#/-])/i, words: ["over"], base: 0.65, needsEntity: true, needsKnown: true, rule: true },
  // a convention, a rule, a policy stated as such: "our convention is snake_case", "by convention ..."
  {
    type: "decision",
    re: /\b(?:our|the|my|team's|the team's)\s+(?:[\w-]+\s+){0,2}?(?:convention|rule|policy|standard|guideline|default)\s+(?:here\s+)?(?:is|:)\s*(?:that\s+|to\s+)?|\b(?:our|the)\s+(?:[\w-]+\s+){0,2}?(?:convention|rule|policy)\s*:\s*|^by convention,?\s+/i,
    words: ["convention", "rule", "policy", "standard", "guideline", "default"], base: 0.7,
    strong: true,
  },
  // a policy from now on: the statement is the clause that holds the words
  { type: "decision", re: /\b(?:from now on|going forward|from here on(?: out)?|moving forward|as of (?:today|now|(?:this|next) (?:week|sprint|month|release))|starting (?:today|now|immediately|(?:this|next) (?:week|sprint|month|release))|from (?:this|next|the next) (?:week|sprint|month|quarter|release) on)\b/i, words: ["from", "forward", "as of", "starting"], base: 0.7, wholeClause: true, strong: true, policy: true },
  // a decision named with any subject: "the team agreed on GraphQL", "Infra agreed: Terraform for everything"
  {
    type: "decision",
    re: /\b(?:the\s+)?(?:team|teams|infra|ops|platform|backend|frontend|everyone|we all|management|leadership|architecture)(?:\s+(?:team|group|folks|review))?\s+(?:has\s+|have\s+)?(?:finally\s+)?(?:decided|agreed|settled|chose|picked|voted)\s*(?:on\s+using\s+|to\s+(?:use\s+|go with\s+|adopt\s+)?|on\s+|upon\s+|that\s+|for\s+|:\s*)/i,
    words: ["decided", "agreed", "settled", "chose", "picked", "voted"], base: 0.75,
    strong: true,
  },
  { type: "decision", re: /\b(?:is|are|was|'s)\s+(?:now\s+)?(?:settled|decided|final|agreed)\s*:\s*/i, words: [":"], base: 0.75, strong: true },
  // a negative decision: "we won't use MongoDB", "we're not going to adopt GraphQL", "we decided against X"
  {
    type: "decision",
    re: /\b(?:we|i|the team|our team|our [\w-]+ team)(?:\s+|(?=['’]))(?:won't|will not|(?:are|'re|am|'m)\s+not\s+going\s+to|aren't going to|are not|'re not|am not|'m not|aren't|(?:do|does)(?:n't| not)|decided not to|agreed not to|chose not to)\s+(?:ever\s+)?(?:be\s+)?(?:use|using|adopt|adopting|introduce|introducing|move to|moving to|switch to|switching to|migrate to|migrating to|go with|going with|go|going|cache|caching|add|adding|store|storing|run|running|support|supporting|ship|shipping)\s+/i,
    words: ["n't", "not"], base: 0.7,
    against: true,
    strong: true,
  },
  { type: "decision", re: /\b(?:we|i|the team)\s+(?:have\s+|'ve\s+)?(?:decided|voted|settled|agreed)\s+against\s+/i, words: ["against"], base: 0.75, against: true, strong: true },
  // "Rather than polling the provider, we receive their webhooks"
  {
    type: "decision",
    re: /^(?:rather than|instead of)\s+([^,]{1,80}),\s*(?=(?:we|i|our\s+[\w-]+|the\s+[\w-]+)\s+(?!(?:could|might|may|should|would|can)\b))/i,
    words: ["rather", "instead"], base: 0.65,
    altGroup: 1,
    strong: true,
  },
  { type: "decision", re: /\bwe(?:'re| are)\s+(?:now\s+|currently\s+)?using\s+/i, words: ["using"], base: 0.55, needsEntity: true },
  {
    type: "decision",
    re: /\bwe\s+(?:always\s+|now\s+|only\s+)?(?:deploy|host|build|run|test|store|keep|put|send|route|write|manage|handle|ship|bundle|lint|format|package|monitor|log|cache|queue|schedule|authenticate|style|index|search|render|serve|compile|generate|validate|encrypt|hash|sign|track|trace|parse|sync|stream|publish|process|transform|load|import|export|back up|replicate|proxy|resize|compress)\s+(?:[\w-]+\s+){0,3}?(?:with|on|using|via|in|through|to)\s+/i,
    words: ["we"], base: 0.55,
    needsEntity: true,
  },
  { type: "decision", re: /\bwe\s+(?:now\s+|only\s+|mainly\s+|mostly\s+)?use\s+/i, words: ["use"], base: 0.55, needsEntity: true },
  { type: "decision", re: /\b(?:we|you)\s+should\s+(?:always\s+|definitely\s+)?use\s+/i, words: ["should"], base: 0.55, needsEntity: true },
  // imperative "Use X for Y" as a statement of a rule (the sentence has to name something known)
  { type: "decision", re: /^(?:(?:from now on|going forward|in general|generally|by default),?\s+)?use\s+/i, words: ["use"], base: 0.6, needsEntity: true, rule: true },
  // "let's migrate Webpack to Vite", "we'll switch the admin app to Vite": the target named after "to"
  {
    type: "decision",
    re: /\b(?:let(?:'s| us)|(?:we|i)(?:'ll| will|'re going to| are going to))\s+(?:now\s+|just\s+)?(?:switch|migrate|move|port)\s+(?!(?:on|back|over|forward|ahead|away|off|from)\b)(?:[\w.-]+\s+){1,4}?(?:over\s+)?to\s+(?!v?\d)/i,
    words: ["switch", "migrat", "move", "port"], base: 0.65,
    needsEntity: true,
    strong: true,
  },
  // "we ended up using Playwright for e2e", "we ended up with a monorepo"
  { type: "decision", re: /\b(?:i|we|the team)(?:'ve| have)?\s+(?:finally\s+|eventually\s+)?ended\s+up\s+(?:using|with|going with|choosing|picking|adopting|on)\s+/i, words: ["ended"], base: 0.7, needsEntity: true, strong: true },
];

export const PREFERENCE_TRIGGERS: Trigger[] = [
  {
    type: "preference",
    re: /\b(?:i|we)\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|always\s+|much\s+|do\s+|still\s+)?prefer(?:s|red)?\s+(?:to\s+use\s+|to\s+|using\s+)?/i,
    words: ["prefer"], base: 0.7,
    strong: true,
  },
  { type: "preference", re: /\b(?:i|we)(?:'d| would)\s+(?:much\s+|really\s+)?(?:rather|prefer(?:\s+to)?)\s+(?:use\s+|go with\s+|have\s+)?/i, words: ["rather", "prefer"], base: 0.65, strong: true },
  { type: "preference", re: /^(?:(?:from now on|going forward|in general|generally),?\s+)?prefer\s+(?:using\s+)?/i, words: ["prefer"], base: 0.7, strong: true, rule: true },
  { type: "preference", re: /\b(?:always|consistently)\s+(?:use|prefer|choose|pick|go with)\s+/i, words: ["always", "consistently"], base: 0.75, strong: true, rule: true },
  {
    type: "preference",
    re: /\b(?:never|don't|do not|dont|shouldn't|should not|won't|will not|can't|cannot|must not|mustn't)\s+(?:ever\s+)?(?:use|using|pick|choose|introduce|rely on|add)\s+/i,
    words: ["never", "n't", "not", "dont"], base: 0.75,
    against: true,
    strong: true,
    rule: true,
  },
  { type: "preference", re: /\b(?:i|we)\s+(?:don't|do not|never)\s+want\s+to\s+(?:use|see|add)\s+/i, words: ["want"], base: 0.7, against: true, strong: true },
  { type: "preference", re: /\b(?:avoid|avoiding|stop using|quit using)\s+/i, words: ["avoid", "using"], base: 0.7, against: true, strong: true, rule: true },
  // "no more Jenkins jobs", "no new code in CoffeeScript": the team stops doing a thing, a change of course
  { type: "decision", re: /(?:^|[,;:—–]\s*|\b(?:so|and|then)\s+)no (?:more|new)\s+/i, words: ["no more", "no new"], base: 0.7, against: true, strong: true },
  { type: "decision", re: /\b(?:stopped using|no longer use|moved away from|got rid of|dropped(?!\s+(?:from|to|by|below|under)\s+~?\d)|ditched|deprecated|(?:we|i)(?:'re| are)\s+(?:dropping|removing|phasing out|sunsetting|deprecating|retiring))\s+(?:support\s+for\s+)?/i, words: ["stopped", "longer", "away", "rid", "dropp", "ditched", "deprecat", "removing", "phasing", "sunsetting", "retiring"], base: 0.7, against: true, needsEntity: true },
  {
    type: "preference",
    re: /(?:^|[,;:]\s*|\b(?:we|you|i|should|must|please|to)\s+)always\s+(?!(?:be|been|is|was|were|has|had|the|a|an|seems?|did|does|do|use|prefer|choose|pick|go with|in|on|at|when|after|before|during|with|for|from|because|the same|there|here)\b)/i,
    words: ["always"], base: 0.7,
    strong: true,
    rule: true,
  },
  {
    type: "preference",
    // "we'll never store card numbers" is the same rule; "since we never closed the streams" is a past fact, no rule
    re: /(?:^|[,;:]\s*|\b(?:we|you|i|should|please|we'll|we\s+will)\s+)never\s+(?!(?:be|been|is|was|were|has|had|the|a|an|seems?|did|does|do|worked|works|got|use|using|pick|choose|introduce|rely on|add|ever)\b)(?!(?!(?:embed|need|feed|seed|speed|proceed|exceed|succeed)\b)[a-z]+ed\b)/i,
    words: ["never"], base: 0.7,
    against: true,
    keepTrigger: true,
    strong: true,
    rule: true,
  },
  { type: "preference", re: /\b(?:i|we)\s+(?:really\s+)?(?:like|love)\s+(?:using\s+)?/i, words: ["like", "love"], base: 0.55, needsEntity: true },
  { type: "preference", re: /\bmy\s+(?:personal\s+|strong\s+|general\s+)?(?:preference|rule of thumb)\s*(?:is|:)\s*(?:to\s+(?:use\s+)?|that\s+)?/i, words: ["preference", "thumb"], base: 0.7, strong: true },
  { type: "preference", re: /\b(?:i|we)\s+(?:do|really|always|definitely)\s+want\s+(?!(?:you|to\s+(?:know|see|understand|try|look|check|ask|hear|learn))\b)/i, words: ["want"], base: 0.65, strong: true },
  // "don't ever force push to main": the rule keeps its words
  { type: "preference", re: /^(?:please\s+)?(?:don't|do not|dont)\s+ever\s+/i, words: ["ever"], base: 0.75, against: true, keepTrigger: true, strong: true, rule: true },
];

export const PROBLEM_TRIGGERS: Trigger[] = [
  {
    type: "problem",
    re: /\b(?:the|one|a|our|main|real|root|big|biggest|only)\s+(?:[\w-]+\s+)?(?:issue|problem|bug|blocker|bottleneck|cause|root cause|challenge)\s+(?:is|was|here is|seems to be|turned out to be)\s+(?:that\s+)?/i,
    words: ["issue", "problem", "bug", "blocker", "bottleneck", "cause", "challenge"], base: 0.6,
  },
  // "Root cause of the missing invoices: the handler acked before writing"
  { type: "problem", re: /^(?:the\s+)?root cause(?:\s+of\s+[^:;]{1,80})?\s*:\s*(?=\S)/i, words: [":"], base: 0.6 },
  { type: "problem", re: /\b(?:blocked|blocking)\s+(?:by|on)\s+/i, words: ["block"], base: 0.6, wholeClause: true },
  // a cost past a threshold: "cold starts are over 3 seconds", "the build takes more than 20 minutes"
  {
    type: "problem",
    re: /\b(?:is|are|was|were|takes?|took|hits?|spikes?\s+to|grows?\s+to|grew\s+to|jumped\s+to)\s+(?:over|more than|above|nearly|almost|well over)\s+\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds?|minutes?|mins?|hours?|[kmg]b|%)(?![\w])/i,
    words: ["over", "more", "above", "nearly", "almost"], base: 0.55,
    wholeClause: true,
  },
  { type: "problem", re: /\bthere(?:'s| is| are)\s+(?:an?\s+|some\s+)?(?:race conditions?|deadlocks?|memory leaks?|leaks?|regressions?|bugs?|off-by-one)\b/i, words: ["there"], base: 0.6, wholeClause: true },
  {
    type: "problem",
    re: /\b(?:keeps?|kept)\s+(?:failing|crashing|timing out|hanging|breaking|leaking|throwing|dropping|flaking)\b|\b(?:fails|failed|failing|crashes|crashed|crashing|times out|timed out|timing out|hangs|leaks|leaking|deadlocks?|deadlocked|gets? oom[\s-]?killed|(?:gets?|got|getting|is being|are being)\s+(?:oom[\s-]?killed|throttled|evicted)|is broken|are broken|was broken|doesn't work|does not work|isn't working|is not working|aren't working|stopped working|won't start|won't compile|can't connect|cannot connect|runs out of memory|ran out of memory)\b|\b(?:is|are|was|were)\s+(?:really\s+|very\s+|too\s+|extremely\s+)?(?:slow|flaky|unstable|unreliable)\b|\bcaus(?:e|es|ed|ing)\s+(?:[\w-]+\s+){0,2}(?:timeouts?|errors?|crashes|failures?|outages?|deadlocks?|leaks?|bugs?|downtime|data loss|race conditions?|flakiness|problems|issues)\b/i,
    words: ["keep", "kept", "fail", "crash", "tim", "hang", "leak", "deadlock", "oom", "throttled", "evicted", "broken", "work", "start", "compile", "connect", "memory", "slow", "flaky", "unstable", "unreliable", "caus"], base: 0.55,
    wholeClause: true,
  },
  { type: "problem", re: /\b(?:returns?|returned|returning|responds? with|responded with|throws?|threw|gives?|gave)\s+(?:an?\s+)?(?:[45]\d\d|errors?|null|undefined|nan|garbage|stale data)\b/i, words: ["return", "respond", "throw", "threw", "give", "gave"], base: 0.55, wholeClause: true },
  {
    type: "problem",
    re: /\b(?:getting|get|got|seeing|see|hitting|hit|throws|threw)\s+(?:an?\s+|the\s+|this\s+)?(?:[\w-]+\s+)?(?:error|exception|timeout|crash|panic|segfault|oom)s?\b/i,
    words: ["error", "exception", "timeout", "crash", "panic", "segfault", "oom"], base: 0.55,
    wholeClause: true,
  },
  // a standing overrun or exposure, said with no trouble word: "the batch exceeds its four-hour window on
  // month-end", "the runner token can write to the registry, so any compromised job can push images"
  { type: "problem", re: /\b(?:exceeds|overruns|overshoots)\s+(?:its|the|our|their)\s+(?:[\w-]+\s+){0,2}(?:window|limit|budget|quota|sla|slo)\b/i, words: ["exceeds", "overruns", "overshoots"], base: 0.55, wholeClause: true },
  { type: "problem", re: /\bso (?:that )?(?:any|an?|one)\s+(?:compromised|malicious|rogue|stolen|leaked)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:can|could)\b|\bso an attacker (?:can|could)\b/i, words: ["compromised", "malicious", "rogue", "stolen", "leaked", "attacker"], base: 0.55, wholeClause: true },
];

export const SOLUTION_TRIGGERS: Trigger[] = [
  {
    type: "solution",
    re: /\b(?:fixed|solved|resolved|worked around|addressed)\s+(?:(?:it|this|that|the\s+(?:[\w-]+\s+){0,2}(?:issue|problem|bug|error|crash|leak|timeouts?|failures?))\s+)?by\s+/i,
    words: ["fixed", "solved", "around", "addressed"], base: 0.7,
  },
  { type: "solution", re: /\bthe\s+(?:fix|solution|workaround|answer|trick|cure)\s*(?:is|was|:)\s+(?:to\s+)?/i, words: ["fix", "solution", "workaround", "answer", "trick", "cure"], base: 0.7 },
  { type: "solution", re: /\b(?:to fix (?:it|this|that)|the way to fix (?:it|this))\s*[,:]?\s*/i, words: ["fix"], base: 0.65 },
  { type: "solution", re: /(?:^|[;:]\s*)(?:fix|workaround|solution):\s*/i, words: [":"], base: 0.7 },
  {
    type: "solution",
    re: /(?:^|[;:—]\s*|,\s*(?:so\s+|and\s+|then\s+)?)((?:[^,;:(]|\([^()]{0,60}\)){3,160}?)(?<!\b(?:we|i|they|you|he|she|someone|finally|just|that|this|which|who|it))\s+(?:(?:and\s+)?(?:that|this|which)\s+)?(?:(?:fixed|solved|resolved|cleared|cured|fixes|solves)\s+(?:it|this|that|them|the\s+(?:[\w-]+\s+)?(?:issue|problem|bug|error|crash|leak|timeout|lag)s?)\b|(?:brought|took|cut|got|reduced)\s+(?:it|this|that|them)\s+(?:down\s+)?(?:from|to)\s+\d)/i,
    words: ["fix", "solv", "cleared", "cured", "brought", "took", "cut", "got", "reduced"], base: 0.65,
    subjectGroup: 1,
  },
];

/** Whether lower-cased `lower` holds one of a trigger's words (or the trigger has none). */
export function mayMatch(t: Trigger, lower: string): boolean {
  return t.words === undefined || t.words.some((w) => lower.includes(w));
}

// --- the parts of a sentence after its trigger ----------------------------------------------

export type MarkerKind = "why" | "alt" | "tradeoff";

export interface Marker {
  kind: MarkerKind;
  re: RegExp;
  /** Only after a verb of choosing (chose X over Y) / of preferring (prefer X to Y, rather X than Y). */
  only?: "chooser" | "prefer";
}

const MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december";

export const MARKERS: Marker[] = [
  { kind: "alt", re: /\s*\b(?:instead of|rather than|in place of|as opposed to|versus|vs\.?)\s+/gi },
  { kind: "alt", re: /\s*(?:,|;|—|–|\s-)\s*(?:and\s+|but\s+)?not\s+(?!(?:only|just|because|since|to|that|sure|yet|all|really|always|a|an)\b)/gi },
  {
    kind: "alt",
    re: /\s+over\s+(?!(?:the\s+)?(?:network|wire|internet|time|years?|months?|weeks?|days?|http|https|ssh|tcp|udp|tls|websockets?|a|an)\b)/gi,
    only: "chooser",
  },
  { kind: "alt", re: /\s+(?:than|to)\s+(?=\S)/gi, only: "prefer" },
  {
    kind: "why",
    re: new RegExp(
      `\\s*,?\\s*\\b(?:because(?:\\s+of\\b)?|since(?!\\s+(?:\\d|then|yesterday|last|v\\d|version|when|before|after|early|late|${MONTHS})\\b)|due to|so that|in order to|given(?:\\s+that)?|as\\s+(?=(?:it|they|we|this|that|its|their|it's)\\b)|the reason (?:is|being)|which means|thanks to|for\\s+(?=(?:its|their|the sake of|better|faster|simpler|easier|stronger|lower|higher|less|more)\\b))\\s*`,
      "gi",
    ),
  },
  {
    kind: "tradeoff",
    re: /\s*[,;]?\s*\b(?:but|although|though|even though|even if|despite|at the (?:cost|expense) of|with the (?:downside|tradeoff|trade-off|caveat) (?:of|that)|the (?:downside|tradeoff|trade-off|catch|cost|caveat) (?:is|being)|(?:downside|tradeoff|trade-off|caveat)s?:|however|except that|which costs)\s+/gi,
  },
];

/** Words that make a rule out of a statement: it is meant beyond this moment. */
export const BOOSTERS = /\b(?:from now on|going forward|always|never|remember(?: that)?|important|rule:|as a rule|in general|by default|must)\b/i;
/** Words that make a statement less sure. */
export const HEDGES = /\b(?:i think|i guess|i believe|probably|for now|for the time being|tentatively|temporarily|kind of|sort of|i suppose|for this one|just this once)\b/i;
/** A hypothetical before the trigger: not a decision yet. */
export const HYPOTHETICAL =
  /\b(?:if|what if|suppose|supposing|assuming|imagine|hypothetically|maybe|perhaps|might|could|would|wonder|wondering|(?<!after\s)considering|consider|(?:i'm|i am|we're|we are|been|was|were|still)\s+thinking (?:about|of)|not sure|unsure|whether|in case|potentially|possibly|ideally|option|alternatively|in (?:a|an ideal|a perfect|an alternate|a parallel) world|with (?:unlimited|infinite) (?:budget|time|money|resources)|given (?:unlimited|infinite))\b/i;
/** A negation before the trigger: "we didn't decide to use X". */
export const NEGATED = /\b(?:not|didn't|did not|don't think|do not think|haven't|have not|hasn't|has not|won't|no longer|nobody|no one|never)\b/i;
/** ", not Stripe,": a thing set against the chosen one, bounded by commas; its "not" negates nothing after it. */
const CONTRASTED = /(?:^|[,;(—–])\s*not\s+[^,;.()—–]{1,40}[,;)—–]/gi;

/** Whether the words before a trigger negate it ("we didn't decide"), not counting a contrast like ", not Stripe,". */
export function negatedBefore(prefix: string): boolean {
  return NEGATED.test(prefix) && NEGATED.test(prefix.replace(CONTRASTED, " "));
}

/** A constraint: a limit the choice has to respect. */
export const CONSTRAINT =
  /\b(?:must(?:n't| not)?|has to|have to|needs? to|required to|cannot|can't|at least|at most|no more than|max(?:imum)? of|min(?:imum)? of|only on|only if|(?:up to|under|below|within|less than|fewer than|limited to)(?=\s+[~<]?\d))\b|\bconstraints?:\s*/gi;

/** A question by its words, when its question mark is missing. */
export const QUESTION_START =
  /^(?:(?:should|shall|could|can|would|will|do|does|did|is|are|was|were|have|has|am)\s+(?:we|i|you|they|it|this|that|there|the|he|she|anyone|someone)\b|(?:does|did|is|are|should|shall)\s+(?!not\b)[\w.+#-]+(?:'s)?\s+\w|(?:any|some|no)\s+(?:idea|clue|thoughts?)\s+(?:why|how|what|where|when|whether|if|on)\b|(?:what|why|how|which|who|whom|whose)\b(?!\s+(?:we|i)\s+(?:decided|chose|agreed|settled)))/i;

/** Words before a sentence that carry nothing ("ok, so ..."). */
export const INTERJECTIONS = /^(?:(?:ok|okay|so|now|alright|all right|hey|hi|well|great|thanks|thank you|cool|also|and|then|next|btw|fyi|note|remember|just so you know|for the record|keep in mind)(?:\s+that)?[,!.:;-]?\s+)+/i;

/** A request to the assistant: a task for now, not knowledge for later. */
export const REQUEST =
  /^(?:please\s+|pls\s+|plz\s+|kindly\s+)?(?:(?:can|could|would|will)\s+you\b|(?:i|we)\s+(?:want|need|would like|'d like|wanna|would love)\s+(?:you|claude)\s+to\b|(?:help me|let me know|tell me|show me|give me|remind me|remind us|pull up|look up|dig up|explain|walk me through|go ahead|try to|make sure|don't forget to|do not forget to|be sure to|feel free to|take a look|have a look)\b|[a-z]+\s+(?:me|us)\s+(?:through|how|why|what|which|where|whether)\b|let(?:'s| us)\s+(?:just\s+|first\s+)?(?:look|start|try|debug|check|see|do|begin|focus|continue|take|figure|find|run|fix|write|add|test|get|work|think|dig|investigate|review|go over|go through|pair|wait|pause|revisit|discuss|talk)\b|(?:refactor|fix|add|implement|create|write|update|remove|delete|rename|run|build|test|check|debug|investigate|look|review|make|change|move|convert|generate|install|deploy|set up|setup|clean up|cleanup|optimize|improve|document|find|search|read|open|commit|push|merge|rewrite|port|migrate|upgrade|bump|revert|undo|continue|start|stop(?!\s+using)|finish|summarize|analyze|profile|benchmark|switch|replace|drop|split|extract|rework|redo|modify|edit|adjust|tweak|format|lint|print|list|show|give|get|fetch|download|upload|send|call|configure|enable|disable|wire|hook|integrate|translate|simplify|clarify|describe|compare|evaluate|research|plan|draft|design|prepare|verify|ensure|handle|scaffold|bootstrap|init|initialize|sync|retry|rerun)\b)/i;

/** A polite rule is still a rule: "please always use pnpm". */
export const POLITE_RULE =
  /^(?:please|pls|kindly|make sure(?: to| that you| you)?|be sure to|remember to|don't forget to|do not forget to)\s+(?=(?:always|never|don't|do not|avoid|prefer|stop using|use|no)\b)/i;

/** "Because X, we chose Y": a rationale before the trigger. */
export const LEADING_WHY = /^(?:because(?:\s+of\b)?|since|as|given(?:\s+that)?|due to)\s+([^,]{3,200}),\s*/i;

/** "X keeps timing out, so let's ...": the problem before is the reason. */
export const SO_BEFORE = /(?:,\s*|\s+)(?:so|therefore|thus|hence|which is why|that's why|and so)\s*,?\s*$/i;

/** A sentence that only gives the reason for the one before it. */
export const RATIONALE_SENTENCE = /^(?:because(?:\s+of\b)?|that's because|this is because|it's because|the reason (?:is|was|being)(?:\s+that)?|reason:|since)\s+/i;
/** A sentence that only names the cost of the one before it. */
export const TRADEOFF_SENTENCE = /^(?:(?:the\s+)?(?:downside|tradeoff|trade-off|catch|caveat|cost)(?:\s+is|\s+being|:)|but|however|although|though)\s*,?\s*/i;
/** A follow-up that argues for something after arguing against ("don't use var, use const"). */
export const POSITIVE_AFTER_AGAINST =
  /(?:[,;:—–]|\s-|\.)\s*(?:but\s+|and\s+|instead\s*,?\s*|rather\s*,?\s*)?(?:always\s+)?(?:use|prefer|go with|choose|pick|stick with|switch to)\s+|\s+(?:and|but)\s+(?:use|prefer)\s+|\s+in favou?r of\s+|\s+and\s+(?:put|added|adopted|moved to|switched to|went with|replaced (?:it|them) with)\s+/i;

/** Someone not deciding yet, or someone else's view: "I'm still thinking about it", "Tom thinks we should". */
export const UNDECIDED =
  /\b(?:still (?:thinking|deciding|considering|evaluating|weighing|undecided)|haven't (?:decided|made up|agreed)|have not (?:decided|made up|agreed)|hasn't agreed|has not agreed|nothing(?:'s| is) agreed|no agreement|not (?:yet )?decided|nothing(?:'s| is) decided|undecided|before (?:deciding|we decide|we choose)\b|not (?:sure|convinced|sold)(?: yet)?|we'll (?:decide|see)|we will (?:decide|see)|to be decided|tbd|let's see|nothing(?:'s| is)? settled|not settled|back and forth|not sure i agree|on the fence|torn between|will decide|decide (?:after|later|once|when|then)|(?:trying|try|tried) to (?:decide|choose|pick)|deciding between|(?:rather not|not going to|don't want to|do not want to) decide|(?:will|'ll) (?:pick|choose) (?:in|after|once|when|next|later|between|one)\b|no (?:decision|call) (?:until|before|till)|flip[- ]?flop\w*|(?:there's|there is|wrote up|writing up|drafting|drafted)\s+an?\s+(?:proposal|rfc|adr)|(?:feedback|comments?) (?:due|by|welcome)|(?:won't|will not|aren't|are not|'re not) (?:be )?deciding|deciding (?:after|later|once|when|until)|nobody has made a call|no one has made a call|(?:need|needs|have|has) to (?:decide|choose|pick)|(?:will|'ll|going to|gonna) (?:evaluate|assess|explore|look into|consider|discuss|decide)|still open|open for (?:comments|discussion|feedback)|up for (?:discussion|debate)|at some point|some ?day|one of these days|should probably|(?:we|i)\s+should\s+(?:talk|chat|think|discuss|have a (?:chat|talk|look))\b|nothing(?:'s| is)? (?:decided|agreed|committed|final)|(?:can't|cannot|can not|couldn't) decide|(?:an? )?(?:draft|open) (?:rfc|proposal|adr)|no (?:decisions?|choices?|conclusions?|picks?|calls?)(?: (?:(?:is|are|was|has been) )?(?:made|reached|taken))? ?(?:yet|so far)|(?:an|one|just an) idea for (?:later|the future|someday)|no conclusions|(?:haven't|have not|hasn't|has not|not) (?:yet )?committed to|without (?:an answer|a decision|a conclusion|agreement|deciding)|leaning (?:towards?|to)|(?:never|nobody|no one|no-one)\s+(?:(?:ever|really|actually|formally|officially|properly)\s+)?(?:decided|agreed|settled|picked|made (?:a|the) (?:call|decision))|(?:want|wants|'d like) to hear (?:from|what)|no promises)\b/i;
/** The view is another's, reported: "Kent says always ...", "the blog post argues ...". */
export const REPORTED =
  /\b(?:says|said(?! yes\b)|thinks|argues|argued|(?<!\b(?:the|a|an|our|their|your|my|its|all|new|open|pending|insurance|expense|warranty|of|for|with|and)\s)claims|claimed|insists|insisted|recommends|recommended|suggests|suggested|seems to (?:love|like|think)|according to|(?:docs?|documentation|guide|readme|spec|rfc|article|post|manual|handbook)\s+(?:states?|stated|reads?|mentions?)|keeps? (?:saying|telling|insisting|pushing for)|(?:people|they|some|others|folks|everyone|many)\s+(?:say|think|argue|claim|recommend|suggest))\b/i;
/**
 * Words one of which every match of REPORTED / UNDECIDED holds, lower-cased, read off their
 * alternatives: the guards run on every sentence of a statement, and a sentence holding none is
 * not searched (each compiles on its first search, ~0.2 ms of a cold hook apiece). No u flag:
 * toLowerCase keeps the ASCII letters they match. tests/core/guard-words.test.ts holds each list.
 */
export const REPORTED_WORDS: readonly string[] = ["say", "said", "think", "argu", "claim", "insist", "recommend", "suggest", "seems", "according", "state", "read", "mention", "telling", "pushing"];
// "decid" in decided, undecided, deciding, decide; "see" in we'll see, let's see; "call" in made a call; "should" in should probably;
// "nothing" in nothing agreed / committed / final; "commit" in haven't committed to; "rfc" in a draft RFC
export const UNDECIDED_WORDS: readonly string[] = [
  "still", "decid", "made up", "sure", "convinced", "sold", "see", "tbd", "settled", "forth", "fence", "torn", "call", "choose", "pick", "evaluate", "assess",
  "explore", "look into", "consider", "discuss", "up for", "some point", "someday", "some day", "these days", "should", "agree",
  "nothing", "no decision", "no choice", "no conclusion", "commit", "idea for",
  "without", "leaning", "hear", "promises", "flip", "proposal", "rfc", "adr", "feedback", "comment",
];
const holdsOne = (s: string, words: readonly string[]) => {
  const lower = s.toLowerCase();
  return words.some((w) => lower.includes(w));
};
/** REPORTED.test, searched only in a sentence holding one of REPORTED_WORDS. */
export const reported = (s: string): boolean => holdsOne(s, REPORTED_WORDS) && REPORTED.test(s);
/** UNDECIDED.test, searched only in a sentence holding one of UNDECIDED_WORDS. */
export const undecided = (s: string): boolean => holdsOne(s, UNDECIDED_WORDS) && UNDECIDED.test(s);
/** A credential handed over for a task, not a decision ("use this token for the test"). */
export const CREDENTIAL =
  /\[REDACTED:[\w-]+\]|\b(?:token|api[ -]?key|access key|secret key|password|passphrase|credentials?|bearer|private key|ssh key|aws key|username and password|test account|login details|(?:this|that|these|those|my|the following)\s+(?:keys?|pats?|secrets?)|pats?|client (?:id|secret)s?|(?:the|a) (?:secret|cookie|key)s? (?:i|you|we|they) (?:sent|shared|gave|posted|pasted)|(?:admin|session|auth) cookie|service account key)\b|\bas\s+\$?[A-Za-z][A-Za-z0-9_]*_(?:TOKEN|KEY|SECRET|PASSWORD|PASS|PAT)\b/i;
/** A task on the code at hand ("use Redis to cache the result of this function"): for now, not for later. */
export const DEICTIC_TASK =
  /\b(?:this|that|these|those|the following|the above)\s+(?:function|file|method|class|component|endpoint|test|query|script|module|line|lines|snippet|code|case|handler|loop|call|page|view|route|result)s?\b|\bfor (?:this|that) one (?:run|time|test|job|build|deploy|migration|import|release|ticket|task)\b|\bfor (?:this|the) (?:spike|prototype|demo|poc|proof of concept|hotfix|experiment)\b/i;

/** Words asking for a statement to be kept: "remember that ...", "for the record: ...". */
export const REMEMBER_LEAD =
  /^(?:(?:please\s+)?(?:remember|keep in mind|bear in mind|note for the future|make a note|for the record|just so you know|for future reference|worth remembering)(?:\s+that)?\s*[,:;-]?\s+)(?!(?:to|how|what|why|when|where|which|who|if|whether|me|us|you|him|her|them)\b)/i;
/** A statement closed as settled: "..., that's settled", "..., and that's not changing". */
export const SETTLED_TAIL =
  /[,;:—–-]\s*(?:and\s+)?(?:that|this|it)(?:'s| is)\s+(?:settled|final|decided|agreed|not changing|not going to change|non-negotiable|not up for debate)\s*[.!]*$/i;
/** A statement the remember/settled readings keep whole. */
export const STATED: Trigger = { type: "decision", re: /^/, base: 0.75, strong: true };
/** A rule worded as one ("never ...", "always ...", "use ..."): read as a rule, not a statement. */
export const RULE_START = /^(?:always|never|don't|do not|avoid|prefer|use|stop using|no more)\b/i;
/** A wh-clause that is the subject of a statement, not a question: "How we handle retries is settled: ...". */
/**
 * "What we ended up with is a nightly snapshot", "What I want from every PR is a test plan": a
 * wh-clause of the team's or the user's own choice or need, as the subject of a statement.
 */
export const CLEFT =
  /^which\s+(?:[\w-]+\s+){1,2}?(?:we|the team)\s+(?:use|run|chose|picked|went with|settled on|standardi[sz]ed on)\b(?:\s+(?!(?:is|was)\b)[\w'-]+){0,4}?\s+(?:is|was)\s+(?!(?:not|still|unclear|why|how|what|whether|if|up|open|tbd)\b)(?=\S)|^how\s+(?:we|the team)\s+(?:always\s+|now\s+)?[\w'-]+(?:\s+(?!(?:is|was)\b)[\w'-]+){0,4}?\s+(?:is|was)\s+(?=(?:with|through|by|via|using)\b)|^what\s+(?:i|we|the team)\s+(?:really\s+|finally\s+|eventually\s+|always\s+)?(?:ended up (?:doing|with|using|going with|choosing|picking)|settled (?:on|into|for)|decided(?: on)?|chose|picked|agreed(?: on)?|went with|landed on|use|do|run|need|want|prefer|like|expect|care about|committed to)\b(?:\s+(?!(?:is|was)\b)[\w'-]+){0,4}?\s+(?:is|was)\s+(?!(?:not|still|unclear|why|how|what|whether|if)\b)(?=\S)/i;
export const WH_SUBJECT =
  /^(?:what|why|how|which|who|where|when)\s+(?:[\w'-]+\s+){1,7}?(?:(?:is|was|are)\s+(?:settled|decided|final|agreed|simple|clear|that|this)\b\s*:?\s*|(?:is|was)\s+(?=(?:that|to)\b))|^(?:what|why|how|which)\s+[^:?]{3,80}?:\s+(?=\S)/i;
