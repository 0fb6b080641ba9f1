import { cac } from "cac";
import { ERROR_CODES, MemsyncError, usageError } from "../../core/errors.ts";
import { edgeRefusal, IS_EDGE } from "../../runtime/edition.ts";
import { writeOut } from "../../runtime/host.ts";
import { commandHelp, didYouMean, fullHelp, type HelpCommand, type HelpOption, nameOf, shortUsage, versionLine } from "./help.ts";
import { type Flags, STDIN_ARG, TEXT_MARK } from "./options.ts";
import { commandWord } from "./quick.ts";
import { printResult, report } from "./report.ts";
import type { CommandResult } from "./result.ts";

// The memsync command line. cac parses (it adds ~1 ms to start-up against ~4 ms for commander,
// measured on the compiled binary); each command's module is imported only when it runs, so a
// command pays only for what it uses.

type Handler = () => Promise<CommandResult>;

const read = () => import("./commands/read.ts");
const write = () => import("./commands/write.ts");
const query = () => import("./commands/query.ts");
const admin = () => import("./commands/admin.ts");
const claude = () => import("./commands/claude.ts");
const gists = () => import("./commands/gists.ts");
const recallCmds = () => import("./commands/recall.ts");
const scoring = () => import("./commands/scoring.ts");
const historyCmd = () => import("./commands/history.ts");
const conflicts = () => import("./commands/conflicts.ts");
const transfer = () => import("./commands/transfer.ts");

declare const MEMSYNC_EDITION: string | undefined;

/**
 * Maintenance command modules; null in the edge build. The condition is written out on the
 * defined name itself, so the bundler folds it while parsing and leaves these modules out of the
 * edge binary (a constant of this module is not folded across the bundle).
 */
const MAINTENANCE =
  typeof MEMSYNC_EDITION === "string" && MEMSYNC_EDITION === "edge"
    ? null
    : {
        maintain: () => import("./commands/maintain.ts"),
        decay: () => import("./commands/decay.ts"),
        consolidate: () => import("./commands/consolidate.ts"),
        split: () => import("./commands/split.ts"),
      };

/** A maintenance module's loader (never called in the edge build: those commands are refused first). */
function maintenance<K extends keyof NonNullable<typeof MAINTENANCE>>(name: K): NonNullable<typeof MAINTENANCE>[K] {
  if (!MAINTENANCE) throw edgeRefusal(name);
  return MAINTENANCE[name];
}
const capture = () => import("./commands/capture.ts");

const INSECURE_HTTP_HELP = "allow a plain http:// URL to a server on this machine (127.0.0.1, ::1, localhost; never another host)";

const STATUS_HELP = "filter by status: active, promoted, archived or all (repeatable; default active and promoted)";

type Cmd = ReturnType<ReturnType<typeof cac>["command"]>;

