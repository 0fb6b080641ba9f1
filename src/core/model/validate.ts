// Turning zod's issues into one readable line, and parsing records without throwing.

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  input?: unknown;
  maximum?: number | bigint;
  minimum?: number | bigint;
  origin?: string;
  inclusive?: boolean;
  values?: unknown[];
}

interface SafeParser<T> {
  safeParse(v: unknown, params?: { reportInput?: boolean; jitless?: boolean }): { success: true; data: T } | { success: false; error: { issues: readonly unknown[] } };
}

function pathOf(path: PropertyKey[]): string {
  let s = "";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || "(record)";
}

function unitOf(origin: string | undefined): string {
  return origin === "string" ? " characters" : origin === "array" ? " items" : "";
}

export function describeIssue(issue: Issue): string {
  const where = pathOf(issue.path);
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined
        ? `${where} is required`
        : `${where} must be ${issue.expected === "int" ? "an integer" : `a ${issue.expected}`}`;
    case "too_big":
      return issue.inclusive === false ? `${where} must be less than ${issue.maximum}` : `${where} must be at most ${issue.maximum}${unitOf(issue.origin)}`;
    case "too_small":
      return issue.inclusive === false ? `${where} must be greater than ${issue.minimum}` : `${where} must be at least ${issue.minimum}${unitOf(issue.origin)}`;
    case "invalid_value":
      return `${where} must be one of ${(issue.values ?? []).map((v) => String(v)).join(", ")}`;
    default:
      return `${where} ${issue.message === "Invalid input" ? "is invalid" : issue.message}`;
  }
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * zod compiles a parser for an object schema on its first parse (new Function), which costs more
 * than a few parses without it: a command that parses a record or two never pays for it; a
 * process that parses many (a full load, an import) gets the compiled parser after these.
 */
const INTERPRETED_PARSES = 64;
let parses = 0;

export function parseWith<T>(schema: SafeParser<T>, value: unknown): Parsed<T> {
  // with the input in each issue, a wrong value is told from a missing one ("must be an integer", not "is required")
  const r = schema.safeParse(value, { reportInput: true, jitless: ++parses <= INTERPRETED_PARSES });
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues as Issue[];
  const first = issues.slice(0, 3).map(describeIssue).join("; ");
  return { ok: false, problem: issues.length > 3 ? `${first}; and ${issues.length - 3} more` : first };
}

/** The deepest nesting of objects and arrays memsync accepts in any JSON (records, input, its own files). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests objects and arrays deeper than `limit`: one pass over the text,
 * skipping strings, and no recursion, so text nested 100,000 deep is refused before JSON.parse
 * (which overflows the stack on it, or builds a value every later step would choke on).
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: jump to its closing quote (one preceded by an even run of backslashes)
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return false;
        let b = q - 1;
        while (text.charCodeAt(b) === 92) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return false;
}

/** Parse JSON text, reporting malformed or too deeply nested JSON as a problem rather than throwing. */
export function parseJsonText(text: string): Parsed<unknown> {
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) return { ok: false, problem: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, problem: `malformed JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}
