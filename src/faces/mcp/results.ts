import { isMemsyncError, MemsyncError, oneLine } from "../../core/errors.ts";
import { coded } from "../../ops/catalogue/errors.ts";

// Tool results as every profile answers them: structuredContent plus the same JSON as text, and
// every failure an isError result carrying memsync's error code (never a JSON-RPC error, so an
// agent sees the reason and can act on it).

/** No answer over ~20,000 tokens: about four characters a token. */
export const MAX_ANSWER_CHARS = 80_000;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * A success: the object as structuredContent and as text (compact, as the bound counts it). A read
 * over the bound is refused (nothing happened; ask for less); a write has happened, so its answer
 * stays, with a short text in place of the long one (the ids, to open with get).
 */
export function jsonResult(out: Record<string, unknown>, readOnly = true, text = JSON.stringify(out)): ToolResult {
  if (text.length > MAX_ANSWER_CHARS && !readOnly) {
    const ids = [...new Set(text.match(/"id":"[0-9a-f-]{36}"/g) ?? [])].map((m) => m.slice(6, -1)).slice(0, 1000);
    const summary = JSON.stringify({ done: true, answer_chars: text.length, ids, note: "the full answer is over the bound: open memories with get" });
    return { content: [{ type: "text", text: summary }], structuredContent: out, _meta: { "memsync/truncated": { chars: text.length } } };
  }
  if (text.length > MAX_ANSWER_CHARS) {
    return errorResult(
      new MemsyncError("invalid_input", `the answer would be ${text.length} characters, over the bound of ${MAX_ANSWER_CHARS}: ask for less (a smaller limit or budget, fewer ids)`),
    );
  }
  return { content: [{ type: "text", text }], structuredContent: out };
}

/** A failure: the error code and one-line message, as `memsync --json` prints them. */
export function errorResult(e: unknown): ToolResult {
  const err = isMemsyncError(e) ? e : coded(e);
  const error = { code: err.code, message: oneLine(err.message) };
  return { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true, _meta: { "memsync/error": error } };
}
