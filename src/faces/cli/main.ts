import { cac } from "cac";
import pkg from "../../../package.json" with { type: "json" };
import { ERROR_CODES, isMemsyncError, MemsyncError, oneLine } from "../../core/errors.ts";
import { writeErr, writeOut } from "../../runtime/host.ts";
import { type Flags, STDIN_ARG } from "./options.ts";
import type { CommandResult } from "./result.ts";

// The memsync command line. cac parses (it adds ~1 ms to start-up against ~4 ms for commander,
// measured on the compiled binary); each command's module is imported only when it runs, so a
// command pays only for what it uses.

type Handler = () => Promise<CommandResult>;

const read = () => import("./commands/read.ts");
const write = () => import("./commands/write.ts");
const query = () => import("./commands/query.ts");
const admin = () => import("./commands/admin.ts");

const STATUS_HELP = "filter by status: active, promoted, archived or all (repeatable; default active and promoted)";

const EXIT_HELP = Object.entries(ERROR_CODES)
  .map(([code, n]) => `  ${n}  ${code.replace("_", " ")}`)
  .join("\n");

function recordOptions(cmd: ReturnType<ReturnType<typeof cac>["command"]>) {
  return cmd
    .option("--type <type>", "decision, preference, pattern, anti-pattern, problem, solution or fact")
    .option("--project <name>", "the project the memory belongs to")
    .option("--scope <scope>", "sharing scope: local, user, team or global")
    .option("--importance <level>", "low, medium, high or critical")
    .option("--confidence <n>", "0..1")
    .option("--category <name>", "a free category, e.g. database")
    .option("--strength <n>", "0..2")
    .option("--gist <text>", "a short form of the content")
    .option("--source <text>", "where the memory came from")
    .option("--context <text>", "what was going on")
    .option("--input <file>", "JSON object of record fields (- for standard input)");
}

function filterOptions(cmd: ReturnType<ReturnType<typeof cac>["command"]>) {
  return cmd
    .option("--status <status>", STATUS_HELP, { type: [String] })
    .option("--type <type>", "filter by type (repeatable)", { type: [String] })
    .option("--tag <tag>", "only memories with this tag (repeatable: all must match)", { type: [String] })
    .option("--entity <name>", "only memories naming this entity (repeatable)", { type: [String] })
    .option("--project <name>", "only this project's memories")
    .option("--since <when>", "created since: 7d, 12h, 2026-11-01 or Unix seconds")
    .option("--limit <n>", "at most n results (0: all)");
}

