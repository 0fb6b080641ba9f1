import * as z from "zod/mini";
import { corrupt } from "../../core/errors.ts";
import { isShortId, parseId } from "../../core/ids.ts";
import type { Resolution } from "../conflicts.ts";
import { withStore } from "../context.ts";
import { storeStatus } from "../status.ts";
import type { OpImpl } from "./index.ts";
import { IdText, int } from "./schema.ts";

// The store as a whole: status, conflicts and resolve, sync.

const def = <I, O>(input: OpImpl<I, O>["input"], run: OpImpl<I, O>["run"]): OpImpl<I, O> => ({ input, run });

export const status = def(z.object({}), (call) => storeStatus(call.env));

export const conflicts = def(z.object({}), async (call) => {
  const { listConflicts } = await import("../conflicts.ts");
  return withStore(call.env, (store) => listConflicts(store));
});

export const resolve = def(
  z.object({
    id: IdText,
    /** ours: the current text; theirs: another text (pick: which, from 1); both: all texts joined. */
    keep: z.optional(z.enum(["ours", "theirs", "both"])),
    pick: z.optional(int(1, 1_000_000)),
    content: z.optional(z.string()),
  }),
  async (call, input) => {
    // a full id, or a short one (as get takes it)
    const id = isShortId(input.id) ? input.id.trim().toLowerCase() : parseId(input.id);
    const { usageError } = await import("../../core/errors.ts");
    if (input.keep !== undefined && input.content !== undefined) throw usageError("give either --keep ours|theirs|both or --content TEXT, not both");
    if (input.keep === undefined && input.content === undefined) throw usageError("say how to resolve: --keep ours|theirs|both, or --content TEXT");
    if (input.pick !== undefined && input.keep !== "theirs") throw usageError("--pick chooses among the other texts: use it with --keep theirs");
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

export const sync = def(z.object({ direction: z._default(z.enum(["sync", "pull", "push"]), "sync") }), async (call, input) => {
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
});
