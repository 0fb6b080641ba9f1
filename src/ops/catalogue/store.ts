import * as v from "../../core/model/valibot.ts";
import { Num } from "../../core/model/common.ts";
import { corrupt } from "../../core/errors.ts";
import { isShortId, parseId } from "../../core/ids.ts";
import type { Resolution } from "../conflicts.ts";
import { withStore } from "../context.ts";
import { storeStatus } from "../status.ts";
import { def, IdText, int } from "./schema.ts";

// The store as a whole: status, conflicts and resolve, sync.

const Counts = () => v.record(v.string(), Num());

export const status = def(
  () => v.object({}),
  (o) =>
    v.object({
      store: o.Text,
      health: v.picklist(["healthy", "degraded", "unavailable"]),
      reasons: v.array(o.Text),
      read_only: o.Flag,
      memories: v.nullable(v.object({ total: o.Count, by_status: Counts(), by_type: Counts() })),
      relations: v.nullable(v.object({ total: o.Count, dangling: v.array(v.object({ id: o.Text, from_id: o.Text, to_id: o.Text })) })),
      content_conflicts: v.nullable(o.Count),
      problems: o.Problems,
      temp_files: v.array(o.Text),
      links: v.array(o.Text),
      layout: v.nullable(v.object({ setting: o.Text, shard_threshold: Num(), new_records_sharded: o.Flag })),
      meta: v.nullable(v.object({ storage_version: Num(), created_at: o.Seconds, machine_id: o.NullableText })),
      index: o.Text,
      uncommitted_changes: v.nullable(o.Count),
      unpushed_commits: v.nullable(o.Count),
      git_objects: v.nullable(
        v.object({ commits: o.Count, trees: o.Count, blobs: o.Count, missing: v.array(o.MissingObject), broken_packs: v.array(o.Text), damaged_refs: v.array(o.Text) }),
      ),
    }),
  (call) => storeStatus(call.env),
);

export const conflicts = def(() => v.object({}), (o) => v.object({ total: o.Count, conflicts: v.array(o.ConflictEntry) }), async (call) => {
  const { listConflicts } = await import("../conflicts.ts");
  return withStore(call.env, (store) => listConflicts(store));
});

export const resolve = def(
  () => v.object({
    id: IdText,
    /** ours: the current text; theirs: another text (pick: which, from 1); both: all texts joined. */
    keep: v.optional(v.picklist(["ours", "theirs", "both"])),
    pick: v.optional(int(1, 1_000_000)),
    content: v.optional(v.string()),
  }),
  (o) =>
    v.object({
      memory: o.Memory,
      resolution: v.picklist(["ours", "theirs", "both", "content"]),
      before: v.object({ content: o.Text, others: v.array(o.OtherText) }),
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
  () => v.object({ direction: v.optional(v.picklist(["sync", "pull", "push"]), "sync") }),
  // joined: this call ran no sync itself; one that began after it was asked succeeded meanwhile, and
  // its outcome is the answer (sync/sync-turns.ts)
  (o) => v.object({ commit: o.CommitOutcome, pull: v.optional(o.PullResult), push: v.optional(o.PushResult), repaired_objects: v.optional(o.Count), joined: v.optional(v.literal(true)) }),
  async (call, input) => {
  const ops = await import("../sync.ts");
  const env = call.env;
  type Out = { commit: Awaited<ReturnType<typeof ops.syncOp>>["commit"]; pull?: Awaited<ReturnType<typeof ops.pullOp>>["pull"]; push?: Awaited<ReturnType<typeof ops.pushOp>>["push"]; joined?: true };
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
