import * as v from "../../core/model/valibot.ts";
import { Num } from "../../core/model/common.ts";
import path from "node:path";
import { CLUSTER_ID_RE } from "../../core/cluster/clusters.ts";
import { invalidInput, usageError } from "../../core/errors.ts";
import type { JsonObject } from "../../core/records.ts";
import type { SplitPart } from "../../core/split.ts";
import { withStore } from "../context.ts";
import { gcOp } from "../gc.ts";
import { resolveId, resolveIds } from "../id-lookup.ts";
import { promoteOp } from "../promote.ts";
import { def, IdText, int, MAX_IDS, num, parseIds, Texts } from "./schema.ts";

// Maintenance: main build only (catalogue/index.ts leaves this module out of the edge build).
// Each run that changes the store takes the maintainer role, or is refused on another machine
// unless claim_maintainer says to take it over.

/** Make this machine the store's maintainer (another machine holds the role). */
const Claim = () => v.optional(v.boolean(), false);

export const gc = def(
  () => v.object({
    /** Archive instead of deleting. */
    archive: v.optional(v.boolean(), false),
    dry_run: v.optional(v.boolean(), false),
    /** At most this many, the lowest scores first (0: all). */
    limit: v.optional(int(0, 100_000_000), 0),
    claim_maintainer: Claim(),
  }),
  (o) =>
    v.object({
      dry_run: o.Flag,
      action: v.picklist(["delete", "archive"]),
      forget_threshold: Num(),
      model: o.Text,
      scanned: o.Count,
      under_threshold: o.Count,
      candidates: v.array(v.object({ id: o.Text, score: Num(), use_count: o.Count, last_used: o.Seconds, strength: Num(), preview: v.optional(o.Text) })),
      removed: o.Ids,
      relations_removed: o.Ids,
      skipped: o.Skipped,
      last_gc_at: o.NullableSeconds,
      maintainer: v.nullable(o.Maintainer),
    }),
  (call, input) =>
    withStore(call.env, (store) => gcOp(store, call.env, { archive: input.archive, dryRun: input.dry_run, limit: input.limit ? input.limit : null, claim: input.claim_maintainer })),
);

export const promote = def(
  () => v.object({
    ids: v.optional(v.pipe(v.array(IdText), v.maxLength(MAX_IDS)), []),
    /** Every active memory the promotion rule selects. */
    auto: v.optional(v.boolean(), false),
    dry_run: v.optional(v.boolean(), false),
    /** The vault folder on this machine (never a synced setting); else MEMSYNC_VAULT where memsync runs. A caller with no working directory here (a server's) cannot name one. */
    vault: v.optional(v.nullable(v.string()), null),
    claim_maintainer: Claim(),
  }),
  (o) =>
    v.object({
      dry_run: o.Flag,
      vault: o.NullableText,
      promoted: v.array(v.object({ id: o.Text, score: Num(), reason: o.Text, note: o.Text, reused_note: o.Flag })),
      skipped: o.Skipped,
      maintainer: v.nullable(o.Maintainer),
    }),
  async (call, input) => {
    parseIds(input.ids);
    // a request to a server is not a user of this machine: it may not pick where files are written
    if (input.vault !== null && call.cwd === undefined) throw invalidInput("vault: where promoted notes go is set where memsync runs (MEMSYNC_VAULT), never by a request", { fields: ["vault"] });
    const vault = input.vault !== null ? path.resolve(call.cwd ?? "/", input.vault) : (call.env.vault ?? null);
    return withStore(call.env, async (store) =>
      promoteOp(store, call.env, { ids: await resolveIds(store, input.ids), auto: input.auto, dryRun: input.dry_run, vault, claim: input.claim_maintainer }),
    );
  },
);

