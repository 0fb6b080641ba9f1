import path from "node:path";
import { invalidInput, usageError } from "../../core/errors.ts";
import { parseIdRef } from "../../core/ids.ts";
import { parseJsonText } from "../../core/model/validate.ts";
import type { JsonObject } from "../../core/records.ts";
import type { OpsEnv } from "../../ops/context.ts";
import { cwd, env, homeDir, readStdin } from "../../runtime/host.ts";
import { hostOpsEnv, storeRootOf } from "../../runtime/ops-env.ts";
import fs from "node:fs";

// Turning raw command-line values into typed inputs. Anything wrong here is refused before the
// store is opened, so bad input never changes a thing.

export type Flags = Record<string, unknown>;

/** What a lone "-" (read standard input) becomes before parsing; NUL never occurs in argv. */
export const STDIN_ARG = "\u0000stdin";

/** Put before the value of a text option (main.ts TEXT_OPTIONS) so the parser keeps it as text. */
export const TEXT_MARK = "\u0001";

/** Every value of a repeatable text option, as given: no comma splitting, the mark removed. */
export function texts(flags: Flags, name: string): string[] {
  const v = flags[name];
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => {
    if (typeof x === "boolean") throw usageError(`--${kebab(name)} needs a value`);
    const s = String(x);
    return s.startsWith(TEXT_MARK) ? s.slice(TEXT_MARK.length) : s;
  });
}

const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** --store DIR, else MEMSYNC_HOME, else ~/.memsync. */
export function storeRoot(flags: Flags): string {
  return storeRootOf({ store: str(flags, "store"), vars: { MEMSYNC_HOME: env("MEMSYNC_HOME") }, cwd: cwd(), home: homeDir() });
}

/** The ops environment of a command: plain values only (--store and this process's), see runtime/ops-env.ts. */
export function opsEnv(flags: Flags, root?: string): OpsEnv {
  return hostOpsEnv(str(flags, "store"), root);
}

/** A single-valued option; mri turns "2024" into a number, so values are read back as text. */
export function str(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) {
    if (v.length > 1) throw usageError(`--${kebab(name)} was given ${v.length} times; give it once`);
    return v.length ? unmark(String(v[0])) : undefined;
  }
  if (typeof v === "boolean") throw usageError(`--${kebab(name)} needs a value`);
  return unmark(String(v));
}

/** A value as given on the command line (main.ts asGiven marks those the parser would make a number). */
const unmark = (s: string) => (s.startsWith(TEXT_MARK) ? s.slice(TEXT_MARK.length) : s);

/** A repeatable option (--tag a --tag b), also accepting commas (--tag a,b). */
export function list(flags: Flags, name: string): string[] {
  const v = flags[name];
  if (v === undefined || v === null) return [];
  const items = (Array.isArray(v) ? v : [v]).map((x) => {
    if (typeof x === "boolean") throw usageError(`--${kebab(name)} needs a value`);
    return unmark(String(x));
  });
  return items.flatMap((x) => x.split(",")).map((x) => x.trim()).filter((x) => x.length > 0);
}

