import type { GenericSchema } from "valibot";
import type { ProgressListener } from "../../sync/progress.ts";
import type { OpsEnv } from "../context.ts";

// The one catalogue of operations. Every operation is declared here once: its name, a one-line
// summary and its flags; its input schema (valibot: the one place its defaults, limits and id
// parsing live), output schema and run function sit in the module `load` imports, so a face pays
// only for the operation it runs. json-schema.ts turns both schemas into JSON Schema documents. The CLI's commands call through it (faces/cli); the API's routes and the
// MCP tools are to be derived from it the same way (issue 11 part 2, issue 12).
//
// Maintenance entries are declared under the edition condition written out on the defined name
// (see runtime/edition.ts), so the bundler leaves them, and the modules they load, out of the
// edge binary: no face can pull them back in.

declare const MEMSYNC_EDITION: string | undefined;

/** What one call of an operation gets besides its input: plain values, never CLI flags. */
export interface OpCall {
  env: OpsEnv;
  /** The caller's working directory (project resolution); none for a server, which names projects. */
  cwd?: string;
  /** Where this call's progress goes (bound to the call, see sync/progress.ts). */
  progress?: ProgressListener;
}

/** A valibot schema of what an operation returns. */
export type OutputSchema = GenericSchema;

/** An operation's schemas and function, loaded on demand. */
export interface OpImpl<I = unknown, O = unknown> {
  /** valibot schema of the input (defaults applied, limits checked). */
  input: GenericSchema<unknown, I>;
  /** valibot schema of what run returns, built on first ask (documents, tests; a call never needs it). */
  output(): Promise<OutputSchema>;
  run(call: OpCall, input: I): Promise<O>;
}

export interface OpInfo {
  name: string;
  summary: string;
  /** Main build only, on the store's maintainer machine; absent from the edge build. */
  maintenance: boolean;
  /** Changes nothing in the store. */
  readOnly: boolean;
  /** Removes or overwrites what cannot be got back from the store itself (only from git history). */
  destructive: boolean;
  /** Running it twice with the same input leaves the store as running it once. */
  idempotent: boolean;
  /** Name of the output type (the run function's result); its schema is the loaded entry's output(). */
  output: string;
  load(): Promise<OpImpl<any, any>>;
}

type Flags = Pick<OpInfo, "readOnly" | "destructive" | "idempotent">;
const READ: Flags = { readOnly: true, destructive: false, idempotent: true };
const WRITE: Flags = { readOnly: false, destructive: false, idempotent: false };
const IDEMPOTENT: Flags = { readOnly: false, destructive: false, idempotent: true };
const DESTROY: Flags = { readOnly: false, destructive: true, idempotent: true };
/** Removes memories, and a second run finds other work (merging what is left, splitting a part). */
const RESHAPE: Flags = { readOnly: false, destructive: true, idempotent: false };

const records = () => import("./records.ts");
const queries = () => import("./queries.ts");
const store = () => import("./store.ts");
const capture = () => import("./capture.ts");
const upkeep = () => import("./upkeep.ts");
const transfer = () => import("./transfer.ts");

const op = (name: string, summary: string, flags: Flags, output: string, load: () => Promise<object>, key = name): OpInfo => ({
  name,
  summary,
  maintenance: false,
  ...flags,
  output,
  load: async () => (await load() as Record<string, OpImpl<any, any>>)[key]!,
});

