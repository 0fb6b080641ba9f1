import pkg from "../../../package.json" with { type: "json" };
import { ERROR_CODES } from "../../core/errors.ts";
import { runtimeName } from "../../runtime/host.ts";

// What memsync says about itself: the short usage (no arguments), the full help, one command's
// help (first what it does, then how to call it), the version line and "did you mean".
// Written here rather than by cac so that each starts with what matters and the edge build lists
// only its own commands. A command that runs a catalogue entry is described by the entry's
// summary (main.ts described): the CLI's help is derived from the catalogue, as the API's
// documents are.

export interface HelpCommand {
  usage: string;
  describe: string;
  aliases?: string[];
  example?: string;
}

export interface HelpOption {
  rawName: string;
  description: string;
  config: { default?: unknown };
}

declare const Bun: { version: string } | undefined;
declare const Deno: { version: { deno: string } } | undefined;

/** The runtime and its own version: Bun.version, Deno.version.deno (process.version is a Node-compat number). */
export function runtimeVersion(): string {
  if (runtimeName === "bun" && typeof Bun !== "undefined") return `bun ${Bun.version}`;
  if (runtimeName === "deno" && typeof Deno !== "undefined") return `deno ${Deno.version.deno}`;
  return `node ${globalThis.process?.versions?.node ?? "?"}`;
}

export function versionLine(isEdge: boolean): string {
  const platform = `${globalThis.process?.platform ?? "?"}-${globalThis.process?.arch ?? "?"}`;
  return `memsync ${pkg.version}${isEdge ? " (edge build)" : ""}, ${runtimeVersion()} on ${platform}\n`;
}

export const nameOf = (c: Pick<HelpCommand, "usage">): string => c.usage.split(" ")[0]!;

/** `memsync` alone: what it is and the commands a new user needs (at most 25 lines). */
export function shortUsage(): string {
  return [
    `memsync ${pkg.version}: a git-synced memory store for AI agents`,
    "",
    "Usage: memsync <command> [arguments] [options]",
    "",
    "Common commands:",
    "  save TEXT          store a memory as given (--type decision, --tag api ...)",
    "  remember TEXT      store a memory, reading its type and entities from the text",
    "  recall QUERY       the memories most relevant to a query, for an agent",
    "  search WORDS       memories matching all the words",
    "  list               memories, newest first",
    "  get ID             one memory in full (an id may be abbreviated)",
    "  context            the current project's recent decisions",
    "  status             counts and health of the store",
    "  sync               commit, pull and push through the store's remote",
    "  help [COMMAND]     every command, or one command's options",
    "",
    "The store: --store DIR, else $MEMSYNC_HOME, else ~/.memsync. --json prints JSON.",
    "",
  ].join("\n");
}

function optionLines(options: readonly HelpOption[]): string[] {
  const width = Math.max(0, ...options.map((o) => o.rawName.length));
  return options.map((o) => {
    const def = o.config.default !== undefined ? ` (default: ${String(o.config.default)})` : "";
    return `  ${o.rawName.padEnd(width)}  ${o.description}${def}`;
  });
}

function exitCodes(): string[] {
  return ["Exit codes:", "  0  success", ...Object.entries(ERROR_CODES).map(([code, n]) => `  ${n}  ${code.replace("_", " ")}`)];
}

/** `memsync help`, `memsync --help`: every command this build has. */
export function fullHelp(commands: readonly HelpCommand[], globals: readonly HelpOption[], isEdge: boolean): string {
  const width = Math.max(...commands.map((c) => c.usage.length));
  const lines = [
    `memsync ${pkg.version}${isEdge ? " (edge build: no maintenance commands)" : ""}: a git-synced memory store for AI agents`,
    "",
    "Usage: memsync <command> [arguments] [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.describe}${c.aliases?.length ? ` (alias: ${c.aliases.join(", ")})` : ""}`),
    "",
    "Options for every command:",
    ...optionLines(globals),
    "",
    "memsync help COMMAND (or memsync COMMAND --help) shows a command's options. Text that begins",
    'with "-" goes after "--": memsync save -- "-x is a flag".',
    "",
    ...exitCodes(),
    "",
  ];
  return lines.join("\n");
}

/** One command: what it does first, then its usage, options and example. */
export function commandHelp(c: HelpCommand, options: readonly HelpOption[], globals: readonly HelpOption[]): string {
  const what = c.describe.charAt(0).toUpperCase() + c.describe.slice(1);
  const lines = [`${what}.`, "", `Usage: memsync ${c.usage} [options]`];
  if (c.aliases?.length) lines.push(`Alias: ${c.aliases.map((a) => `memsync ${a}`).join(", ")}`);
  if (options.length) lines.push("", "Options:", ...optionLines(options));
  lines.push("", "Options for every command:", ...optionLines(globals));
  if (c.example) lines.push("", "Example:", `  ${c.example}`);
  lines.push("", ...exitCodes(), "");
  return lines.join("\n");
}

/** The closest command name to a mistyped word, if one is close enough to be meant. */
export function didYouMean(word: string, names: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = name.startsWith(w) && w.length >= 2 ? 1 : distance(w, name);
    if (!best || d < best.d) best = { name, d };
  }
  const allowed = w.length <= 3 ? 1 : 2;
  return best && best.d <= allowed ? best.name : undefined;
}

/** Edit distance with adjacent transpositions (lst -> list 1, stauts -> status 1). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