function recordOptions(cmd: Cmd): Cmd {
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

function filterOptions(cmd: Cmd): Cmd {
  return cmd
    .option("--status <status>", STATUS_HELP, { type: [String] })
    .option("--type <type>", "filter by type (repeatable)", { type: [String] })
    .option("--tag <tag>", "only memories with this tag (repeatable: all must match)", { type: [String] })
    .option("--entity <name>", "only memories naming this entity (repeatable)", { type: [String] })
    .option("--project <name>", "only this project's memories")
    .option("--since <when>", "created since: 7d, 12h, 2026-11-01 or Unix seconds")
    .option("--before <when>", "created before (the same forms; with --since, a date range)")
    .option("--limit <n>", "at most n results (0: all)")
    .option("--scores", "show each memory's decay score");
}

export interface CommandSpec {
  usage: string;
  /** The catalogue entry the command runs: help describes the command by the entry's summary. */
  op?: string;
  /** Other entries it runs (split --candidates runs split-candidates). */
  alsoRuns?: string[];
  /** What it does, for a command that is no catalogue entry or one form of one (pull, push). */
  describe?: string;
  aliases?: string[];
  example?: string;
  /** gc, consolidate, split, promote...: main build only, on the maintainer machine (--claim-maintainer). */
  maintenance?: true;
  /** Options are added only to the command being run: cac's option objects cost start-up. */
  options?: (cmd: Cmd) => Cmd;
  run: (args: unknown[], flags: Flags) => Promise<CommandResult>;
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    usage: "init [dir]",
    op: "init",
    options: (c) => c.option("--no-git", "do not create a git repository"),
    run: async ([dir], f) => (await admin()).init(dir as string | undefined, f),
  },
  {
    usage: "save [...text]",
    op: "save",
    example: 'memsync save "Use cursor pagination for list endpoints" --type decision --tag api',
    options: (c) =>
      recordOptions(
        c
          .option("--tag <tag>", "a tag (repeatable, or comma-separated; short: -t)", { type: [String] })
          .option("--entity <name>", "an entity the memory names (repeatable; short: -e)", { type: [String] }),
      ),
    run: async ([words], f) => (await write()).save(words as string[], f),
  },
  {
    usage: "remember [...text]",
    op: "remember",
    example: 'memsync remember "Offset pagination caused timeouts at 1M rows" --failed',
    options: (c) =>
      c
        .option("--type <type>", "decision, preference, pattern, anti-pattern, problem, solution or fact (default: read from the text)")
        .option("--success", "it worked: a pattern (or, with --type, a solution that worked)")
        .option("--failed", "it failed: an anti-pattern (or, with --type, a solution that failed)")
        .option("--global", "shared across projects (scope global, no project)")
        .option("--project <id>", "the project (default: the git remote of the current folder)")
        .option("--scope <scope>", "local, user, team or global")
        .option("--tag <tag>", "a tag (repeatable, or comma-separated; short: -t)", { type: [String] })
        .option("--entity <name>", "an entity besides those found (repeatable; short: -e)", { type: [String] })
        .option("--importance <level>", "low, medium, high or critical")
        .option("--confidence <n>", "0..1 (default: from the text, at least 0.8)")
        .option("--category <name>", "a category (default: from the entities)")
        .option("--source <text>", "where the memory came from (default: remember)")
        .option("--dry-run", "show what would be stored, store nothing"),
    run: async ([words], f) => (await capture()).remember(words as string[], f),
  },
  {
    usage: "capture [...text]",
    op: "capture",
    example: 'memsync capture "Let\'s use PostgreSQL for analytics because we need JSONB"',
    options: (c) =>
      c
        .option("--dry-run", "show what would be stored, store nothing")
        .option("--global", "store as global (no project)")
        .option("--project <id>", "the project (default: the git remote of the hook's cwd or the current folder)")
        .option("--tag <tag>", "a tag on every memory stored (repeatable)", { type: [String] }),
    run: async ([words], f) => (await capture()).capture(words as string[], f),
  },
  {
    usage: "get [...ids]",
    op: "get",
    aliases: ["open"],
    run: async ([ids], f) => (await read()).get(ids as string[], f),
  },
  {
    usage: "update <id>",
    op: "update",
    options: (c) =>
      recordOptions(
        c
          .option("--content <text>", "new content (- for standard input)")
          .option("--status <status>", "active, promoted or archived")
          .option("--tag <tag>", "replace all tags (repeatable)", { type: [String] })
          .option("--add-tag <tag>", "add a tag (repeatable)", { type: [String] })
          .option("--remove-tag <tag>", "remove a tag (repeatable)", { type: [String] })
          .option("--entity <name>", "replace all entities (repeatable)", { type: [String] })
          .option("--add-entity <name>", "add an entity (repeatable)", { type: [String] })
          .option("--remove-entity <name>", "remove an entity (repeatable)", { type: [String] }),
      ),
    run: async ([id], f) => (await write()).update(id as string, f),
  },
  {
    usage: "touch [...ids]",
    op: "touch",
    options: (c) => c.option("--boost", "also raise strength by 0.1 (at most 2.0)"),
    run: async ([ids], f) => (await write()).touch(ids as string[], f),
  },
  {
    usage: "archive [...ids]",
    op: "archive",
    run: async ([ids], f) => (await write()).archive(ids as string[], f),
  },
  {
    usage: "delete [...ids]",
    op: "delete",
    options: (c) => c.option("--keep-relations", "keep their relations (reported as dangling)"),
    run: async ([ids], f) => (await write()).remove(ids as string[], f),
  },
  {
    usage: "relate <from> <to>",
    op: "relate",
    options: (c) =>
      c
        .option("--type <type>", "related, causes, supports, contradicts, consolidated_from, split_from, supersedes, USES, CHOSE_OVER, REQUIRES, ENABLES, PREFERS", {
          default: "related",
        })
        .option("--strength <n>", "0..1 (default 1)")
        .option("--meta <key=value>", "relation metadata (repeatable)", { type: [String] }),
    run: async ([from, to], f) => (await write()).relate(from as string, to as string, f),
  },
  {
    usage: "unrelate [...ids]",
    op: "unrelate",
    run: async ([ids], f) => (await write()).unrelateCmd(ids as string[], f),
  },
  {
    usage: "conflicts",
    op: "conflicts",
    run: async (_, f) => (await conflicts()).conflictsCmd(f),
  },
  {
    usage: "resolve <id>",
    op: "resolve",
    example: "memsync resolve 2f6e8a4c --keep theirs --pick 2",
    options: (c) =>
      c
        .option("--keep <side>", "ours: the current text; theirs: the other text (--pick N among several); both: all texts joined by a blank line")
        .option("--pick <n>", "with --keep theirs: which other text, numbered as memsync conflicts shows them")
        .option("--content <text>", "new text instead (- for standard input)"),
    run: async ([id], f) => (await conflicts()).resolveCmd(id as string, f),
  },
  {
    usage: "list",
    op: "list",
    options: filterOptions,
    run: async (_, f) => (await query()).listCmd(f),
  },
  {
    usage: "graph",
    op: "graph",
    example: "memsync graph --limit 20 --offset 20",
    options: (c) =>
      c
        .option("--status <status>", STATUS_HELP, { type: [String] })
        .option("--offset <n>", "skip the n newest memories (the next page)")
        .option("--limit <n>", "at most n memories on the page (default 20, at most 1000)"),
    run: async (_, f) => (await query()).graphCmd(f),
  },
  {
    usage: "search [...query]",
    op: "search",
    options: (c) => filterOptions(c).option("--any", "match any word instead of all"),
    run: async ([words], f) => (await query()).searchCmd(words as string[], f),
  },
  {
    usage: "recall [...query]",
    op: "recall",
    example: 'memsync recall "how do we paginate the orders API" --budget 1500',
    options: (c) =>
      c
        .option("--budget <chars>", "at most this many characters (default 2000)")
        .option("--limit <n>", "at most n memories (default 10)")
        .option("--project <name>", "only this project's memories and those of no project"),
    run: async ([words], f) => (await recallCmds()).recallCmd(words as string[], f),
  },
  {
    usage: "context",
    op: "context",
    options: (c) =>
      c
        .option("--project <name>", "the project")
        .option("--limit <n>", "at most n decisions (default 10)")
        .option("--budget <chars>", "at most this many characters (default 3000)"),
    run: async (_, f) => (await recallCmds()).contextCmd(f),
  },
  {
    usage: "backfill-gists",
    op: "backfill-gists",
    options: (c) =>
      c
        .option("--level <level>", "light, moderate or aggressive (default moderate)")
        .option("--dry-run", "list what would be set, with the lengths before and after; change nothing")
        .option("--force", "make gists again for memories that have one"),
    run: async (_, f) => (await gists()).backfillGistsCmd(f),
  },
  {
    usage: "score [...ids]",
    op: "score",
    run: async ([ids], f) => (await scoring()).score(ids as string[], f),
  },
  {
    usage: "history <id>",
    op: "history",
    example: "memsync history 3f2a9c1e",
    options: (c) => c.option("--limit <n>", "at most n commits (default 20)"),
    run: async ([id], f) => (await historyCmd()).history(id, f),
  },
  {
    usage: "settings [key] [value]",
    op: "settings",
    example: "memsync settings decay.model exponential",
    run: async ([key, value, ...rest], f) => (await scoring()).settings(key as string | undefined, value as string | undefined, rest, f),
  },
  {
    usage: "status",
    op: "status",
    run: async (_, f) => (await admin()).status(f),
  },
  {
    usage: "commit",
    op: "commit",
    run: async (_, f) => (await admin()).commitCmd(f),
  },
  {
    usage: "clone <url> [dir]",
    describe: "a new store from a remote: https URL (token in MEMSYNC_GIT_TOKEN) or path to a bare repository",
    options: (c) => c.option("--insecure-http", INSECURE_HTTP_HELP),
    run: async ([url, dir], f) => (await admin()).cloneCmd(url as string, dir as string | undefined, f),
  },
  {
    usage: "remote <action> [url]",
    describe: "remote set <url or path to a bare repository>: where sync pulls from and pushes to",
    options: (c) => c.option("--insecure-http", INSECURE_HTTP_HELP),
    run: async ([action, url], f) => (await admin()).remoteCmd(action as string, url as string | undefined, f),
  },
  {
    usage: "pull",
    op: "sync",
    describe: "commit pending changes, fetch the remote and merge it in (field by field)",
    run: async (_, f) => (await admin()).exchangeCmd("pull", f),
  },
  {
    usage: "push",
    op: "sync",
    describe: "commit pending changes and push; if the remote moved on, pull and retry",
    run: async (_, f) => (await admin()).exchangeCmd("push", f),
  },
  {
    usage: "sync",
    op: "sync",
    run: async (_, f) => (await admin()).exchangeCmd("sync", f),
  },
  {
    usage: "merge-driver <base> <ours> <theirs> [path] [marker]",
    describe: "git merge driver (%O %A %B %P %L): merge one record field by field into <ours>",
    run: async () => {
      throw new MemsyncError("usage", "merge-driver is called by git: memsync merge-driver %O %A %B %P %L");
    },
  },
  {
    usage: "doctor",
    op: "doctor",
    options: (c) => c.option("--repair", "copy git objects the store (or a remote on a local path) lacks from the other side; local commits are kept"),
    run: async (_, f) => (await admin()).doctor(f),
  },
  {
    usage: "repack",
    op: "repack",
    options: (c) => c.option("--all", "every pack into one (default: the loose objects and the packs small beside them)"),
    run: async (_, f) => (await admin()).repackCmd(f),
  },
  {
    usage: "maintainer",
    op: "maintainer",
    maintenance: true,
    options: (c) => c.option("--claim", "make this machine the store's maintainer"),
    run: async (_, f) => (await maintenance("maintain")()).maintainer(f),
  },
  {
    usage: "hooks <action>",
    describe: "hooks install|uninstall: memsync's Claude Code hooks in settings.json (--user: ~/.claude, default; --project: .claude/ of this repository)",
    options: (c) =>
      c
        .option("--project", "the project's .claude/settings.json (shared: runs memsync from PATH)")
        .option("--user", "your ~/.claude/settings.json (default)")
        .option("--memory-md", "Stop and SessionEnd also keep the project's MEMORY.md section current")
        .option("--warm", "UserPromptSubmit asks the store's warm hook server (started by SessionStart; exits when idle) instead of starting cold each prompt")
        .option("--http <url>", "post the events to a memsync server (memsync serve) as type: http hooks, the token from MEMSYNC_API_TOKEN (SessionStart stays a command)"),
    run: async ([action], f) => (await claude()).hooksCmd(action as string, f),
  },
  {
    usage: "serve",
    describe: "the HTTP API (every operation under /v1/, Claude Code http hooks): 127.0.0.1:7457 by default; a public address needs a token",
    example: "memsync serve --listen 0.0.0.0:7457 --token-file ~/.config/memsync/api-token --sync-every 5m",
    options: (c) =>
      c
        .option("--listen <host:port>", "where to listen (default 127.0.0.1:7457; port 0 picks a free one)")
        .option("--socket <path>", "listen on a Unix socket instead")
        .option("--token-file <file>", "the bearer token every request must carry (first line; or MEMSYNC_API_TOKEN); needed off loopback")
        .option("--sync-every <duration>", "pull and push in the background, e.g. 5m (backs off on failure)")
        .option("--allow-host <name>", "another name the Host header may carry, e.g. a reverse proxy's (repeatable)", { type: [String] })
        .option("--max-body <bytes>", "largest request body (default 1048576)")
        .option("--lock-wait <duration>", "longest a request waits for the store's write lock while another process works under it, e.g. 30s (default 5m); then 503 with Retry-After"),
    run: async (_, f) => (await import("./commands/serve.ts")).serve(f),
  },
  {
    usage: "hook <event>",
    describe: "run by Claude Code: SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd, SubagentStart or SubagentStop, with the event's JSON on standard input (always exit 0)",
    options: (c) => c.option("--memory-md", "also keep the project's MEMORY.md section current (Stop, SessionEnd)"),
    run: async () => {
      throw new MemsyncError("usage", "hook is run by Claude Code: memsync hook <Event> with the hook's JSON on standard input");
    },
  },
  {
    usage: "mcp [action]",
    describe: "an MCP server over stdio for agents (--tools memsync, memory or cortexgraph); mcp install|uninstall: Claude Code's entry for it (--user: ~/.claude.json, default; --project: .mcp.json)",
    example: "memsync mcp install --project --tools memory",
    options: (c) =>
      c
        .option("--tools <profile>", "memsync (default: one tool per operation), memory (the reference memory server's nine tools) or cortexgraph")
        .option("--project", "install: the project's .mcp.json (shared: runs memsync from PATH)")
        .option("--user", "install: your ~/.claude.json (default)"),
    run: async ([action], f) => (await import("./commands/mcp.ts")).mcpCmd(action as string | undefined, f),
  },
  {
    usage: "import <format> [path]",
    op: "import",
    example: "memsync import cortexgraph ~/.config/cortexgraph/jsonl --dry-run",
    options: (c) =>
      c
        .option("--dry-run", "report what would be imported, line by line; write nothing")
        .option("--project <name>", "the project of every imported memory that names none"),
    run: async ([format, at], f) => (await transfer()).importCmd(format as string | undefined, at as string | undefined, f),
  },
  {
    usage: "export <format> [path]",
    op: "export",
    describe:
      "export cortexgraph|mcp-memory|jsonl|markdown PATH: the store's memories for CortexGraph, the reference memory server, as a backup, or as Markdown notes; export memory-md: the project's decisions (confidence >= 0.7) into Claude Code's MEMORY.md, in memsync's own section",
    example: "memsync export jsonl ~/memsync-backup.jsonl",
    options: (c) =>
      c
        .option("--force", "replace files that exist")
        .option("--project <name>", "memory-md: the project (default: this repository's)")
        .option("--file <path>", "memory-md: write here instead of Claude Code's file")
        .option("--dry-run", "memory-md: print the file as it would be"),
    run: async ([what, at], f) => (what === "memory-md" ? (await claude()).exportCmd(what as string, f) : (await transfer()).exportCmd(what as string, at as string | undefined, f)),
  },
  {
    usage: "gc",
    op: "gc",
    maintenance: true,
    options: (c) =>
      c
        .option("--dry-run", "only list what would go, with scores")
        .option("--archive", "archive them instead of deleting")
        .option("--limit <n>", "at most n memories, the lowest scores first"),
    run: async (_, f) => (await maintenance("decay")()).gc(f),
  },
  {
    usage: "promote [...ids]",
    op: "promote",
    maintenance: true,
    example: "memsync promote --auto --vault ~/Obsidian/Vault/memsync",
    options: (c) =>
      c
        .option("--auto", "every active memory the promotion rule selects (enough uses, still strong or used in a burst)")
        .option("--dry-run", "only list what would be promoted and the note names")
        .option("--vault <dir>", "the vault folder on this machine (default: $MEMSYNC_VAULT)"),
    run: async ([ids], f) => (await maintenance("decay")()).promote(ids as string[], f),
  },
  {
    usage: "consolidate",
    op: "consolidate",
    maintenance: true,
    example: "memsync consolidate --apply --cluster c3f9a0c1b2d4e",
    options: (c) =>
      c
        .option("--apply", "merge the clusters (all, or those given with --cluster)")
        .option("--link", "relate each cluster's memories both ways (related; a newer that replaces an older: supersedes) instead of merging")
        .option("--cluster <id>", "only this cluster, by the id a preview shows (repeatable)", { type: [String] })
        .option("--threshold <n>", "similarity needed, 0.05..1 (default 0.6); the same threshold finds the same clusters"),
    run: async (_, f) => (await maintenance("consolidate")()).consolidateCmd(f),
  },
  {
    usage: "split [id]",
    op: "split",
    alsoRuns: ["split-candidates"],
    maintenance: true,
    example: 'memsync split 0192f4c8-6a1e-7c3a-9b1d-2f6e8a4c5b7d --part "Use Redis for sessions" --part "Cache keys include the tenant" --part-tags 2:caching',
    options: (c) =>
      c
        .option("--part <text>", "one part's content (repeatable, in order)", { type: [String] })
        .option("--part-tags <n:tags>", "tags of part n (from 1), e.g. 2:api,pagination (repeatable; default: the original's)", { type: [String] })
        .option("--part-entities <n:entities>", "entities of part n, e.g. 1:PostgreSQL (repeatable; default: the original's)", { type: [String] })
        .option("--input <file>", 'the parts as JSON (- for standard input): {"parts": [{"content", "tags", "entities", ...fields}]}')
        .option("--archive", "keep the original, archived, with its relations (default: remove it; its relations go to every part)")
        .option("--candidates", "list memories worth splitting, with the reasons and suggested parts")
        .option("--limit <n>", "with --candidates: at most n (default 20; 0 = all)"),
    run: async ([id], f) => (await maintenance("split")()).splitCmd(id as string | undefined, f),
  },
  {
    usage: "reindex",
    op: "reindex",
    run: async (_, f) => (await admin()).reindexCmd(f),
  },
];

