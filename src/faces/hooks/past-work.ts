// Whether a prompt asks about earlier work, so recalled memories are worth injecting (the hook
// payload itself is parsed in core/capture/hook-input.ts, which capture shares).

const ASKS_ABOUT_PAST =
  /\b(what|why|how|which|when|where)\b[^.?!\n]{0,40}\b(did|do|have|had|were)\s+(we|i|you)\b|\b(last time|previously|earlier|before|again|remind me|(do|did) (you|we) (remember|know)|we (decided|chose|agreed|settled|picked|used|fixed|said)|our (decision|convention|approach|choice|setup|standard)s?|(as|like) (before|usual|last time))\b/i;

export function asksAboutPast(prompt: string): boolean {
  return ASKS_ABOUT_PAST.test(prompt.slice(0, 5_000));
}
