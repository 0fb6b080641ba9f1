import * as v from "../../core/model/valibot.ts";
import { parseId } from "../../core/ids.ts";
import { withStore } from "../context.ts";
import { resolveId } from "../id-lookup.ts";
import { def, IdText, int } from "./schema.ts";

// history: the commits that touched a memory (ops/history.ts), newest first, bounded.

export const history = def(
  () => v.object({
    id: IdText,
    limit: v.optional(int(1, 1000), 20),
    /** At most this many commits are read, newest first. */
    scan: v.optional(int(1, 100_000), 500),
  }),
  (o) =>
    v.object({
      id: o.Text,
      commits: v.array(v.object({ oid: o.Text, message: o.Text, author: o.Text, at: o.Seconds, change: v.picklist(["added", "changed", "removed"]) })),
      scanned: o.Count,
      more: o.Flag,
    }),
  async (call, input) => {
    const { memoryHistory } = await import("../history.ts");
    // a full id is read from history as it is (the memory may be gone); a short one is looked up
    const id = /^[0-9a-f-]{36}$/i.test(input.id.trim()) ? parseId(input.id) : await withStore(call.env, (store) => resolveId(store, input.id));
    return memoryHistory(call.env.storeRoot, id, input.limit, input.scan);
  },
);
