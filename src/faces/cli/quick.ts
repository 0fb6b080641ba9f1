import type { Flags } from "./options.ts";

// The commands run most often skip the command-line parser: a Claude Code hook (every prompt),
// git's merge driver (every conflicted file), the version line, and `get ID...`, `save TEXT
// [--tag T]` and `status` (measured against `git status`, issue 16) in their plain forms. Evaluating cac and declaring a command to it cost ~1-3 ms of a start the empty Bun
// program does in ~5 (issue 16). Each runs the very function the parser's path runs, with the
// flags that path would give it; anything else (another option, "--", a value mri would read as a
// number) takes the parser.

type Run = () => Promise<number>;

/** How to run these arguments without the parser, or null when only the parser can read them. */
export function quickRoute(argv: readonly string[]): Run | null {
  if (argv.includes("--help") || argv.includes("-h")) return null;
  if (isVersion(argv)) return versionRun;
  if (argv[0] === "merge-driver") return async () => (await import("./commands/merge-driver.ts")).mergeDriver(argv.slice(1));
  // the warm hook server (hidden; started by `hook --warm`, faces/hooks/warm/server.ts)
  if (argv[0] === "hook-server") return async () => (await import("../hooks/warm/server.ts")).hookServer(argv);
  if (commandWord(argv) === "hook") return async () => (await import("./commands/hook.ts")).hookCli([...argv]);
  const get = plainGet(argv);
  if (get) return () => quickGet(get.ids, get.flags);
  const save = plainSave(argv);
  // what write.ts's save runs for these words and flags (no --input, no "--"), without write.ts
  if (save) return () => answer(save.flags, async () => (await import("./commands/save-one.ts")).saveOne(save.words, {}, save.flags));
  const status = plainStatus(argv);
  // the threads first, then the output's and the command's modules (they load while the threads start)
  return status && (async () => (await startStatusThreads(status), answer(status, async () => (await import("./commands/admin.ts")).status(status))));
}

/**
 * Commands measured to gain from the binary's reluctant JIT (scripts/build.ts), as they always
 * run briefly: what quickRoute takes, a save of one memory (not a list from --input), the short
 * reads (BRIEF_READS) and the version line. Every other command asks for the usual JIT first (src/main.ts).
 */
export function isBrief(argv: readonly string[]): boolean {
  // status too: its per-file work is a statx call and a few sums (store/folder-lstat.ts), and the
  // usual JIT's compiler threads cost more CPU than they save there, competing with the stat
  // thread for the cores (10k, paired: 110-118 against 118-124 ms of CPU; docs/benchmarks.md, status7)
  if (quickRoute(argv)) return true;
  // recall as the hook runs it: with the usual JIT its loops over the store's 514 memory folders
  // and 25 candidates at 50k tiered code up on compiler threads (~2-4 ms of CPU more than at 1k);
  // reluctant, a cold recall took 7-18 ms less CPU (docs/benchmarks.md, branch recallflat34)
  const word = commandWord(argv);
  if (word !== undefined && BRIEF_READS.has(word)) return true;
  return word === "save" && !argv.some((a) => a === "--input" || a.startsWith("--input="));
}

/**
 * Reads that ask the index one question and exit (and settings, which changes at most one). Reluctant, each took less CPU at 1k and 50k
 * (paired, cold; search 2-7 ms, graph 3-8, history 10-40 less; even `list --limit 0` at 50k,
 * ~0.6 s: docs/benchmarks.md, brief35). Commands that write many records or walk the whole
 * store (import, export, consolidate, gc, reindex, sync) keep the usual JIT.
 */
const BRIEF_READS: ReadonlySet<string> = new Set(["recall", "search", "context", "list", "graph", "history", "score", "conflicts", "settings"]);

/** `--version`, `-v` or `version` alone. */
const isVersion = (argv: readonly string[]) => argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version");

