import * as v from "../../core/model/valibot.ts";
import { Num } from "../../core/model/common.ts";
import { usageError } from "../../core/errors.ts";
import type { GistLevel } from "../../core/gist.ts";
import { progress } from "../../sync/progress.ts";
import { withStore } from "../context.ts";
import { def } from "./schema.ts";

// Upkeep of the store as a whole, in both builds: commit, settings, backfill-gists, init,
// reindex, doctor, repack.

export const commit = def(() => v.object({}), (o) => o.CommitOutcome, async (call) => {
  const { commitStore } = await import("../commit.ts");
  return withStore(call.env, (store) => commitStore(store, call.env));
});

export const settings = def(
  () => v.object({
    /** One setting (decay.model ...); none: all of them. */
    key: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    /** With key: its new value (JSON, or text). */
    value: v.optional(v.pipe(v.string(), v.maxLength(10_000))),
  }),
  (o) =>
    v.object({
      settings: v.record(v.string(), v.unknown()),
      half_life_days: Num(),
      changed: v.nullable(v.object({ key: o.Text, from: v.unknown(), to: v.unknown() })),
    }),
  async (call, input) => {
    if (input.value !== undefined && input.key === undefined) throw usageError("a value needs the key it is for", { fields: ["key"] });
    const { setSetting, showSettings } = await import("../settings.ts");
    return withStore(call.env, (store) => (input.value === undefined ? showSettings(store, input.key) : setSetting(store, input.key!, input.value)));
  },
);

const LEVELS = ["light", "moderate", "aggressive"] as const satisfies readonly GistLevel[];

export const backfillGists = def(
  () => v.object({
    level: v.optional(v.picklist(LEVELS), "moderate"),
    /** What would be set, with the lengths before and after; change nothing. */
    dry_run: v.optional(v.boolean(), false),
    /** Make gists again for memories that have one. */
    force: v.optional(v.boolean(), false),
  }),
  (o) =>
    v.object({
      level: v.picklist(LEVELS),
      dry_run: o.Flag,
      force: o.Flag,
      examined: o.Count,
      changed: v.array(v.object({ id: o.Text, content_chars: o.Count, gist_chars: o.Count, gist: o.Text, previous_gist: o.NullableText })),
      skipped: v.object({ has_gist: o.Count, too_short: o.Count, not_shorter: o.Count, unchanged: o.Count }),
    }),
  async (call, input) => {
    const { backfillGists: run } = await import("../backfill-gists.ts");
    return withStore(call.env, (store) =>
      run(store, { level: input.level, dryRun: input.dry_run, force: input.force, onProgress: (phase, done, total) => progress(phase === "making" ? "making gists" : "writing", done, total) }),
    );
  },
);

export const init = def(
  () => v.object({ git: v.optional(v.boolean(), true) }),
  (o) =>
    v.object({
      root: o.Text,
      already_initialized: o.Flag,
      created: v.array(o.Text),
      git: v.nullable(v.object({ initialized: o.Flag, commit: o.NullableText, merge_driver: o.Text })),
    }),
  async (call, input) => {
    const { initStore } = await import("../init.ts");
    return initStore(call.env, { git: input.git });
  },
);

export const reindex = def(
  () => v.object({}),
  (o) => v.object({ memories: o.Count, relations: o.Count, problems: o.Count, millis: Num() }),
  async (call) => {
    const { reindex: run } = await import("../reindex.ts");
    return withStore(call.env, (store) => run(store));
  },
);

export const doctor = def(
  () => v.object({
    /** Copy git objects the store (or a remote on a local path) lacks from the other side; local commits are kept. */
    repair: v.optional(v.boolean(), false),
  }),
  (o) => {
    const Repair = v.object({
      restored: o.Count,
      packs_moved: v.array(o.Text),
      damaged_moved: v.array(o.Text),
      lost: v.array(o.MissingObject),
      leftovers_removed: o.Count,
      tracking_removed: o.Flag,
      source: o.Text,
    });
    return v.object({
      ok: o.Flag,
      checks: v.array(v.object({ check: o.Text, ok: o.Flag, detail: o.Text })),
      repair: v.optional(v.object({ local: v.optional(Repair), remote: v.optional(Repair) })),
      lost: v.array(o.MissingObject),
    });
  },
  async (call, input) => {
    const { doctor: run } = await import("../doctor.ts");
    return run(call.env, { repair: input.repair });
  },
);

export const repack = def(
  () => v.object({
    /** Every pack into one (git's repack -A); otherwise the loose objects and the packs small beside them. */
    all: v.optional(v.boolean(), false),
  }),
  (o) =>
    v.object({
      objects: o.Count,
      pack: o.NullableText,
      loose_removed: o.Count,
      packs_replaced: o.Count,
      bytes_before: o.Count,
      bytes_after: o.Count,
    }),
  async (call, input) => {
    const { repackStore } = await import("../repack.ts");
    return withStore(call.env, (store) => repackStore(store, { all: input.all }));
  },
);