export async function runCli(argv: string[]): Promise<number> {
  const cli = cac("memsync");
  let handler: Handler | undefined;
  const on = (fn: (...a: unknown[]) => Handler) => (...a: unknown[]) => {
    handler = fn(...a);
  };

  cli.option("--store <dir>", "store folder (default: $MEMSYNC_HOME, else ~/.memsync)");
  cli.option("--json", "print the result as JSON");

  cli
    .command("init [dir]", "create a store: record folders, .meta.json, .gitattributes and a git repository")
    .option("--no-git", "do not create a git repository")
    .action(on((dir, f) => async () => (await admin()).init(dir as string | undefined, f as Flags)));

  recordOptions(
    cli
      .command("save [...text]", "store a new memory (text, or - to read standard input)")
      .alias("remember")
      .option("--tag <tag>", "a tag (repeatable, or comma-separated; short: -t)", { type: [String] })
      .option("--entity <name>", "an entity the memory names (repeatable; short: -e)", { type: [String] }),
  )
    .example('memsync save "Use cursor pagination for list endpoints" --type decision --tag api')
    .action(on((words, f) => async () => (await write()).save(words as string[], f as Flags)));

  cli
    .command("get [...ids]", "show memories with their incoming and outgoing relations")
    .alias("open")
    .action(on((ids, f) => async () => (await read()).get(ids as string[], f as Flags)));

  recordOptions(
    cli
      .command("update <id>", "change a memory's content or fields")
      .option("--content <text>", "new content (- for standard input)")
      .option("--status <status>", "active, promoted or archived")
      .option("--tag <tag>", "replace all tags (repeatable)", { type: [String] })
      .option("--add-tag <tag>", "add a tag (repeatable)", { type: [String] })
      .option("--remove-tag <tag>", "remove a tag (repeatable)", { type: [String] })
      .option("--entity <name>", "replace all entities (repeatable)", { type: [String] })
      .option("--add-entity <name>", "add an entity (repeatable)", { type: [String] })
      .option("--remove-entity <name>", "remove an entity (repeatable)", { type: [String] }),
  ).action(on((id, f) => async () => (await write()).update(id as string, f as Flags)));

  cli
    .command("touch [...ids]", "record a use: use_count + 1, last_used = now")
    .option("--boost", "also raise strength by 0.1 (at most 2.0)")
    .action(on((ids, f) => async () => (await write()).touch(ids as string[], f as Flags)));

  cli
    .command("archive [...ids]", "mark memories archived (kept, hidden from list and search by default)")
    .action(on((ids, f) => async () => (await write()).archive(ids as string[], f as Flags)));

  cli
    .command("delete [...ids]", "delete memories and the relations that name them")
    .option("--keep-relations", "keep their relations (reported as dangling)")
    .action(on((ids, f) => async () => (await write()).remove(ids as string[], f as Flags)));

  cli
    .command("relate <from> <to>", "relate two memories")
    .option("--type <type>", "related, causes, supports, contradicts, consolidated_from, split_from, USES, CHOSE_OVER, REQUIRES, ENABLES, PREFERS", {
      default: "related",
    })
    .option("--strength <n>", "0..1 (default 1)")
    .option("--meta <key=value>", "relation metadata (repeatable)", { type: [String] })
    .action(on((from, to, f) => async () => (await write()).relate(from as string, to as string, f as Flags)));

  cli
    .command("unrelate [...ids]", "remove relations by id")
    .action(on((ids, f) => async () => (await write()).unrelateCmd(ids as string[], f as Flags)));

  filterOptions(cli.command("list", "list memories, newest first (default limit 50)")).action(
    on((f) => async () => (await query()).listCmd(f as Flags)),
  );

  filterOptions(cli.command("search [...query]", "find every memory whose content, gist, tags or entities match all words, best first (default limit 20)"))
    .option("--any", "match any word instead of all")
    .action(on((words, f) => async () => (await query()).searchCmd(words as string[], f as Flags)));

  cli
    .command("status", "counts, corrupt files and health: healthy, degraded or unavailable")
    .action(on((f) => async () => (await admin()).status(f as Flags)));

  cli.command("reindex", "rebuild the local index from the record files").action(on((f) => async () => (await admin()).reindexCmd(f as Flags)));

  cli.help((sections) => {
    sections.push({ title: "Exit codes", body: `  0  success\n${EXIT_HELP}` });
    return sections;
  });
  cli.version(pkg.version);

  try {
    cli.parse(["memsync", "memsync", ...normalizeArgv(argv)], { run: false });
    if (cli.options.help || cli.options.version) return 0;
    if (!cli.matchedCommand) {
      const first = cli.args[0];
      if (first !== undefined) throw new MemsyncError("usage", `unknown command ${JSON.stringify(String(first).slice(0, 40))} (see memsync --help)`);
      cli.outputHelp();
      return ERROR_CODES.usage;
    }
    await cli.runMatchedCommand();
    if (!handler) return 0;
    const result = await handler();
    if (result.stdout) writeOut(result.stdout);
    if (result.stderr) writeErr(result.stderr);
    return result.exitCode ?? 0;
  } catch (e) {
    return report(e, argv.includes("--json"));
  }
}

/**
 * Two things cac's parser (mri) gets wrong, settled before it sees the arguments: a lone "-"
 * (standard input) is dropped or taken for a missing value, and a short alias mixed with its
 * long form loses repeated values. Nothing after "--" is touched.
 */
function normalizeArgv(argv: string[]): string[] {
  const end = argv.indexOf("--");
  return argv.map((a, i) => {
    if (end !== -1 && i > end) return a;
    if (a === "-") return STDIN_ARG;
    return SHORT_FLAGS[a] ?? a;
  });
}

const SHORT_FLAGS: Record<string, string> = { "-t": "--tag", "-e": "--entity" };

function report(e: unknown, asJson: boolean): number {
  let err: MemsyncError;
  if (isMemsyncError(e)) err = e;
  else if (e instanceof Error && e.name === "CACError") err = new MemsyncError("usage", `${e.message} (see memsync --help)`);
  else err = new MemsyncError("internal", `internal error: ${e instanceof Error ? e.message : String(e)}`);
  writeErr(`memsync: ${oneLine(err.message)}\n`);
  if (asJson) writeOut(`${JSON.stringify({ error: { code: err.code, message: err.message } })}\n`);
  return err.exitCode;
}