async function versionRun(): Promise<number> {
  const [{ versionLine }, { IS_EDGE }, { writeOut }] = await Promise.all([import("./help.ts"), import("../../runtime/edition.ts"), import("../../runtime/host.ts")]);
  writeOut(versionLine(IS_EDGE));
  return 0;
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

/** The arguments of a plain form: the command word, the words after it, and the flags cac would give. */
interface Plain {
  command: string;
  words: string[];
  flags: Flags;
}

/**
 * `--store DIR`, `--json` and (where `tags` allows) `--tag T` / `-t T`, around a command word and
 * its words, each option as the parser reads it; null for anything else.
 */
function plainForm(argv: readonly string[], tags: boolean): Plain | null {
  const flags: Flags = {};
  const words: string[] = [];
  const tagList: string[] = [];
  let command: string | undefined;
  // a value the parser would keep as the same text
  const plainValue = (v: string | undefined): v is string => v !== undefined && v !== "" && !v.startsWith("-") && !readsAsNumber(v);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (a === "--json" && flags.json === undefined) flags.json = true;
    else if (name === "--store" || (tags && (name === "--tag" || a === "-t"))) {
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (!plainValue(value)) return null;
      if (name !== "--store") tagList.push(value);
      else if (flags.store === undefined) flags.store = value;
      else return null;
    } else if (a.startsWith("-") || readsAsNumber(a)) return null;
    else if (command === undefined) command = a;
    else words.push(a);
  }
  if (tagList.length) flags.tag = tagList;
  return command === undefined ? null : { command, words, flags };
}

/** `[--store DIR] [--json] get|open ID...`: ids and flags, or null. */
function plainGet(argv: readonly string[]): { ids: string[]; flags: Flags } | null {
  const p = plainForm(argv, false);
  return p && (p.command === "get" || p.command === "open") && p.words.length > 0 ? { ids: p.words, flags: p.flags } : null;
}

/** `[--store DIR] [--json] save WORD... [--tag T]...`: the memory's words and flags, or null. */
function plainSave(argv: readonly string[]): Plain | null {
  const p = plainForm(argv, true);
  return p && p.command === "save" && p.words.length > 0 ? p : null;
}

/** `[--store DIR] [--json] status`: its flags, or null. */
function plainStatus(argv: readonly string[]): Flags | null {
  const p = plainForm(argv, false);
  return p && p.command === "status" && p.words.length === 0 ? p.flags : null;
}

/**
 * status's stat threads, started before its modules load and its store opens, before even the
 * output's and the snapshot's (store/stat-threads.ts, then store/parallel-snapshot.ts
 * startEarlySnapshot gives them their job): a module loaded first is time the thread, a new JS
 * world, does not yet run in. The store folder as options.ts storeRoot finds it (a plain form's
 * --store is one string), without that module's graph (the input parsers and their schemas).
 */
async function startStatusThreads(flags: Flags): Promise<void> {
  const [{ storeRootOf }, { cwd, env, homeDir }, { startEarlyThreads }] = await Promise.all([
    import("../../runtime/ops-env.ts"),
    import("../../runtime/host.ts"),
    import("../../store/stat-threads.ts"),
  ]);
  try {
    const store = typeof flags.store === "string" ? flags.store : undefined;
    const root = storeRootOf({ store, vars: { MEMSYNC_HOME: env("MEMSYNC_HOME") }, cwd: cwd(), home: homeDir() });
    const threads = startEarlyThreads(root);
    if (threads) (await import("../../store/parallel-snapshot.ts")).startEarlySnapshot(root, threads);
  } catch {
    // only ever a head start: status starts its threads itself, or reports what is wrong
  }
}

/**
 * A plain get: from a settled index without the usual path's modules when that read can answer
 * (commands/settled-get.ts), else as the parser's path runs it.
 */
async function quickGet(ids: string[], flags: Flags): Promise<number> {
  let code: number | null;
  try {
    const { settledGet } = await import("./commands/settled-get.ts");
    code = settledGet(ids, typeof flags.store === "string" ? flags.store : undefined, flags.json === true);
  } catch (e) {
    return (await import("./report.ts")).report(e, flags.json === true); // an output that could not be written, as answer() reports it
  }
  return code ?? answer(flags, async () => (await import("./commands/read.ts")).get(ids, flags));
}

/** Run a command's function and print what it gives, or its error, as the parser's path does. */
async function answer(flags: Flags, run: () => Promise<import("./result.ts").CommandResult>): Promise<number> {
  const { printResult, report } = await import("./report.ts");
  try {
    return printResult(await run());
  } catch (e) {
    return report(e, flags.json === true);
  }
}