/** The command word in argv: the first word that is not an option or the value of --store. */
/** The options every command takes, as help shows them. */
const GLOBAL_OPTIONS: HelpOption[] = [
  { rawName: "--store <dir>", description: "store folder (default: $MEMSYNC_HOME, else ~/.memsync)", config: {} },
  { rawName: "--json", description: "print the result as JSON", config: {} },
  { rawName: "-h, --help", description: "show help (memsync help COMMAND: one command's)", config: {} },
  { rawName: "-v, --version", description: "memsync's version and the runtime's", config: {} },
];

/** The commands this build has (the edge build leaves maintenance out). */
const visibleCommands = (): CommandSpec[] => COMMANDS.filter((c) => !(IS_EDGE && c.maintenance));

/** A command by name or alias; a maintenance one in the edge build is refused as such. */
function commandNamed(name: string): CommandSpec {
  const spec = COMMANDS.find((c) => nameOf(c) === name || c.aliases?.includes(name));
  if (spec && IS_EDGE && spec.maintenance) throw edgeRefusal(name);
  if (spec) return spec;
  throw unknownCommand(name);
}

function unknownCommand(word: string): MemsyncError {
  const names = [...visibleCommands().flatMap((c) => [nameOf(c), ...(c.aliases ?? [])]), "help", "version"];
  const guess = didYouMean(word, names);
  const shown = JSON.stringify(word.slice(0, 40));
  return usageError(guess ? `unknown command ${shown}: did you mean ${guess}? (see memsync help)` : `unknown command ${shown} (see memsync help)`);
}

