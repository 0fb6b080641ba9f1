import * as z from "zod/mini";
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
const Claim = () => z._default(z.boolean(), false);

export const gc = def(
  () => z.object({
    /** Archive instead of deleting. */
    archive: z._default(z.boolean(), false),
    dry_run: z._default(z.boolean(), false),
    /** At most this many, the lowest scores first (0: all). */
    limit: z._default(int(0, 100_000_000), 0),
    claim_maintainer: Claim(),
  }),
  (o) =>
    z.object({
      dry_run: o.Flag,
      action: z.enum(["delete", "archive"]),
      forget_threshold: z.number(),
      model: o.Text,
      scanned: o.Count,
      under_threshold: o.Count,
      candidates: z.array(z.object({ id: o.Text, score: z.number(), use_count: o.Count, last_used: o.Seconds, strength: z.number(), preview: z.optional(o.Text) })),
      removed: o.Ids,
      relations_removed: o.Ids,
      skipped: o.Skipped,
      last_gc_at: o.NullableSeconds,
      maintainer: z.nullable(o.Maintainer),
    }),
  (call, input) =>
    withStore(call.env, (store) => gcOp(store, call.env, { archive: input.archive, dryRun: input.dry_run, limit: input.limit ? input.limit : null, claim: input.claim_maintainer })),
);

export const promote = def(
  () => z.object({
    ids: z._default(z.array(IdText).check(z.maxLength(MAX_IDS)), []),
    /** Every active memory the promotion rule selects. */
    auto: z._default(z.boolean(), false),
    dry_run: z._default(z.boolean(), false),
    /** The vault folder on this machine (never a synced setting); else MEMSYNC_VAULT where memsync runs. A caller with no working directory here (a server's) cannot name one. */
    vault: z._default(z.nullable(z.string()), null),
    claim_maintainer: Claim(),
  }),
  (o) =>
    z.object({
      dry_run: o.Flag,
      vault: o.NullableText,
      promoted: z.array(z.object({ id: o.Text, score: z.number(), reason: o.Text, note: o.Text, reused_note: o.Flag })),
      skipped: o.Skipped,
      maintainer: z.nullable(o.Maintainer),
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
  () => z.object({
    /** preview: the clusters; apply: merge each into one memory; link: relate its memories both ways. */
    mode: z._default(z.enum(["preview", "apply", "link"]), "preview"),
    /** Only these clusters, by the ids a preview shows; none: every cluster. */
    clusters: z._default(z.array(z.string().check(z.maxLength(100))).check(z.maxLength(MAX_IDS)), []),
    /** Similarity needed (default 0.6); the same threshold finds the same clusters. */
    threshold: z.optional(num(0.05, 1)),
    claim_maintainer: Claim(),
  }),
  (o) => {
    const Member = z.object({
      id: o.Text,
      content: o.Text,
      type: o.Text,
      tags: z.array(o.Text),
      entities: z.array(o.Text),
      use_count: o.Count,
      strength: z.number(),
      created_at: o.Seconds,
      last_used: o.Seconds,
    });
    return z.object({
      mode: z.enum(["preview", "apply", "link"]),
      threshold: z.number(),
      memories: o.Count,
      stats: z.object({ items: o.Count, candidates: o.Count, verified: o.Count }),
      clusters: z.array(
        z.object({
          id: o.Text,
          cohesion: z.number(),
          members: z.array(Member),
          merged: z.nullable(z.omit(Member, { id: true })),
          problem: z.optional(o.Text),
        }),
      ),
      applied: z.array(
        z.object({
          cluster: o.Text,
          cohesion: z.number(),
          sources: o.Ids,
          into: z.optional(o.Text),
          relations_created: o.Ids,
          relations_moved: o.Ids,
          relations_removed: o.Ids,
        }),
      ),
      maintainer: z.optional(z.object({ machine: o.Text, claimed: o.Flag })),
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
  z.union([
  z.string().check(z.maxLength(1_000_000)),
  z.looseObject({ content: z.string().check(z.maxLength(1_000_000)), tags: z.optional(Texts), entities: z.optional(Texts) }),
]);

function partOf(p: z.output<ReturnType<typeof Part>>): SplitPart {
  if (typeof p === "string") return { content: p };
  const { content, tags, entities, ...fields } = p as JsonObject & { content: string; tags?: string[]; entities?: string[] };
  return { content, ...(tags !== undefined ? { tags } : {}), ...(entities !== undefined ? { entities } : {}), ...(Object.keys(fields).length ? { fields } : {}) };
}

export const split = def(
  () => z.object({
    id: IdText,
    /** In order; at least two. Labels not given are the original's. */
    parts: z.array(Part()).check(z.maxLength(1000)),
    /** Keep the original, archived, with its relations (default: remove it; its relations go to every part). */
    archive: z._default(z.boolean(), false),
    claim_maintainer: Claim(),
  }),
  (o) =>
    z.object({
      original: o.Text,
      original_is: z.enum(["removed", "archived"]),
      parts: z.array(o.Memory),
      relations_created: o.Ids,
      relations_copied: o.Ids,
      relations_removed: o.Ids,
      maintainer: z.object({ machine: o.Text, claimed: o.Flag }),
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
  () => z.object({
    /** At most this many, the best first (0: all). */
    limit: z._default(int(0, 1_000_000), 20),
  }),
  (o) =>
    z.object({
      candidates: z.array(z.object({ id: o.Text, score: z.number(), reasons: z.array(o.Text), parts: z.array(o.Text), content: o.Text })),
      total: o.Count,
      memories: o.Count,
    }),
  async (call, input) => {
    const { splitCandidatesOp } = await import("../split.ts");
    return withStore(call.env, (store) => splitCandidatesOp(store, input.limit === 0 ? null : input.limit));
  },
);

export const maintainer = def(
  () => z.object({
    /** Make this machine the store's maintainer. */
    claim: z._default(z.boolean(), false),
  }),
  (o) => z.object({ maintainer: o.NullableText, machine: o.Text, is_this_machine: o.Flag, claimed: o.Flag }),
  async (call, input) => {
    const { maintainerOp } = await import("../maintainer.ts");
    return withStore(call.env, (store) => maintainerOp(store, call.env, input.claim));
  },
);
