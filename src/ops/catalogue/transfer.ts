import * as v from "../../core/model/valibot.ts";
import { Int, Num } from "../../core/model/common.ts";
import path from "node:path";
import { invalidInput } from "../../core/errors.ts";
import type { OpCall } from "./index.ts";
import { def } from "./schema.ts";

// import and export: files of this machine in and out of the store. Which files is chosen where
// memsync runs (the CLI's working directory), never by a request to a server, as promote's vault.

const FORMATS_IN = ["cortexgraph", "orchestkit", "mcp-memory", "jsonl"] as const;
const FORMATS_OUT = ["cortexgraph", "mcp-memory", "jsonl", "markdown"] as const;

const PathText = v.pipe(v.string(), v.minLength(1), v.maxLength(4096));

function localPath(call: OpCall, given: string, op: string): string {
  if (call.cwd === undefined) throw invalidInput(`${op}: the files it ${op === "import" ? "reads" : "writes"} are named where memsync runs (memsync ${op} on that machine), never by a request`, { fields: ["path"] });
  if (given.includes("\0")) throw invalidInput(`${op}: path holds a NUL character`, { fields: ["path"] });
  return path.resolve(call.cwd, given);
}

export const importOp = def(
  () =>
    v.object({
      format: v.picklist(FORMATS_IN),
      /** The other tool's folder or file (cortexgraph: its jsonl folder; orchestkit: .claude/memory/; mcp-memory: memory.jsonl; jsonl: a memsync backup). */
      path: PathText,
      /** Report what would be imported; write nothing. */
      dry_run: v.optional(v.boolean(), false),
      /** The project of every imported memory that names none. */
      project: v.optional(v.nullable(v.pipe(v.string(), v.check((p) => p.trim() !== "", "must not be empty"), v.maxLength(500))), null),
    }),
  (o) => {
    const Count = o.Count;
    return v.object({
      format: v.picklist(FORMATS_IN),
      source: o.Text,
      dry_run: o.Flag,
      memories: v.object({ imported: Count, existing: Count, invalid: Count }),
      relations: v.object({ imported: Count, existing: Count, missing_memory: Count, invalid: Count }),
      graph: v.object({ entities: Count, relations: Count, observations: Int() }),
      stats: v.record(v.string(), Num()),
      problems: v.array(v.object({ file: o.Text, line: Count, problem: o.Text })),
      problems_total: Count,
      message: o.NullableText,
      commit: o.NullableText,
      store_created: o.Flag,
    });
  },
  async (call, input) => {
    const at = localPath(call, input.path, "import");
    const { importOp: run } = await import("../import.ts");
    return run(call.env, { format: input.format, path: at, dryRun: input.dry_run, project: input.project });
  },
);

export const exportOp = def(
  () =>
    v.object({
      format: v.picklist(FORMATS_OUT),
      /** cortexgraph, markdown: a folder; jsonl, mcp-memory: a file (mcp-memory: or a folder, for memory.jsonl in it). */
      path: PathText,
      /** Replace files that exist. */
      force: v.optional(v.boolean(), false),
    }),
  (o) =>
    v.object({
      format: v.picklist(FORMATS_OUT),
      path: o.Text,
      files: v.array(o.Text),
      memories: o.Count,
      relations: o.Count,
      unreadable: o.Problems,
    }),
  async (call, input) => {
    const at = localPath(call, input.path, "export");
    const { exportOp: run } = await import("../export.ts");
    return run(call.env, { format: input.format, path: at, force: input.force });
  },
);
