// English words too common to say what a text is about: left out of recall queries and of the
// word sets that compare sentences and memories. Negations are deliberately absent.

export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
  "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
  "does", "doing", "down", "during", "each", "else", "ever", "few", "for", "from", "further", "get", "gets", "got",
  "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if",
  "in", "into", "is", "it", "it's", "its", "itself", "just", "let", "let's", "like", "made", "make", "me", "more",
  "most", "much", "must", "my", "myself", "now", "of", "off", "on", "once", "or", "other", "ought", "our", "ours",
  "ourselves", "out", "over", "own", "please", "same", "shall", "she", "should", "so", "some", "such", "than", "that",
  "that's", "the", "their", "theirs", "them", "themselves", "then", "there", "there's", "these", "they", "this",
  "those", "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "we're", "we've", "were",
  "what", "what's", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
  "yours", "yourself", "yourselves", "really", "basically", "actually", "maybe", "okay", "ok", "hey", "hi", "thanks",
  "thank", "want", "need", "know", "think", "tell", "show", "give", "going", "way", "thing", "things", "something",
  "anything", "use", "using", "used", "we'd", "i'm", "i've", "i'd", "you're", "you've", "can", "may", "might", "well",
  "still", "even", "yet", "yes", "e.g.", "i.e.", "etc.",
]);