/**
 * A command as help shows it: described by its own words, else by its catalogue entry's summary
 * (the catalogue is loaded for help only; running a command never needs it).
 */
export async function described(spec: CommandSpec): Promise<HelpCommand> {
  const { opNamed } = await import("../../ops/catalogue/index.ts");
  return { ...spec, describe: spec.describe ?? (spec.op ? opNamed(spec.op)?.summary : undefined) ?? "" };
}

/** Help for one command: its options as cac would take them. */
async function helpOf(spec: CommandSpec): Promise<string> {
  const cmd = cac("memsync").command(spec.usage, "");
  spec.options?.(cmd);
  if (spec.maintenance && nameOf(spec) !== "maintainer") cmd.option("--claim-maintainer", "make this machine the store's maintainer (another machine holds the role)");
  return commandHelp(await described(spec), cmd.options as HelpOption[], GLOBAL_OPTIONS);
}

/**
 * help, --help, version and --version, before the parser: `memsync help [COMMAND]`,
 * `memsync COMMAND --help`, `memsync version`. Undefined when the arguments ask for none.
 */
async function selfDescription(argv: readonly string[]): Promise<string | undefined> {
  const end = argv.indexOf("--");
  const before = end === -1 ? argv : argv.slice(0, end);
  const word = commandWord(argv);
  const positional = (from: number) => commandWord(before.slice(from));
  if (word === "version") return versionLine(IS_EDGE);
  const asksHelp = before.includes("--help") || before.includes("-h");
  if (word === "help" || (asksHelp && word === undefined)) {
    const target = word === "help" ? positional(before.indexOf("help") + 1) : undefined;
    return target === undefined ? fullHelp(await Promise.all(visibleCommands().map(described)), GLOBAL_OPTIONS, IS_EDGE) : helpOf(commandNamed(target));
  }
  if (asksHelp) return helpOf(commandNamed(word!));
  if (before.includes("--version") || before.includes("-v")) return versionLine(IS_EDGE);
  return undefined;
}

