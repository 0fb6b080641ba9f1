import * as z from "zod/mini";
import { usageError } from "../../core/errors.ts";
import type { GistLevel } from "../../core/gist.ts";
import { progress } from "../../sync/progress.ts";
import { withStore } from "../context.ts";
import { def } from "./schema.ts";

// Upkeep of the store as a whole, in both builds: commit, settings, backfill-gists, init,
// reindex, doctor, repack.

export const commit = def(() => z.object({}), (o) => o.CommitOutcome, async (call) => {
  const { commitStore } = await import("../commit.ts");
  return withStore(call.env, (store) => commitStore(store, call.env));
});

export const settings = def(
  () => z.object({
    /** One setting (decay.model ...); none: all of them. */
    key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    /** With key: its new value (JSON, or text). */
    value: z.optional(z.string().check(z.maxLength(10_000))),
  }),
  (o) =>
    z.object({
      settings: z.record(z.string(), z.unknown()),
      half_life_days: z.number(),
      changed: z.nullable(z.object({ key: o.Text, from: z.unknown(), to: z.unknown() })),
    }),
  async (call, input) => {
    if (input.value !== undefined && input.key === undefined) throw usageError("a value needs the key it is for", { fields: ["key"] });
    const { setSetting, showSettings } = await import("../settings.ts");
    return withStore(call.env, (store) => (input.value === undefined ? showSettings(store, input.key) : setSetting(store, input.key!, input.value)));
  },
);

const LEVELS = ["light", "moderate", "aggressive"] as const satisfies readonly GistLevel[];

export const backfillGists = def(
  () => z.object({
    level: z._default(z.enum(LEVELS), "moderate"),
    /** What would be set, with the lengths before and after; change nothing. */
    dry_run: z._default(z.boolean(), false),
    /** Make gists again for memories that have one. */
    force: z._default(z.boolean(), false),
  }),
  (o) =>
    z.object({
      level: z.enum(LEVELS),
      dry_run: o.Flag,
      force: o.Flag,
      examined: o.Count,
      changed: z.array(z.object({ id: o.Text, content_chars: o.Count, gist_chars: o.Count, gist: o.Text, previous_gist: o.NullableText })),
      skipped: z.object({ has_gist: o.Count, too_short: o.Count, not_shorter: o.Count, unchanged: o.Count }),
    }),
  async (call, input) => {
    const { backfillGists: run } = await import("../backfill-gists.ts");
    return withStore(call.env, (store) =>
      run(store, { level: input.level, dryRun: input.dry_run, force: input.force, onProgress: (phase, done, total) => progress(phase === "making" ? "making gists" : "writing", done, total) }),
    );
  },
);

export const init = def(
  () => z.object({ git: z._default(z.boolean(), true) }),
  (o) =>
    z.object({
      root: o.Text,
      already_initialized: o.Flag,
      created: z.array(o.Text),
      git: z.nullable(z.object({ initialized: o.Flag, commit: o.NullableText, merge_driver: o.Text })),
    }),
  async (call, input) => {
    const { initStore } = await import("../init.ts");
    return initStore(call.env, { git: input.git });
  },
);

export const reindex = def(
  () => z.object({}),
  (o) => z.object({ memories: o.Count, relations: o.Count, problems: o.Count, millis: z.number() }),
  async (call) => {
    const { reindex: run } = await import("../reindex.ts");
    return withStore(call.env, (store) => run(store));
  },
);

export const doctor = def(
  () => z.object({
    /** Copy git objects the store (or a remote on a local path) lacks from the other side; local commits are kept. */
    repair: z._default(z.boolean(), false),
  }),
  (o) => {
    const Repair = z.object({
      restored: o.Count,
      packs_moved: z.array(o.Text),
      damaged_moved: z.array(o.Text),
      lost: z.array(o.MissingObject),
      leftovers_removed: o.Count,
      tracking_removed: o.Flag,
      source: o.Text,
    });
    return z.object({
      ok: o.Flag,
      checks: z.array(z.object({ check: o.Text, ok: o.Flag, detail: o.Text })),
      repair: z.optional(z.object({ local: z.optional(Repair), remote: z.optional(Repair) })),
      lost: z.array(o.MissingObject),
    });
  },
  async (call, input) => {
    const { doctor: run } = await import("../doctor.ts");
    return run(call.env, { repair: input.repair });
  },
);

export const repack = def(
  () => z.object({
    /** Every pack into one (git's repack -A); otherwise the loose objects and the packs small beside them. */
    all: z._default(z.boolean(), false),
  }),
  (o) =>
    z.object({
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
