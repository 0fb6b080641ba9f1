import * as v from "../../core/model/valibot.ts";
import { Int, Num } from "../../core/model/common.ts";
import { MemoryMetaSchema, MemorySchema } from "../../core/model/memory.ts";
import { RelationSchema } from "../../core/model/relation.ts";

// Pieces the catalogue's output schemas share: the records as operations return them, and the
// small shapes many outcomes repeat. Loaded only when an output schema is asked for (documents,
// tests), never by a call.

/** A memory as returned: its tags already clean, so the schema has no transform (JSON Schema can say it). */
export const Memory = v.looseObject({ ...MemorySchema.entries, meta: v.looseObject({ ...MemoryMetaSchema.entries, tags: v.array(v.string()) }) });
export const Relation = RelationSchema;

export const Ids = v.array(v.string());
export const Text = v.string();
export const NullableText = v.nullable(v.string());
export const Count = v.pipe(Int(), v.minValue(0));
export const Seconds = Num();
export const NullableSeconds = v.nullable(Num());
export const Flag = v.boolean();

export const Unreadable = v.array(v.object({ id: Text, path: Text, problem: Text }));
export const Problems = v.array(v.object({ path: Text, problem: Text }));
export const Skipped = v.array(v.object({ id: Text, reason: Text }));

/** The maintainer role as a maintenance run found or took it. */
export const Maintainer = v.object({ machine: Text, claimed: Flag, previous: NullableText });

export const OtherText = v.object({ n: Count, content: Text, updated_at: NullableSeconds, machine: NullableText });

/** A memory's conflicting texts (core/conflict-view.ts). */
export const ConflictEntry = v.object({ id: Text, short_id: Text, type: Text, status: Text, content: Text, updated_at: NullableSeconds, others: v.array(OtherText) });

export const MissingObject = v.object({ oid: Text, kind: Text, where: Text, ref: Text, damaged: Flag });

/** One commit step (sync/commit.ts CommitOutcome). */
export const CommitOutcome = v.object({
  commits: v.array(v.object({ oid: Text, message: Text, paths: v.array(Text) })),
  head: NullableText,
  full_compare: Flag,
  skipped: Problems,
});

export const PullResult = v.object({
  mode: v.picklist(["up-to-date", "fast-forward", "merge", "empty-remote"]),
  commits_in: Count,
  memories_added: Count,
  memories_changed: Count,
  memories_removed: Count,
  conflicts_resolved: Count,
  text_conflicts: v.array(Text),
  skipped: v.array(Text),
  kept_local: v.array(Text),
  head: NullableText,
});

export const PushResult = v.object({
  pushed: Flag,
  commits_out: Count,
  attempts: Count,
  head: NullableText,
  pulled: v.array(PullResult),
});

/** Free JSON: fields of a record as given or planned. */
export const Fields = v.record(v.string(), v.unknown());
