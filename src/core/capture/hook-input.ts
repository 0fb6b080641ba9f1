// A Claude Code hook payload on standard input (JSON), told apart from free text. UserPromptSubmit
// carries the prompt; Stop and SubagentStop the assistant's last message; every event carries
// session_id, cwd and hook_event_name.

export interface HookPayload {
  event: string | null;
  prompt: string | null;
  sessionId: string | null;
  cwd: string | null;
  /** SessionStart: startup, resume, clear or compact. */
  source: string | null;
  /** Stop, SubagentStop: the text of the assistant's last message (Claude Code sends it so no transcript is read). */
  lastAssistantMessage: string | null;
  /** SubagentStart, SubagentStop: the subagent's type ("Explore", "code-reviewer"). */
  agentType: string | null;
}

const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

/** The payload, or null when the text is not one (then it is free text to read as is). */
export function parseHookPayload(text: string): HookPayload | null {
  const t = text.trim();
  if (!t.startsWith("{") || !t.endsWith("}")) return null;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const isHook = typeof o.hook_event_name === "string" || (typeof o.session_id === "string" && (typeof o.prompt === "string" || typeof o.cwd === "string"));
  if (!isHook) return null;
  return {
    event: str(o.hook_event_name),
    prompt: typeof o.prompt === "string" ? o.prompt : null,
    sessionId: str(o.session_id),
    cwd: str(o.cwd),
    source: str(o.source),
    lastAssistantMessage: str(o.last_assistant_message),
    agentType: str(o.agent_type),
  };
}