export async function runCli(argv: string[]): Promise<number> {
  // git runs the merge driver once per conflicted file: it skips the command-line parser
  if (argv[0] === "merge-driver" && !argv.includes("--help") && !argv.includes("-h")) {
    return (await import("./commands/merge-driver.ts")).mergeDriver(argv.slice(1));
  }
  // so does a Claude Code hook: it must answer in milliseconds and never fail the session
  if (commandWord(argv) === "hook" && !argv.includes("--help") && !argv.includes("-h")) return (await import("./commands/hook.ts")).hookCli(argv);
  try {
    const about = await selfDescription(argv);
    if (about !== undefined) {
      writeOut(about);
      return 0;
    }
    if (argv.length === 0) {
      writeOut(shortUsage());
      return ERROR_CODES.usage;
    }
  } catch (e) {
    return report(e, argv.includes("--json"));
  }
  const word = commandWord(argv);
  // only the command the arguments name is declared to the parser (each declaration costs
  // start-up); when the parser reads another command word, all are declared and it parses again
  const named = word === undefined ? undefined : COMMANDS.find((c) => nameOf(c) === word || c.aliases?.includes(word));
  if (named) {
    const parsed = parseCommand(argv, word, [named]);
    if (!parsed.ok || parsed.cli.matchedCommand) return finish(parsed, argv);
  }
  return finish(parseCommand(argv, word, COMMANDS), argv);
}

