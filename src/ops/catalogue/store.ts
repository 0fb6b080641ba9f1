import * as z from "zod/mini";
import { corrupt } from "../../core/errors.ts";
import { isShortId, parseId } from "../../core/ids.ts";
import type { Resolution } from "../conflicts.ts";
import { withStore } from "../context.ts";
import { storeStatus } from "../status.ts";
import { def, IdText, int } from "./schema.ts";

// The store as a whole: status, conflicts and resolve, sync.

const Counts = () => z.record(z.string(), z.number());

export const status = def(
  () => z.object({}),
  (o) =>
    z.object({
      store: o.Text,
      health: z.enum(["healthy", "degraded", "unavailable"]),
      reasons: z.array(o.Text),
      memories: z.nullable(z.object({ total: o.Count, by_status: Counts(), by_type: Counts() })),
      relations: z.nullable(z.object({ total: o.Count, dangling: z.array(z.object({ id: o.Text, from_id: o.Text, to_id: o.Text })) })),
      content_conflicts: z.nullable(o.Count),
      problems: o.Problems,
      temp_files: z.array(o.Text),
      links: z.array(o.Text),
      layout: z.nullable(z.object({ setting: o.Text, shard_threshold: z.number(), new_records_sharded: o.Flag })),
      meta: z.nullable(z.object({ storage_version: z.number(), created_at: o.Seconds, machine_id: o.NullableText })),
      index: o.Text,
      uncommitted_changes: z.nullable(o.Count),
      unpushed_commits: z.nullable(o.Count),
      git_objects: z.nullable(
        z.object({ commits: o.Count, trees: o.Count, blobs: o.Count, missing: z.array(o.MissingObject), broken_packs: z.array(o.Text), damaged_refs: z.array(o.Text) }),
      ),
    }),
  (call) => storeStatus(call.env),
);

export const conflicts = def(() => z.object({}), (o) => z.object({ total: o.Count, conflicts: z.array(o.ConflictEntry) }), async (call) => {
  const { listConflicts } = await import("../conflicts.ts");
  return withStore(call.env, (store) => listConflicts(store));
});

export const resolve = def(
  () => z.object({
    id: IdText,
    /** ours: the current text; theirs: another text (pick: which, from 1); both: all texts joined. */
    keep: z.optional(z.enum(["ours", "theirs", "both"])),
    pick: z.optional(int(1, 1_000_000)),
    content: z.optional(z.string()),
  }),
  (o) =>
    z.object({
      memory: o.Memory,
      resolution: z.enum(["ours", "theirs", "both", "content"]),
      before: z.object({ content: o.Text, others: z.array(o.OtherText) }),
    }),
  async (call, input) => {
    // a full id, or a short one (as get takes it)
    const id = isShortId(input.id) ? input.id.trim().toLowerCase() : parseId(input.id);
    const { usageError } = await import("../../core/errors.ts");
    const fields = { fields: ["keep", "content", "pick"] };
    if (input.keep !== undefined && input.content !== undefined) throw usageError("give either keep (ours, theirs or both) or content, not both", fields);
    if (input.keep === undefined && input.content === undefined) throw usageError("say how to resolve: keep ours|theirs|both, or content", fields);
    if (input.pick !== undefined && input.keep !== "theirs") throw usageError("pick chooses among the other texts: use it with keep theirs", fields);
    const how: Resolution =
      input.content !== undefined
        ? { content: input.content }
        : input.keep === "theirs"
          ? { keep: "theirs", ...(input.pick !== undefined ? { pick: input.pick } : {}) }
          : { keep: input.keep as "ours" | "both" };
    const { resolveConflict } = await import("../conflicts.ts");
    return withStore(call.env, (store) => resolveConflict(store, id, how));
  },
);

export const sync = def(
  () => z.object({ direction: z._default(z.enum(["sync", "pull", "push"]), "sync") }),
  (o) => z.object({ commit: o.CommitOutcome, pull: z.optional(o.PullResult), push: z.optional(o.PushResult), repaired_objects: z.optional(o.Count) }),
  async (call, input) => {
  const ops = await import("../sync.ts");
  const env = call.env;
  type Out = { commit: Awaited<ReturnType<typeof ops.syncOp>>["commit"]; pull?: Awaited<ReturnType<typeof ops.pullOp>>["pull"]; push?: Awaited<ReturnType<typeof ops.pushOp>>["push"] };
  const what = input.direction;
  const run = () => withStore(env, (store): Promise<Out> => (what === "pull" ? ops.pullOp(store, env) : what === "push" ? ops.pushOp(store, env) : ops.syncOp(store, env)));
  try {
    return (await run()) as Out & { repaired_objects?: number };
  } catch (e) {
    // a repository whose refs name missing objects (a fetch or push killed by an older memsync):
    // restore them from the other side, as doctor --repair does, and try once more
    const { healObjects, isMissingObjectError } = await import("../doctor.ts");
    if (!isMissingObjectError(e)) throw e;
    const healed = await healObjects(env);
    if (healed.restored === 0) throw corrupt(`${e instanceof Error ? e.message : String(e)} (run: memsync doctor --repair)`);
    return { ...(await run()), repaired_objects: healed.restored };
  }
  },
);
