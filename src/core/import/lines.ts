// Reading another tool's JSONL files, line by line, without ever giving up: a line that is not
// UTF-8, not JSON, not an object, or too long is reported (file and line number) and skipped, and
// every other line is still read. Pure: the caller reads the bytes.

/** Longest line read (a memsync record file is at most 1 MiB; a longer line cannot become one). */
export const MAX_LINE_BYTES = 1024 * 1024;

export interface Problem {
  file: string;
  /** 1-based; 0 for the file as a whole. */
  line: number;
  problem: string;
}

export interface Line {
  line: number;
  value: Record<string, unknown>;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A short, one-line account of a JSON parse failure (never the line's text: it may hold a secret). */
function parseFailure(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/\s+/g, " ").replace(/".*"/, "…").slice(0, 120);
}

/**
 * Every JSON object line of a JSONL file, with the problems of the others. A missing trailing
 * newline is reported (unless the format's writer never ends with one: the reference memory
 * server joins its lines); the last line is still taken if it parses (an append cut short does not).
 */
export function readJsonLines(file: string, bytes: Uint8Array, problems: Problem[], opts: { endsWithNewline?: boolean } = {}): Line[] {
  const out: Line[] = [];
  let start = 0;
  let n = 0;
  // a UTF-8 byte-order mark at the start is not part of the first line
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  while (start < bytes.length) {
    n++;
    let end = bytes.indexOf(0x0a, start);
    const last = end === -1;
    if (last) end = bytes.length;
    const size = end - start;
    const slice = bytes.subarray(start, end);
    start = end + 1;
    if (size > MAX_LINE_BYTES) {
      problems.push({ file, line: n, problem: `line too long (${size} bytes, at most ${MAX_LINE_BYTES}): skipped` });
      continue;
    }
    let text: string;
    try {
      text = decoder.decode(slice);
    } catch {
      problems.push({ file, line: n, problem: "invalid UTF-8: skipped" });
      continue;
    }
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      problems.push({ file, line: n, problem: last ? `no trailing newline and not JSON (an append cut short?): skipped` : `malformed JSON (${parseFailure(e)}): skipped` });
      continue;
    }
    if (!isObject(value)) {
      problems.push({ file, line: n, problem: `not a JSON object (${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}): skipped` });
      continue;
    }
    if (last && opts.endsWithNewline !== false) problems.push({ file, line: n, problem: "no trailing newline (the line parses: read)" });
    out.push({ line: n, value });
  }
  return out;
}

/** A whole JSON file (memory.json of older reference servers, tool-preferences.json). */
export function readJsonFile(file: string, bytes: Uint8Array, problems: Problem[]): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch (e) {
    problems.push({ file, line: 0, problem: e instanceof TypeError ? "invalid UTF-8: skipped" : `malformed JSON (${parseFailure(e)}): skipped` });
    return undefined;
  }
}

export { isObject };