const EVERYDAY: OpInfo[] = [
  op("save", "store new memories as given (one, or a list in one commit); creates the store if there is none", WRITE, "SaveResult", records),
  op("remember", "store a memory, reading its type, decision, entities, confidence and scope from the text", WRITE, "RememberResult", capture),
  op("capture", "store the decisions, preferences, problems and solutions a text (or a Claude Code hook payload) states", WRITE, "CaptureResult", capture),
  op("get", "memories by id (full or abbreviated), with their incoming and outgoing relations", READ, "GetOutcome", records),
  op("update", "change a memory's content or fields", IDEMPOTENT, "EditOutcome", records),
  op("touch", "record a use: use_count + 1, last_used = now (strength + 0.1 with boost)", WRITE, "EditOutcome", records),
  op("archive", "mark memories archived (kept, hidden from list and search by default)", IDEMPOTENT, "EditOutcome", records),
  op("delete", "delete memories and the relations that name them", DESTROY, "DeleteOutcome", records, "remove"),
  op("relate", "relate two memories", WRITE, "RelateOutcome", records),
  op("unrelate", "remove relations by id", DESTROY, "UnrelateOutcome", records),
  op("list", "list memories, newest first (default limit 50)", READ, "ListOutcome", queries),
  op("search", "memories whose content, gist, tags or entities match the words, best first (default limit 20)", READ, "SearchOutcome", queries),
  op("recall", "the memories most relevant to a query, as a block for an agent's context", READ, "RecallOutcome", queries),
  op("context", 'the "Recent Project Decisions" block for a project', READ, "ContextOutcome", queries),
  op("graph", "a page of memories (newest first) with the relations that touch them, and the totals to page on", READ, "GraphPage", queries),
  op("score", "decay scores: the score, when it falls under the forget threshold, review priority, promotion", READ, "ScoreOutcome", queries),
  op("history", "the commits that touched a memory's record file, newest first (bounded: scan at most N commits)", READ, "HistoryOutcome", () => import("./history.ts")),
  op("status", "counts, corrupt files and health: healthy, degraded or unavailable", READ, "StatusOutcome", store),
  op("conflicts", "memories whose content two machines edited at once", READ, "ConflictsOutcome", store),
  op("resolve", "settle a content conflict: keep ours, theirs or both, or new content", WRITE, "ResolveOutcome", store),
  op("sync", "commit pending changes, pull, push (or only pull, or only push)", WRITE, "SyncOutcome", store),
  op("commit", "commit pending changes to the store's git history, one commit per operation (no network)", IDEMPOTENT, "CommitOutcome", upkeep),
  op("settings", "the store's shared settings (decay model, thresholds, layout); with a value, change one", IDEMPOTENT, "SettingsOutcome", upkeep),
  op("backfill-gists", "make gists for memories that have none, in one commit", DESTROY, "BackfillOutcome", upkeep, "backfillGists"),
  op("init", "create a store: record folders, .meta.json, .gitattributes and a git repository", IDEMPOTENT, "InitOutcome", upkeep),
  op("reindex", "rebuild the local index from the record files", IDEMPOTENT, "ReindexOutcome", upkeep),
  op("import", "read another tool's memories (cortexgraph, orchestkit, mcp-memory) or a memsync backup (jsonl) into the store, in one commit; a second run changes nothing", IDEMPOTENT, "ImportOutcome", transfer, "importOp"),
  op("export", "write the store's memories for another tool (cortexgraph, mcp-memory), as a backup (jsonl) or as Markdown notes (markdown)", IDEMPOTENT, "ExportOutcome", transfer, "exportOp"),
  op("doctor", "check the store's git set-up and its git objects; with repair, restore missing objects from the remote", IDEMPOTENT, "DoctorOutcome", upkeep),
  op("repack", "combine the store's loose git objects and packs into one pack (sync and commit do it past git's gc.auto limits)", IDEMPOTENT, "RepackOutcome", upkeep),
];

/** Maintenance: left out of the edge build at build time (the condition must stay written out here). */
const MAINTENANCE: OpInfo[] =
  typeof MEMSYNC_EDITION === "string" && MEMSYNC_EDITION === "edge"
    ? []
    : [
        op("gc", "prune or archive active memories whose decay score fell under the forget threshold", DESTROY, "GcOutcome", () => import("./maintenance.ts")),
        op("promote", "write memories to the long-term vault as Markdown notes and mark them promoted", WRITE, "PromoteOutcome", () => import("./maintenance.ts")),
        op("consolidate", "find clusters of near-duplicate memories: a preview; apply merges them, link relates them", RESHAPE, "ConsolidateOutcome", () => import("./maintenance.ts")),
        op("split", "split a memory into atomic parts (at least two), in one commit", RESHAPE, "SplitOutcome", () => import("./maintenance.ts")),
        op("split-candidates", "memories worth splitting, with the reasons and suggested parts", READ, "SplitCandidates", () => import("./maintenance.ts"), "splitCandidates"),
        op("maintainer", "which machine maintains this store (gc, consolidate, split, promote); claim makes it this one", IDEMPOTENT, "MaintainerInfo", () => import("./maintenance.ts")),
      ].map((o) => ({ ...o, maintenance: true }));

export const CATALOGUE: readonly OpInfo[] = [...EVERYDAY, ...MAINTENANCE];

export function opNamed(name: string): OpInfo | undefined {
  return CATALOGUE.find((o) => o.name === name);
}
