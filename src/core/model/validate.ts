import type * as v from "valibot";

// Turning valibot's issues into one readable line, and parsing records without throwing. The
// wording is memsync's (the CLI, API and MCP answer it, meta-check.ts repeats it by hand): a
// schema that needs other words says them as its message ("must be a lowercase UUID").

type Issue = v.BaseIssue<unknown>;

function pathOf(path: Issue["path"]): string {
  let s = "";
  for (const p of path ?? []) {
    const k = p.key as PropertyKey;
    s += typeof k === "number" ? `[${k}]` : s ? `.${String(k)}` : String(k);
  }
  return s || "(record)";
}

/** What a schema of this type is called in "must be a …". */
const NOUN: Record<string, string> = { loose_object: "object", strict_object: "object", record: "object", picklist: "string" };

/** The values a picklist or literal allows, from valibot's `"a" | "b"`. */
function valuesOf(expected: string | null): string {
  return (expected ?? "")
    .replace(/^\((.*)\)$/, "$1")
    .split(" | ")
    .map((e) => {
      try {
        return String(JSON.parse(e));
      } catch {
        return e;
      }
    })
    .join(", ");
}

const unitOf = (input: unknown, n: unknown) => {
  const unit = typeof input === "string" ? " character" : Array.isArray(input) ? " item" : "";
  return unit && n !== 1 ? `${unit}s` : unit;
};
/** "a string", "an array", "an object". */
const withArticle = (noun: string) => `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;

export function describeIssue(issue: Issue): string {
  const where = pathOf(issue.path);
  // a record's key that its key schema refuses: the key is named, its rule is not
  if (issue.input !== undefined && (issue.path?.at(-1) as { origin?: string } | undefined)?.origin === "key") return `${where} is invalid`;
  // a message of our own (valibot's own start "Invalid …"): the schema's words
  if (!issue.message.startsWith("Invalid ") && issue.input !== undefined) return `${where} ${issue.message}`;
  switch (issue.type) {
    case "min_length":
    case "min_value":
      return `${where} must be at least ${issue.requirement}${unitOf(issue.input, issue.requirement)}`;
    case "max_length":
    case "max_value":
      return `${where} must be at most ${issue.requirement}${unitOf(issue.input, issue.requirement)}`;
    case "gt_value":
      return `${where} must be greater than ${issue.requirement}`;
    case "lt_value":
      return `${where} must be less than ${issue.requirement}`;
    case "integer":
    case "safe_integer":
      // a whole number past 2^53 is out of range, not a fraction
      if (Number.isInteger(issue.input)) return `${where} must be at ${(issue.input as number) > 0 ? `most ${Number.MAX_SAFE_INTEGER}` : `least ${Number.MIN_SAFE_INTEGER}`}`;
      return `${where} must be an integer`;
    case "finite":
      return `${where} must be a number`;
    case "union":
      return `${where} is invalid`;
  }
  if (issue.kind !== "schema") return `${where} is invalid`;
  if (issue.input === undefined) return `${where} is required`;
  if (issue.type === "picklist" || issue.type === "literal" || issue.type === "enum") return `${where} must be one of ${valuesOf(issue.expected)}`;
  return `${where} must be ${withArticle(NOUN[issue.type] ?? issue.type)}`;
}

/** The first three problems in one line (and how many more). */
export function describeIssues(issues: readonly Issue[]): string {
  const first = issues.slice(0, 3).map(describeIssue).join("; ");
  return issues.length > 3 ? `${first}; and ${issues.length - 3} more` : first;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

// each value's first problem only (an integer that is not one is not also "at least 1")
const CONFIG: v.Config<v.BaseIssue<unknown>> = { abortPipeEarly: true };

/**
 * Parse against a schema: its output (defaults filled in), or the problems in one line. The
 * schema runs itself (its ~run, what valibot's safeParse calls), so this module imports nothing
 * at run time: the CLI's options and the store read JSON text through it without loading the
 * schema library.
 */
export function parseWith<S extends v.GenericSchema>(schema: S, value: unknown): Parsed<v.InferOutput<S>> {
  const r = schema["~run"]({ value }, CONFIG);
  return r.issues ? { ok: false, problem: describeIssues(r.issues) } : { ok: true, value: r.value as v.InferOutput<S> };
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
