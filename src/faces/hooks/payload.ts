// The JSON Claude Code writes to a hook's standard input. Every event carries session_id, cwd and
// hook_event_name; UserPromptSubmit adds prompt, SessionStart source, SessionEnd reason.

export interface HookInput {
  event: string | null;
  sessionId: string | null;
  cwd: string | null;
  prompt: string | null;
  source: string | null;
}

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

export function parseHookInput(raw: string): HookInput | null {
  if (raw.trim() === "") return { event: null, sessionId: null, cwd: null, prompt: null, source: null };
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  return { event: text(o.hook_event_name), sessionId: text(o.session_id), cwd: text(o.cwd), prompt: typeof o.prompt === "string" ? o.prompt : null, source: text(o.source) };
}

/** Words that show a prompt asks about earlier work, so recalled memories are worth injecting. */
const ASKS_ABOUT_PAST =
  /\b(what|why|how|which|when|where)\b[^.?!\n]{0,40}\b(did|do|have|had|were)\s+(we|i|you)\b|\b(last time|previously|earlier|before|again|remind me|(do|did) (you|we) (remember|know)|we (decided|chose|agreed|settled|picked|used|fixed|said)|our (decision|convention|approach|choice|setup|standard)s?|(as|like) (before|usual|last time))\b/i;

export function asksAboutPast(prompt: string): boolean {
  return ASKS_ABOUT_PAST.test(prompt.slice(0, 5_000));
}