interface Parsed {
  ok: true;
  cli: ReturnType<typeof cac>;
  matched: CommandSpec | undefined;
  handler: () => Handler | undefined;
}

/** The arguments parsed with these commands declared (their actions set the handler); an error as such. */
function parseCommand(argv: string[], word: string | undefined, specs: readonly CommandSpec[]): Parsed | { ok: false; error: unknown } {
  const cli = cac("memsync");
  let handler: Handler | undefined;
  let matched: CommandSpec | undefined;
  /** Options of the command being run that take a value: a negative number after one is that value. */
  const valueOptions = new Set<string>(["--store"]);

  cli.option("--store <dir>", "store folder (default: $MEMSYNC_HOME, else ~/.memsync)");
  cli.option("--json", "print the result as JSON");

  for (const spec of specs) {
    const cmd = cli.command(spec.usage, "");
    for (const a of spec.aliases ?? []) cmd.alias(a);
    if (spec.example) cmd.example(spec.example);
    if (word !== undefined && cmd.isMatched(word)) {
      matched = spec;
      spec.options?.(cmd);
      for (const o of cmd.options) if (o.rawName.includes("<")) for (const n of o.names) valueOptions.add(`--${n.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`);
      if (spec.maintenance && spec.usage.split(" ")[0] !== "maintainer") {
        cmd.option("--claim-maintainer", "make this machine the store's maintainer (another machine holds the role)");
      }
      // the edge build refuses maintenance whatever its options: the refusal, not an option error
      if (spec.maintenance && IS_EDGE) cmd.allowUnknownOptions();
    }
    cmd.action((...a: unknown[]) => {
      const flags = switchesAsBooleans(a[a.length - 1] as Flags);
      handler = spec.maintenance && IS_EDGE ? () => Promise.reject(edgeRefusal(spec.usage.split(" ")[0]!)) : () => spec.run(a.slice(0, -1), flags);
    });
  }

  // handled before parsing (selfDescription); declared so that no command refuses them
  cli.option("-h, --help", "show help");
  cli.option("-v, --version", "show the version");

  try {
    cli.parse(["memsync", "memsync", ...normalizeArgv(argv, valueOptions)], { run: false });
  } catch (error) {
    return { ok: false, error };
  }
  return { ok: true, cli, matched: matched as CommandSpec | undefined, handler: () => handler };
}

