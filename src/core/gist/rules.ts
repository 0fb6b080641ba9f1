// The word lists behind gists. Every rule only deletes words or swaps a phrase for a shorter one
// that means the same; no list here may contain a negation or a number word (tests check).

/** Words that carry a negation or a restriction: never removed, never inside a rewritten phrase. */
export const NEGATIONS: ReadonlySet<string> = new Set([
  "not", "no", "never", "none", "nor", "neither", "nobody", "nothing", "nowhere", "cannot", "without",
  "unless", "except", "instead", "only", "avoid", "avoids", "avoided", "lack", "lacks", "lacking", "fail", "fails", "failed",
  "refuse", "refuses", "refused", "stop", "stopped", "don't", "dont", "doesn't", "didn't", "won't", "wouldn't", "shouldn't",
  "can't", "couldn't", "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't", "mustn't", "needn't", "ain't",
]);

/** n't in any spelling (don’t with a typographic apostrophe too). */
export function isNegation(lower: string): boolean {
  return NEGATIONS.has(lower) || /n['’]t$/.test(lower);
}

/** Numbers written as words: a gist keeps them like digits. */
export const NUMBER_WORDS: ReadonlySet<string> = new Set([
  "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
  "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
  "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "hundreds", "thousand", "thousands", "million", "millions",
  "billion", "billions", "trillion", "dozen", "dozens", "half", "halves", "quarter", "twice", "thrice", "double", "triple",
  "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "twentieth", "hundredth",
  "thousandth", "millionth", "once", "single", "pair", "couple", "percent", "ninetieth", "ninety-ninth",
]);

export function isNumberWord(lower: string): boolean {
  return NUMBER_WORDS.has(lower) || lower.split(/[-‐]/).some((p) => NUMBER_WORDS.has(p) || /^(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(th|ieth)?$/.test(p));
}

export type GistLevelRank = 0 | 1 | 2;

/** Single words dropped from plain prose, by the lowest level that drops them. */
export const DROP_WORDS: ReadonlyMap<string, GistLevelRank> = new Map<string, GistLevelRank>([
  // light: filler, intensifiers, articles and courtesy: words that add no fact
  ["basically", 0], ["actually", 0], ["really", 0], ["very", 0], ["quite", 0], ["simply", 0], ["literally", 0],
  ["totally", 0], ["definitely", 0], ["certainly", 0], ["obviously", 0], ["essentially", 0], ["honestly", 0],
  ["truly", 0], ["extremely", 0], ["incredibly", 0], ["clearly", 0], ["absolutely", 0], ["completely", 0],
  ["entirely", 0], ["ultimately", 0], ["the", 0], ["a", 0], ["an", 0], ["please", 0], ["kindly", 0],
  // moderate: the glue of a sentence a reader restores without effort (pronouns, "be", auxiliaries,
  // words of time and addition)
  ["is", 1], ["are", 1], ["was", 1], ["were", 1], ["am", 1], ["it", 1], ["we", 1], ["i", 1], ["you", 1],
  ["they", 1], ["do", 1], ["does", 1], ["did", 1],
  ["it's", 1], ["we're", 1], ["we've", 1], ["there's", 1], ["that's", 1], ["they're", 1], ["you're", 1], ["i'm", 1],
  ["i've", 1], ["its", 1], ["our", 1], ["their", 1], ["your", 1], ["my", 1], ["there", 1], ["currently", 1],
  ["also", 1], ["now", 1], ["then", 1], ["here", 1], ["already", 1],
]);

/**
 * "a"/"an" kept before these: "a few" is not "few", "a little" not "little", "a lot" is an amount,
 * and "a day" or "an hour" is a number.
 */
export const KEEP_ARTICLE_BEFORE: ReadonlySet<string> = new Set([
  "few", "little", "lot", "bit", "couple", "day", "week", "month", "year", "hour", "minute", "second", "while", "time",
  "moment", "request", "user", "per",
]);

/** Pronouns kept when one of these follows: there they are objects ("run it in production"). */
export const PRONOUNS: ReadonlySet<string> = new Set(["it", "we", "i", "you", "they"]);
export const OBJECT_FOLLOWERS: ReadonlySet<string> = new Set([
  "in", "on", "at", "to", "from", "with", "for", "into", "onto", "by", "of", "and", "or", "but", "as", "the", "a", "an",
  "again", "too", "up", "down", "out", "off", "back", "away", "first", "over", "through", "before", "after", "when",
  "if", "once", "directly", "here", "there", "now", "later", "instead", "either", "anymore",
]);

/** Words after which "that" is a bare complementizer ("found that X" = "found X"). */
export const THAT_AFTER: ReadonlySet<string> = new Set([
  "said", "says", "think", "thought", "found", "find", "finds", "noticed", "notice", "decided", "decide", "ensure", "ensures",
  "ensured", "means", "meant", "shows", "showed", "shown", "realized", "realised", "learned", "learnt", "confirmed", "confirm",
  "verify", "verified", "agreed", "believe", "believed", "know", "knew", "assume", "assumed", "turns", "turned", "suggests",
  "suggested", "mentioned", "noted", "discovered", "seems", "seemed", "sure", "given", "assuming", "checked", "check",
]);

/**
 * Phrases and their shorter equivalents, by the lowest level that applies them. Matched on whole
 * words, case-insensitively, never across punctuation or a protected word.
 */
export const PHRASES: readonly (readonly [string, string, GistLevelRank])[] = [
  // light: padding that says nothing, wordy forms of short words
  ["it is worth noting that", "", 0],
  ["it is worth mentioning that", "", 0],
  ["it should be noted that", "", 0],
  ["it is important to note that", "", 0],
  ["it's important to note that", "", 0],
  ["it's worth noting that", "", 0],
  ["please note that", "", 0],
  ["note that", "", 0],
  ["as a matter of fact", "", 0],
  ["needless to say", "", 0],
  ["to be honest", "", 0],
  ["of course", "", 0],
  ["at the end of the day", "", 0],
  ["for what it's worth", "", 0],
  ["as you can see", "", 0],
  ["in order to", "to", 0],
  ["in order for", "for", 0],
  ["due to the fact that", "because", 0],
  ["owing to the fact that", "because", 0],
  ["in light of the fact that", "because", 0],
  ["despite the fact that", "although", 0],
  ["in spite of the fact that", "although", 0],
  ["at this point in time", "now", 0],
  ["at the present time", "now", 0],
  ["at the moment", "now", 0],
  ["in the event that", "if", 0],
  ["for the purpose of", "for", 0],
  ["with regard to", "about", 0],
  ["with respect to", "about", 0],
  ["in regard to", "about", 0],
  ["in relation to", "about", 0],
  ["a large number of", "many", 0],
  ["a great deal of", "much", 0],
  ["the majority of", "most", 0],
  ["in the near future", "soon", 0],
  ["prior to", "before", 0],
  ["subsequent to", "after", 0],
  ["is able to", "can", 0],
  ["are able to", "can", 0],
  ["was able to", "could", 0],
  ["were able to", "could", 0],
  ["has the ability to", "can", 0],
  ["have the ability to", "can", 0],
  ["on a daily basis", "daily", 0],
  ["on a regular basis", "regularly", 0],
  ["each and every", "every", 0],
  ["until such time as", "until", 0],
  ["in the case of", "for", 0],
  ["a lot of", "many", 0],
  ["lots of", "many", 0],
  ["in spite of", "despite", 0],
  ["as a result", "so", 0],
  ["as a consequence", "so", 0],
  ["take into account", "consider", 0],
  ["takes into account", "considers", 0],
  ["make sure that", "ensure", 0],
  ["make sure", "ensure", 0],
  ["makes sure", "ensures", 0],
  ["made sure", "ensured", 0],
  ["at the same time as", "while", 0],
  ["in the process of", "", 0],
  ["the reason for this is that", "because", 0],
  ["the reason is that", "because", 0],
  ["the reason why is that", "because", 0],
  ["the main reason for this is that", "mainly because", 0],
  ["the main reason is that", "mainly because", 0],
  // moderate: connectives and verbs with shorter synonyms
  ["keep in mind that", "", 1],
  ["bear in mind that", "", 1],
  ["remember that", "", 1],
  ["be aware that", "", 1],
  ["we found out that", "", 1],
  ["found out that", "", 1],
  ["we noticed that", "", 1],
  ["we learned the hard way that", "", 1],
  ["in this repository", "", 1],
  ["in this repo", "", 1],
  ["in this project", "", 1],
  ["in this codebase", "", 1],
  ["it turns out that", "", 1],
  ["it turned out that", "", 1],
  ["in fact", "", 1],
  ["in addition to", "besides", 1],
  ["in addition", "also", 1],
  ["additionally", "also", 1],
  ["furthermore", "also", 1],
  ["moreover", "also", 1],
  ["however", "but", 1],
  ["nevertheless", "still", 1],
  ["nonetheless", "still", 1],
  ["therefore", "so", 1],
  ["consequently", "so", 1],
  ["accordingly", "so", 1],
  ["thus", "so", 1],
  ["hence", "so", 1],
  ["approximately", "about", 1],
  ["roughly", "about", 1],
  ["regarding", "about", 1],
  ["concerning", "about", 1],
  ["utilize", "use", 1],
  ["utilizes", "uses", 1],
  ["utilized", "used", 1],
  ["utilizing", "using", 1],
  ["numerous", "many", 1],
  ["sufficient", "enough", 1],
  ["demonstrate", "show", 1],
  ["demonstrates", "shows", 1],
  ["demonstrated", "showed", 1],
  ["in the meantime", "meanwhile", 1],
  ["has to", "must", 1],
  ["have to", "must", 1],
  ["needs to", "must", 1],
  ["need to", "must", 1],
  ["as well as", "and", 1],
  ["in terms of", "for", 1],
  ["whenever", "when", 1],
  ["is going to", "will", 1],
  ["are going to", "will", 1],
  ["am going to", "will", 1],
  ["you should", "should", 1],
  ["we should", "should", 1],
  // aggressive: the scaffolding of a sentence
  ["so that", "so", 2],
  ["we decided to", "", 2],
  ["decided to", "", 2],
  ["we chose to", "", 2],
  ["we want to", "", 2],
  ["would like to", "want to", 1],
  ["would rather", "prefer to", 1],
];
