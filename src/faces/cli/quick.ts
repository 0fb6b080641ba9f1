import type { Flags } from "./options.ts";

// The commands run most often skip the command-line parser: a Claude Code hook (every prompt),
// git's merge driver (every conflicted file) and `get ID...` in its plain forms. Evaluating cac
// and declaring a command to it cost ~1-2 ms of a start the empty Bun program does in ~5 (issue
// 16). Each runs the very function the parser's path runs, with the flags that path would give
// it; anything else (another option, "--", a value mri would read as a number) takes the parser.

type Run = () => Promise<number>;

/** How to run these arguments without the parser, or null when only the parser can read them. */
export function quickRoute(argv: readonly string[]): Run | null {
  if (argv.includes("--help") || argv.includes("-h")) return null;
  if (argv[0] === "merge-driver") return async () => (await import("./commands/merge-driver.ts")).mergeDriver(argv.slice(1));
  if (commandWord(argv) === "hook") return async () => (await import("./commands/hook.ts")).hookCli([...argv]);
  const get = plainGet(argv);
  return get && (() => runGet(get.ids, get.flags));
}

/**
 * Commands measured to gain from the binary's reluctant JIT (scripts/build.ts), as they always
 * run briefly: what quickRoute takes, a save of one memory (not a list from --input) and the
 * version line. Every other command asks for the usual JIT first (src/main.ts).
 */
export function isBrief(argv: readonly string[]): boolean {
  if (quickRoute(argv)) return true;
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version")) return true;
  return commandWord(argv) === "save" && !argv.some((a) => a === "--input" || a.startsWith("--input="));
}

/** The first word that is no option (the command), as the parser's path finds it. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return undefined;
    if (a === "--store") i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/** mri (cac's parser) turns such a value into a number ("007" -> 7, "1e5" -> 100000). */
const readsAsNumber = (s: string) => {
  const x = +s;
  return x * 0 === 0;
};

/** `[--store DIR] [--json] get|open ID... [--json] [--store DIR]`: ids and flags, or null. */
function plainGet(argv: readonly string[]): { ids: string[]; flags: Flags } | null {
  const flags: Flags = {};
  const ids: string[] = [];
  let command: string | undefined;
  const setStore = (v: string | undefined) => {
    if (v === undefined || v === "" || v.startsWith("-") || readsAsNumber(v) || flags.store !== undefined) return false;
    flags.store = v;
    return true;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json" && flags.json === undefined) flags.json = true;
    else if (a === "--store") {
      if (!setStore(argv[++i])) return null;
    } else if (a.startsWith("--store=")) {
      if (!setStore(a.slice("--store=".length))) return null;
    } else if (a.startsWith("-")) return null;
    else if (command === undefined) {
      if (a !== "get" && a !== "open") return null;
      command = a;
    } else if (readsAsNumber(a)) return null;
    else ids.push(a);
  }
  return command !== undefined && ids.length > 0 ? { ids, flags } : null;
}

async function runGet(ids: string[], flags: Flags): Promise<number> {
  const { printResult, report } = await import("./report.ts");
  try {
    return printResult(await (await import("./commands/read.ts")).get(ids, flags));
  } catch (e) {
    return report(e, flags.json === true);
  }
}