export function num(flags: Flags, name: string, opts: { min: number; max: number; int?: boolean }): number | undefined {
  const raw = str(flags, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  // a sign where none is allowed misuses the option (--limit -3): a usage error, as before it was parsed
  if (n < 0 && opts.min >= 0) throw usageError(`--${kebab(name)} must be ≥ ${opts.min}, got ${JSON.stringify(raw.slice(0, 40))}`);
  if (raw.trim() === "" || !Number.isFinite(n) || (opts.int && !Number.isInteger(n)) || n < opts.min || n > opts.max) {
    throw invalidInput(`--${kebab(name)} must be ${opts.int ? "an integer" : "a number"} from ${opts.min} to ${opts.max}, got ${JSON.stringify(raw.slice(0, 40))}`);
  }
  return n;
}

export function oneOf<T extends string>(flags: Flags, name: string, allowed: readonly T[]): T | undefined {
  const raw = str(flags, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw invalidInput(`--${kebab(name)} must be one of ${allowed.join(", ")}, got ${JSON.stringify(raw.slice(0, 40))}`);
  }
  return raw as T;
}

/**
 * Ids as given (full, or abbreviated: core/ids.ts parseIdRef), checked before the store is
 * opened; ops/id-lookup.ts resolveIds turns them into full ids.
 */
export function ids(raw: readonly unknown[], what = "id"): string[] {
  if (raw.length === 0) throw usageError(`give at least one ${what}`);
  return raw.map((r) => idArg(r, what));
}

export function idArg(raw: unknown, what = "id"): string {
  parseIdRef(String(raw), what);
  return String(raw);
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Text from an argument, or from standard input when the argument is "-". */
export async function textArg(words: readonly unknown[], what: string): Promise<string> {
  const joined = words.map(String).join(" ");
  if (joined === STDIN_ARG || joined === "-") return readInput("-");
  if (joined.trim() === "") throw usageError(`give the ${what} as an argument, or - to read it from standard input`);
  return joined;
}

async function readInput(source: string): Promise<string> {
  try {
    if (source === "-" || source === STDIN_ARG) return await readStdin(MAX_INPUT_BYTES);
    const st = fs.statSync(source);
    if (st.size > MAX_INPUT_BYTES) throw invalidInput(`${source} is larger than ${MAX_INPUT_BYTES} bytes`);
    return fs.readFileSync(source, "utf8");
  } catch (e) {
    if (e instanceof RangeError) throw invalidInput(e.message);
    const code = (e as { code?: string }).code;
    if (code === "ENOENT") throw invalidInput(`cannot read ${source}: no such file`);
    if (code) throw invalidInput(`cannot read ${source}: ${code}`);
    throw e;
  }
}

/** --input FILE|-: a JSON object of record fields. */
export async function jsonInput(flags: Flags): Promise<JsonObject | undefined> {
  const source = str(flags, "input");
  if (source === undefined) return undefined;
  const name = source === STDIN_ARG ? "-" : source;
  const parsed = parseJsonText(await readInput(source));
  if (!parsed.ok) throw invalidInput(`--input ${name}: ${parsed.problem}`);
  const v = parsed.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalidInput(`--input ${name}: expected a JSON object`);
  return v as JsonObject;
}

/**
 * save --input FILE|-: one JSON object (one memory, as before), a JSON array of objects, or JSON
 * lines (one object a line; blank lines skipped). `many` says a list was given, even of one.
 * A record that is not an object is refused naming it (record N of the array, line N).
 */
export async function jsonRecords(flags: Flags): Promise<{ records: JsonObject[]; labels: string[]; many: boolean; source: string } | undefined> {
  const source = str(flags, "input");
  if (source === undefined) return undefined;
  const name = source === STDIN_ARG ? "-" : source;
  const text = await readInput(source);
  const whole = parseJsonText(text);
  const asObject = (v: unknown, where: string): JsonObject => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalidInput(`--input ${name}: ${where}expected a JSON object of record fields`);
    return v as JsonObject;
  };
  if (whole.ok) {
    if (Array.isArray(whole.value)) {
      const labels = whole.value.map((_, i) => `record ${i + 1}`);
      return { records: whole.value.map((v, i) => asObject(v, `${labels[i]}: `)), labels, many: true, source: name };
    }
    return { records: [asObject(whole.value, "")], labels: ["the record"], many: false, source: name };
  }
  // not one JSON text: JSON lines, if its first line is an object on its own
  const lines = text.split("\n");
  const first = parseJsonText(lines.find((l) => l.trim() !== "") ?? "");
  if (!first.ok) throw invalidInput(`--input ${name}: ${whole.problem}`);
  const records: JsonObject[] = [];
  const labels: string[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const parsed = parseJsonText(line);
    if (!parsed.ok) throw invalidInput(`--input ${name}: line ${i + 1}: ${parsed.problem}`);
    records.push(asObject(parsed.value, `line ${i + 1}: `));
    labels.push(`line ${i + 1}`);
  });
  return { records, labels, many: true, source: name };
}

/** key=value pairs into an object (values parsed as JSON when they are valid JSON). */
export function pairs(items: readonly string[], name: string): JsonObject {
  const out: JsonObject = {};
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw invalidInput(`--${name} takes key=value, got ${JSON.stringify(item.slice(0, 40))}`);
    const raw = item.slice(eq + 1);
    const parsed = parseJsonText(raw);
    out[item.slice(0, eq)] = parsed.ok ? parsed.value : raw;
  }
  return out;
}

/** Words after "--" are text too (so text may start with a dash). */
export function wordsOf(words: string[], flags: Flags): string[] {
  const rest = flags["--"];
  return Array.isArray(rest) ? [...words.map(String), ...rest.map(String)] : words.map(String);
}
