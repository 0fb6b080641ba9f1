import * as v from "../../core/model/valibot.ts";
import { MemsyncError } from "../../core/errors.ts";
import { RELATION_TYPES } from "../../core/model/vocab.ts";
import type { JsonObject, LabelEdits } from "../../core/records.ts";
import { withStore } from "../context.ts";
import { resolveId, resolveIds } from "../id-lookup.ts";
import type { OpCall } from "./index.ts";
import { def, IdList, IdText, Json, num, parseIds, Texts } from "./schema.ts";

// The operations on single records: save, get, update, touch, archive, delete, relate, unrelate.
// Each entry loads its own operation's module when it runs: a get never evaluates save's (the
// gist rules, the capture vocabulary, record building), which is most of a cold get's start-up.

const editOps = () => import("../edit.ts");
const markOps = () => import("../mark.ts");

import type { SaveResult } from "../save-entry.ts";

export type { SaveResult };

export const save = def(
  () => v.object({
    /** One memory's fields (content required), or many: `memories`, checked all first, one commit. */
    memory: v.optional(Json),
    memories: v.optional(v.pipe(v.array(Json), v.minLength(1), v.maxLength(100_000))),
    /** What each of `memories` is called in errors (record 3, line 7). */
    labels: v.optional(v.array(v.string())),
  }),
  (o) => {
    const saved = { memory: o.Memory, path: o.Text };
    return v.union([v.object({ ...saved, store_created: o.Flag }), v.object({ saved: v.array(v.object(saved)), store_created: o.Flag })]);
  },
  async (call, input): Promise<SaveResult> => (await import("../save-entry.ts")).saveEntry(call, input),
);

const Edited = (o: typeof import("./outputs.ts")) => v.object({ memories: v.array(o.Memory), unchanged: o.Ids });

export const get = def(
  () => v.object({ ids: IdList }),
  (o) =>
    v.object({
      found: v.array(v.object({ memory: o.Memory, path: o.Text, outgoing: v.array(o.Relation), incoming: v.array(o.Relation) })),
      not_found: o.Ids,
      unreadable: o.Unreadable,
    }),
  async (call, input) => (await import("../get.ts")).getByIds(call.env, input.ids),
);

const Edits = () =>
  v.object({
  add_tags: v.optional(Texts, []),
  remove_tags: v.optional(Texts, []),
  add_entities: v.optional(Texts, []),
  remove_entities: v.optional(Texts, []),
});

export const update = def(
  () => v.object({ id: IdText, patch: v.optional(Json, {}), edits: v.optional(Edits(), { add_tags: [], remove_tags: [], add_entities: [], remove_entities: [] }) }),
  Edited,
  async (call, input) => {
    parseIds([input.id]);
    const edits: LabelEdits = { addTags: input.edits.add_tags, removeTags: input.edits.remove_tags, addEntities: input.edits.add_entities, removeEntities: input.edits.remove_entities };
    if (Object.keys(input.patch).length === 0 && Object.values(edits).every((v) => v!.length === 0)) {
      throw new MemsyncError("usage", "nothing to update: patch and edits are both empty");
    }
    const { updateMemoryOp } = await editOps();
    return withStore(call.env, async (store) => updateMemoryOp(store, await resolveId(store, input.id), input.patch as JsonObject, edits));
  },
);

export const touch = def(() => v.object({ ids: IdList, boost: v.optional(v.boolean(), false) }), Edited, async (call, input) => {
  parseIds(input.ids);
  const { touchMemories } = await markOps();
  return withStore(call.env, async (store) => touchMemories(store, call.env, await resolveIds(store, input.ids), input.boost));
});

export const archive = def(() => v.object({ ids: IdList }), Edited, async (call, input) => {
  parseIds(input.ids);
  const { archiveMemories } = await markOps();
  return withStore(call.env, async (store) => archiveMemories(store, await resolveIds(store, input.ids)));
});

export const remove = def(
  () => v.object({ ids: IdList, keep_relations: v.optional(v.boolean(), false) }),
  (o) => v.object({ deleted: o.Ids, relations_removed: o.Ids, relations_dangling: o.Ids }),
  async (call, input) => {
  parseIds(input.ids);
  const { deleteMemories } = await import("../delete.ts");
  return withStore(call.env, async (store) => deleteMemories(store, await resolveIds(store, input.ids), input.keep_relations));
  },
);

export const relate = def(
  () => v.object({
    from: IdText,
    to: IdText,
    type: v.optional(v.picklist(RELATION_TYPES), "related"),
    strength: v.optional(num(0, 1)),
    metadata: v.optional(Json, {}),
  }),
  (o) => v.object({ relation: o.Relation, path: o.Text }),
  async (call, input) => {
    parseIds([input.from], "from id");
    parseIds([input.to], "to id");
    const { relateMemories } = await import("../relate.ts");
    return withStore(call.env, async (store) => {
      const from = await resolveId(store, input.from, "memory", "from id");
      const to = await resolveId(store, input.to, "memory", "to id");
      return relateMemories(store, { from, to, type: input.type, strength: input.strength, metadata: input.metadata as JsonObject });
    });
  },
);

export const unrelate_ = def(() => v.object({ ids: IdList }), (o) => v.object({ removed: o.Ids }), async (call, input) => {
  parseIds(input.ids, "relation id");
  const { unrelate } = await import("../relate.ts");
  return withStore(call.env, async (store) => unrelate(store, await resolveIds(store, input.ids, "relation", "relation id")));
});
export { unrelate_ as unrelate };
