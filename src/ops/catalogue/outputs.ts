import * as z from "zod/mini";
import { MemoryMetaSchema, MemorySchema } from "../../core/model/memory.ts";
import { RelationSchema } from "../../core/model/relation.ts";

// Pieces the catalogue's output schemas share: the records as operations return them, and the
// small shapes many outcomes repeat. Loaded only when an output schema is asked for (documents,
// tests), never by a call.

/** A memory as returned: its tags already clean, so the schema has no transform (JSON Schema can say it). */
export const Memory = z.extend(MemorySchema, { meta: z.extend(MemoryMetaSchema, { tags: z.array(z.string()) }) });
export const Relation = RelationSchema;

export const Ids = z.array(z.string());
export const Text = z.string();
export const NullableText = z.nullable(z.string());
export const Count = z.int().check(z.gte(0));
export const Seconds = z.number();
export const NullableSeconds = z.nullable(z.number());
export const Flag = z.boolean();

export const Unreadable = z.array(z.object({ id: Text, path: Text, problem: Text }));
export const Problems = z.array(z.object({ path: Text, problem: Text }));
export const Skipped = z.array(z.object({ id: Text, reason: Text }));

/** The maintainer role as a maintenance run found or took it. */
export const Maintainer = z.object({ machine: Text, claimed: Flag, previous: NullableText });

export const OtherText = z.object({ n: Count, content: Text, updated_at: NullableSeconds, machine: NullableText });

/** A memory's conflicting texts (core/conflict-view.ts). */
export const ConflictEntry = z.object({ id: Text, short_id: Text, type: Text, status: Text, content: Text, updated_at: NullableSeconds, others: z.array(OtherText) });

export const MissingObject = z.object({ oid: Text, kind: Text, where: Text, ref: Text, damaged: Flag });

/** One commit step (sync/commit.ts CommitOutcome). */
export const CommitOutcome = z.object({
  commits: z.array(z.object({ oid: Text, message: Text, paths: z.array(Text) })),
  head: NullableText,
  full_compare: Flag,
  skipped: Problems,
});

export const PullResult = z.object({
  mode: z.enum(["up-to-date", "fast-forward", "merge", "empty-remote"]),
  commits_in: Count,
  memories_added: Count,
  memories_changed: Count,
  memories_removed: Count,
  conflicts_resolved: Count,
  text_conflicts: z.array(Text),
  skipped: z.array(Text),
  kept_local: z.array(Text),
  head: NullableText,
});

export const PushResult = z.object({
  pushed: Flag,
  commits_out: Count,
  attempts: Count,
  head: NullableText,
  pulled: z.array(PullResult),
});

/** Free JSON: fields of a record as given or planned. */
export const Fields = z.record(z.string(), z.unknown());