export const consolidate = def(
  () => v.object({
    /** preview: the clusters; apply: merge each into one memory; link: relate its memories both ways. */
    mode: v.optional(v.picklist(["preview", "apply", "link"]), "preview"),
    /** Only these clusters, by the ids a preview shows; none: every cluster. */
    clusters: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(100))), v.maxLength(MAX_IDS)), []),
    /** Similarity needed (default 0.6); the same threshold finds the same clusters. */
    threshold: v.optional(num(0.05, 1)),
    claim_maintainer: Claim(),
  }),
  (o) => {
    const Member = v.object({
      id: o.Text,
      content: o.Text,
      type: o.Text,
      tags: v.array(o.Text),
      entities: v.array(o.Text),
      use_count: o.Count,
      strength: Num(),
      created_at: o.Seconds,
      last_used: o.Seconds,
    });
    return v.object({
      mode: v.picklist(["preview", "apply", "link"]),
      threshold: Num(),
      memories: o.Count,
      stats: v.object({ items: o.Count, candidates: o.Count, verified: o.Count }),
      clusters: v.array(
        v.object({
          id: o.Text,
          cohesion: Num(),
          members: v.array(Member),
          merged: v.nullable(v.omit(Member, ["id"])),
          problem: v.optional(o.Text),
        }),
      ),
      applied: v.array(
        v.object({
          cluster: o.Text,
          cohesion: Num(),
          sources: o.Ids,
          into: v.optional(o.Text),
          relations_created: o.Ids,
          relations_moved: o.Ids,
          relations_removed: o.Ids,
        }),
      ),
      maintainer: v.optional(v.object({ machine: o.Text, claimed: o.Flag })),
    });
  },
  async (call, input) => {
    const clusterIds = input.clusters.map((c) => {
      const id = c.trim().toLowerCase();
      if (!CLUSTER_ID_RE.test(id)) throw invalidInput(`invalid cluster id ${JSON.stringify(c.slice(0, 40))}: expected c and 12 hex digits, as a preview shows them`);
      return id;
    });
    const { consolidate: run } = await import("../consolidate.ts");
    return withStore(call.env, (store) => run(store, call.env, { mode: input.mode, threshold: input.threshold, clusterIds, claim: input.claim_maintainer }));
  },
);

/** A part: its text, or an object with content (and tags, entities, other record fields). */
const Part = () =>
  v.union([
  v.pipe(v.string(), v.maxLength(1_000_000)),
  v.looseObject({ content: v.pipe(v.string(), v.maxLength(1_000_000)), tags: v.optional(Texts), entities: v.optional(Texts) }),
]);

function partOf(p: v.InferOutput<ReturnType<typeof Part>>): SplitPart {
  if (typeof p === "string") return { content: p };
  const { content, tags, entities, ...fields } = p as JsonObject & { content: string; tags?: string[]; entities?: string[] };
  return { content, ...(tags !== undefined ? { tags } : {}), ...(entities !== undefined ? { entities } : {}), ...(Object.keys(fields).length ? { fields } : {}) };
}

export const split = def(
  () => v.object({
    id: IdText,
    /** In order; at least two. Labels not given are the original's. */
    parts: v.pipe(v.array(Part()), v.maxLength(1000)),
    /** Keep the original, archived, with its relations (default: remove it; its relations go to every part). */
    archive: v.optional(v.boolean(), false),
    claim_maintainer: Claim(),
  }),
  (o) =>
    v.object({
      original: o.Text,
      original_is: v.picklist(["removed", "archived"]),
      parts: v.array(o.Memory),
      relations_created: o.Ids,
      relations_copied: o.Ids,
      relations_removed: o.Ids,
      maintainer: v.object({ machine: o.Text, claimed: o.Flag }),
    }),
  async (call, input) => {
    parseIds([input.id]);
    const parts = input.parts.map(partOf);
    if (parts.length < 2) throw usageError("give at least two parts", { fields: ["parts"] });
    parts.forEach((p, i) => {
      if (p.content.trim() === "") throw invalidInput(`part ${i + 1} is empty`);
    });
    const { splitOp } = await import("../split.ts");
    return withStore(call.env, async (store) => splitOp(store, call.env, { id: await resolveId(store, input.id), parts, archive: input.archive, claim: input.claim_maintainer }));
  },
);

export const splitCandidates = def(
  () => v.object({
    /** At most this many, the best first (0: all). */
    limit: v.optional(int(0, 1_000_000), 20),
  }),
  (o) =>
    v.object({
      candidates: v.array(v.object({ id: o.Text, score: Num(), reasons: v.array(o.Text), parts: v.array(o.Text), content: o.Text })),
      total: o.Count,
      memories: o.Count,
    }),
  async (call, input) => {
    const { splitCandidatesOp } = await import("../split.ts");
    return withStore(call.env, (store) => splitCandidatesOp(store, input.limit === 0 ? null : input.limit));
  },
);

export const maintainer = def(
  () => v.object({
    /** Make this machine the store's maintainer. */
    claim: v.optional(v.boolean(), false),
  }),
  (o) => v.object({ maintainer: o.NullableText, machine: o.Text, is_this_machine: o.Flag, claimed: o.Flag }),
  async (call, input) => {
    const { maintainerOp } = await import("../maintainer.ts");
    return withStore(call.env, (store) => maintainerOp(store, call.env, input.claim));
  },
);