/** Run what the arguments parsed to, or report why they did not. */
async function finish(parsed: Parsed | { ok: false; error: unknown }, argv: string[]): Promise<number> {
  if (!parsed.ok) return report(parsed.error, argv.includes("--json"));
  const { cli, matched } = parsed;
  try {
    if (!cli.matchedCommand) {
      const first = cli.args[0];
      if (first !== undefined) throw unknownCommand(String(first));
      writeOut(shortUsage());
      return ERROR_CODES.usage;
    }
    // the edge build refuses maintenance as such, before judging its options
    if (IS_EDGE && matched?.maintenance) throw edgeRefusal(matched.usage.split(" ")[0]!);
    await cli.runMatchedCommand();
    const handler = parsed.handler();
    if (!handler) return 0;
    return printResult(await handler());
  } catch (e) {
    return report(e, argv.includes("--json"));
  }
}

/**
 * Four things cac's parser (mri) gets wrong, settled before it sees the arguments: a lone "-"
 * (standard input) is dropped or taken for a missing value; a short alias mixed with its long
 * form loses repeated values; a boolean option with a hyphen in its name (--dry-run) takes the
 * next word as its value; a negative number after an option that takes a value is read as short
 * options. Nothing after "--" is touched.
 */
function normalizeArgv(argv: string[], valueOptions: ReadonlySet<string>): string[] {
  const end = argv.indexOf("--");
  const out: string[] = [];
  const takesValue = (a: string) => valueOptions.has(SHORT_FLAGS.get(a) ?? a);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    // "--limit -3": mri reads -3 as short options; it is the option's value, for the command to judge
    if (next !== undefined && (end === -1 || i < end) && next !== "--" && valueOptions.has(a) && /^-\.?\d/.test(next)) {
      out.push(`${a}=${asGiven(a, next)}`);
      i++;
      continue;
    }
    out.push(normalizeOne(a, i));
  }
  return out;

  function normalizeOne(a: string, i: number): string {
    if (end !== -1 && i > end) return a;
    if (a === "-") return STDIN_ARG;
    if (HYPHENATED_SWITCHES.has(a)) return `${a}=true`;
    if (a.startsWith("-")) refuseInheritedName(a);
    // an option's value is kept as given: see asGiven
    if (i > 0 && (end === -1 || i < end) && takesValue(argv[i - 1]!) && !a.startsWith("-")) return asGiven(argv[i - 1]!, a);
    const eq = a.indexOf("=");
    if (eq > 0 && a.startsWith("-") && takesValue(a.slice(0, eq))) return `${a.slice(0, eq + 1)}${asGiven(a.slice(0, eq), a.slice(eq + 1))}`;
    return SHORT_FLAGS.get(a) ?? a;
  }
}

