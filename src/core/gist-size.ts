// Which texts get a gist at all, apart from the rules that make one (gist.ts): a save of a short
// text, most of them, then never evaluates those rules (ops/new-memory.ts; issue 16).

/** Under this many words a memory is its own gist. */
export const GIST_MIN_WORDS = 30;

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Too short for a gist: makeGist gives null without looking further. */
export const tooShortForGist = (content: string): boolean => wordCount(content) < GIST_MIN_WORDS;
