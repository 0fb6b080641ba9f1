// What a memsync hook prints for Claude Code: the documented JSON output. Context for the model
// goes in hookSpecificOutput.additionalContext (SessionStart, UserPromptSubmit); anything the
// user should know goes in systemMessage. Claude Code caps hook output at 10,000 characters, so
// the context is cut below that, at a line end.

export const CONTEXT_MAX = 9_000;

export interface HookReply {
  hookSpecificOutput?: { hookEventName: string; additionalContext: string };
  systemMessage?: string;
  suppressOutput?: boolean;
}

export function fitContext(text: string, max = CONTEXT_MAX): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 2);
  const end = cut.lastIndexOf("\n");
  return `${end > max / 2 ? cut.slice(0, end) : cut}\n…`;
}

export function withContext(event: string, context: string, extra: Omit<HookReply, "hookSpecificOutput"> = {}): HookReply {
  const text = fitContext(context.trim());
  return text ? { ...extra, hookSpecificOutput: { hookEventName: event, additionalContext: text } } : { suppressOutput: true, ...extra };
}

/** A failure inside a hook: said in one line, never an error exit (the session goes on). */
export function failed(why: string): HookReply {
  return { systemMessage: `memsync: ${why.replace(/\s+/g, " ").trim().slice(0, 300)}` };
}