/**
 * mri turns a value that reads as a number into that number ("" -> 0, "007" -> 7, "0x10" -> 16,
 * "1e3" -> 1000), so `--tag ""` saved the tag "0" and `--project 007` the project "7". Such a
 * value (and every value of a text option) goes to the parser behind TEXT_MARK, which keeps it
 * text; str(), list() and texts() take the mark off. A number that reads back as itself ("2024")
 * is left alone.
 */
function asGiven(option: string, value: string): string {
  const n = +value;
  const changed = n * 0 === 0 && String(n) !== value;
  return TEXT_OPTIONS.has(option) || changed ? `${TEXT_MARK}${value}` : value;
}

/**
 * The parser keeps options in a plain object: an option named like one of Object.prototype's
 * members ("--constructor", "--__proto__", "--has-own-property") would read that member or set
 * the prototype instead of being refused as unknown. No memsync option has such a name.
 */
function refuseInheritedName(arg: string): void {
  const flag = arg.split("=")[0]!;
  const name = flag.replace(/^-+/, "").replace(/^no-/, "");
  const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  if (name in Object.prototype || camel in Object.prototype) throw usageError(`Unknown option \`${flag}\` (see memsync --help)`);
}

/** Options whose values are text however they read (their readers strip TEXT_MARK, see options.ts). */
const TEXT_OPTIONS = new Set(["--part", "--cluster"]);

// a Map, not an object: an argument such as "constructor" must not find Object.prototype's members
const SHORT_FLAGS = new Map([["-t", "--tag"], ["-e", "--entity"]]);

/** Options that take no value and have a hyphen in their name (--no-git is cac's negation). */
const HYPHENATED_SWITCHES = new Set(["--dry-run", "--keep-relations", "--claim-maintainer", "--memory-md"]);

/** Such a switch arrives as "--dry-run=true": the parsed value is the text "true"; make it a boolean. */
function switchesAsBooleans(flags: Flags): Flags {
  for (const sw of HYPHENATED_SWITCHES) {
    const key = sw.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (flags[key] === "true") flags[key] = true;
  }
  return flags;
}
