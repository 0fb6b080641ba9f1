import { type Cluster, type ClusterStats, DEFAULT_THRESHOLD, findClusters, pairSimilarity } from "../core/cluster/clusters.ts";
import { mergeMemories, provenanceRelations, rewireRelations } from "../core/consolidate.ts";
import { conflict, isMemsyncError, notFound } from "../core/errors.ts";
import { freshGist } from "../core/fresh-gist.ts";
import { messages } from "../core/history.ts";
import type { Memory } from "../core/model/memory.ts";
import { newId } from "../core/new-id.ts";
import { createRelation } from "../core/records.ts";
import { memoryTerms } from "../core/recall-concepts.ts";
import { supersededAmong } from "../core/recall-rank.ts";
import { collectGarbage } from "../runtime/host.ts";
import type { Store, StoreTx } from "../store/store.ts";
import type { OpsEnv } from "./context.ts";
import { checkMaintenance, takeMaintenance, thisMachine } from "./maintainer.ts";

// memsync consolidate: clusters of near-duplicate active memories (see core/cluster), shown
// (preview), merged (apply) or related both ways (link). Clusters are found outside the write
// lock, from the index; the change itself re-reads every member from its file under the lock and
// is one transaction, so one commit. Only active memories take part: archived ones are out of
// use, and a promoted one is referred to from where it was promoted to.

export type ConsolidateMode = "preview" | "apply" | "link";

export interface ConsolidateInput {
  mode: ConsolidateMode;
  threshold?: number;
  /** Only these clusters (ids from a preview); none: every cluster. */
  clusterIds?: readonly string[];
  claim?: boolean;
}

/** What merging a cluster would give, for the preview. */
export interface MergePreview {
  content: string;
  tags: string[];
  entities: string[];
  type: string;
  strength: number;
  use_count: number;
  created_at: number;
  last_used: number;
}

export interface MemberView {
  id: string;
  content: string;
  type: string;
  tags: string[];
  entities: string[];
  use_count: number;
  strength: number;
  created_at: number;
  last_used: number;
}

export interface ClusterView {
  id: string;
  cohesion: number;
  members: MemberView[];
  /** The merged memory, or null with the reason when these memories cannot be merged. */
  merged: MergePreview | null;
  problem?: string;
}

export interface AppliedCluster {
  cluster: string;
  cohesion: number;
  sources: string[];
  /** apply: the new memory. */
  into?: string;
  relations_created: string[];
  relations_moved: string[];
  relations_removed: string[];
}

export interface ConsolidateOutcome {
  mode: ConsolidateMode;
  threshold: number;
  /** Active memories compared. */
  memories: number;
  stats: ClusterStats;
  clusters: ClusterView[];
  applied: AppliedCluster[];
  maintainer?: { machine: string; claimed: boolean };
}

/** Below this many memories the garbage is small and a collection would only cost time. */
const GC_HINT_ABOVE = 5000;
const gcHint = (memories: number) => (memories >= GC_HINT_ABOVE ? collectGarbage : undefined);
/** Merge previews between two collections in a large store: at 50k, ~3,300 previews made ~80 MB of garbage at once. */
const VIEWS_PER_GC = 1500;

const PREVIEW_ID = "00000000-0000-4000-8000-000000000000";

function view(cluster: Cluster, members: Memory[], now: number): ClusterView {
  const base = {
    id: cluster.id,
    cohesion: cluster.cohesion,
    members: members.map((m) => ({
      id: m.id,
      content: m.content,
      type: m.type,
      tags: m.meta.tags,
      entities: m.entities,
      use_count: m.use_count,
      strength: m.strength,
      created_at: m.created_at,
      last_used: m.last_used,
    })),
  };
  try {
    const m = mergeMemories(members, { id: PREVIEW_ID, now, cohesion: cluster.cohesion, gist: () => null });
    const merged: MergePreview = {
      content: m.content,
      tags: m.meta.tags,
      entities: m.entities,
      type: m.type,
      strength: m.strength,
      use_count: m.use_count,
      created_at: m.created_at,
      last_used: m.last_used,
    };
    return { ...base, merged };
  } catch (e) {
    if (!isMemsyncError(e)) throw e;
    return { ...base, merged: null, problem: e.message };
  }
}

/**
 * Clusters among the active memories, as the index has them now. Only what similarity compares is
 * read for every memory (out of the index, not parsed records); whole records only for the members
 * of the clusters found: at 50k memories, most of the memory a preview would otherwise hold.
 */
export async function findConsolidation(
  store: Store,
  threshold = DEFAULT_THRESHOLD,
): Promise<{ memories: number; clusters: Cluster[]; stats: ClusterStats; members: Map<string, Memory> }> {
  await store.refresh(false, ["memory"]);
  const found = await clustersOfActive(store, threshold);
  // the rows are out of reach here: collected with the rest before whole members are read
  gcHint(found.memories)?.();
  const members = new Map((await store.memoriesByIds(found.clusters.flatMap((c) => c.members))).map((m) => [m.id, m]));
  // a member changed by another process between the two reads: its cluster is left for the next run
  const clusters = found.clusters.filter((c) => c.members.every((id) => members.get(id)?.status === "active"));
  return { memories: found.memories, clusters, stats: found.stats, members };
}

/** The clusters among the active memories' index rows; the rows (every memory's text) die with this call. */
async function clustersOfActive(store: Store, threshold: number): Promise<{ memories: number; clusters: Cluster[]; stats: ClusterStats }> {
  const rows = await store.clusterRows(["active"]);
  const found = findClusters(
    rows.map((r) => ({
      id: r.id,
      content: r.content,
      tags: JSON.parse(r.tags) as string[],
      entities: JSON.parse(r.entities) as string[],
      // memories of different projects or sharing scopes are never merged
      group: `${r.project ?? ""}\u0000${r.scope}`,
    })),
    // making features leaves ~3 KB of garbage per memory: collected before the next phases
    { threshold, afterFeatures: gcHint(rows.length) },
  );
  return { memories: rows.length, ...found };
}

function select(clusters: Cluster[], wanted: readonly string[] | undefined, threshold: number): Cluster[] {
  if (!wanted?.length) return clusters;
  const byId = new Map(clusters.map((c) => [c.id, c]));
  const missing = [...new Set(wanted)].filter((id) => !byId.has(id));
  if (missing.length) {
    throw notFound(
      `no cluster ${missing.join(", ")} at threshold ${threshold}: its memories changed, or it was found at another threshold (a preview lists the clusters)`,
      { clusters: missing },
    );
  }
  return [...new Set(wanted)].map((id) => byId.get(id)!);
}

/** A member as it is now, under the lock; a cluster whose members changed since is refused. */
function currentMember(tx: StoreTx, clusterId: string, id: string): Memory {
  let m: Memory;
  try {
    m = tx.memory(id);
  } catch (e) {
    if (isMemsyncError(e) && e.code === "not_found") throw conflict(`cluster ${clusterId} changed while it was being consolidated: memory ${id} is gone; run memsync consolidate again`, { cluster: clusterId, id });
    throw e;
  }
  if (m.status !== "active") throw conflict(`cluster ${clusterId} changed while it was being consolidated: memory ${id} is ${m.status} now; run memsync consolidate again`, { cluster: clusterId, id });
  return m;
}

/** A cluster's members as they are now, and the memory they become: refuses before anything is written. */
function planMerge(tx: StoreTx, cluster: Cluster): { cluster: Cluster; merged: Memory } {
  const members = cluster.members.map((id) => currentMember(tx, cluster.id, id));
  return { cluster, merged: mergeMemories(members, { id: newId(), now: tx.now, cohesion: cluster.cohesion, gist: freshGist }) };
}

function mergeOne(tx: StoreTx, { cluster, merged }: { cluster: Cluster; merged: Memory }): AppliedCluster {
  const sources = new Set(cluster.members);
  // every relation naming a source, gathered before the new provenance (which names them too) exists
  const naming = cluster.members.flatMap((id) => {
    const { outgoing, incoming } = tx.relationsOf(id);
    return [...outgoing, ...incoming];
  });
  const batch = new Set(naming.map((r) => r.id));
  const taken = (from: string, to: string, type: string) => {
    const other = tx.findRelation(from, to, type);
    return other !== undefined && !batch.has(other);
  };
  const rewiring = rewireRelations(naming, sources, merged.id, taken);
  const provenance = provenanceRelations(merged.id, cluster.members, { clusterId: cluster.id, cohesion: cluster.cohesion }, newId, tx.now);

  tx.putMemory(merged);
  for (const r of provenance) tx.putRelation(r);
  for (const r of rewiring.moved) tx.putRelation(r);
  for (const d of rewiring.dropped) tx.removeRelation(d.id);
  for (const id of cluster.members) tx.removeMemory(id);
  return {
    cluster: cluster.id,
    cohesion: cluster.cohesion,
    sources: cluster.members,
    into: merged.id,
    relations_created: provenance.map((r) => r.id),
    relations_moved: rewiring.moved.map((r) => r.id),
    relations_removed: rewiring.dropped.map((d) => d.id),
  };
}

function linkOne(tx: StoreTx, cluster: Cluster, members: Memory[]): AppliedCluster {
  const created: string[] = [];
  for (const a of members) {
    for (const b of members) {
      if (a.id === b.id || tx.findRelation(a.id, b.id, "related")) continue;
      const strength = pairSimilarity(
        { content: a.content, tags: a.meta.tags, entities: a.entities },
        { content: b.content, tags: b.meta.tags, entities: b.entities },
      );
      const r = createRelation(
        { from: a.id, to: b.id, type: "related", strength, metadata: { cluster_id: cluster.id, cluster_cohesion: cluster.cohesion } },
        newId(),
        tx.now,
      );
      tx.putRelation(r);
      created.push(r.id);
    }
  }
  // a newer member that replaces an older one (names what it changes, or says the same up to a
  // number) is related `supersedes` too, so recall shows it first and marks the older
  const replaced = supersededAmong(members.map((m) => ({ id: m.id, type: m.type, created_at: m.created_at, content: m.content, terms: memoryTerms(m.content, m.entities) })));
  for (const [older, newer] of replaced) {
    if (tx.findRelation(newer, older, "supersedes")) continue;
    const r = createRelation({ from: newer, to: older, type: "supersedes", metadata: { cluster_id: cluster.id } }, newId(), tx.now);
    tx.putRelation(r);
    created.push(r.id);
  }
  return { cluster: cluster.id, cohesion: cluster.cohesion, sources: cluster.members, relations_created: created, relations_moved: [], relations_removed: [] };
}

export async function consolidate(store: Store, env: OpsEnv, input: ConsolidateInput): Promise<ConsolidateOutcome> {
  const threshold = input.threshold ?? DEFAULT_THRESHOLD;
  const claim = input.claim === true;
  // refuse a machine that is not the maintainer before the work of finding clusters
  if (input.mode !== "preview") await checkMaintenance(store, env, claim);
  const found = await findConsolidation(store, threshold);
  const chosen = select(found.clusters, input.clusterIds, threshold);
  const now = store.nowSeconds();
  // the merge previews leave garbage too (~25 KB each): collected every VIEWS_PER_GC of them, and
  // before the caller's output
  const gc = gcHint(found.memories);
  const clusters = chosen.map((c, i) => {
    if (i > 0 && i % VIEWS_PER_GC === 0) gc?.();
    return view(c, c.members.map((id) => found.members.get(id)!), now);
  });
  gc?.();
  const out: ConsolidateOutcome = { mode: input.mode, threshold, memories: found.memories, stats: found.stats, clusters, applied: [] };
  if (input.mode === "preview") return out;

  // merging: clusters whose merge cannot be made (too long together) are left out, unless named
  const unmergeable = clusters.filter((c) => c.merged === null);
  if (input.mode === "apply" && input.clusterIds?.length && unmergeable.length) {
    throw conflict(`cluster ${unmergeable[0]!.id} cannot be merged: ${unmergeable[0]!.problem} (mode link relates its memories instead)`, { fields: ["mode link"] });
  }
  const todo = input.mode === "apply" ? chosen.filter((c) => !unmergeable.some((u) => u.id === c.id)) : chosen;
  if (todo.length === 0) return out;

  const machine = thisMachine(store, env);
  return store.write((tx) => {
    // everything that can refuse (a member gone, a merge too long) comes before the first write
    const plans = input.mode === "apply" ? todo.map((c) => planMerge(tx, c)) : [];
    const members = input.mode === "link" ? todo.map((c) => c.members.map((id) => currentMember(tx, c.id, id))) : [];
    const role = takeMaintenance(tx, machine, claim);
    const applied = input.mode === "apply" ? plans.map((p) => mergeOne(tx, p)) : todo.map((c, i) => linkOne(tx, c, members[i]!));
    const relations = applied.reduce((n, a) => n + a.relations_created.length, 0);
    // linking clusters already linked changes nothing: no commit for it
    if (input.mode === "link" && relations === 0) {
      if (role.claimed) tx.note("maintainer", `maintainer: ${machine}${role.previous ? ` takes over from ${role.previous}` : ""}`);
      return { ...out, applied, maintainer: { machine, claimed: role.claimed } };
    }
    tx.updateMeta((m) => ({ ...m, last_consolidation_at: tx.now }));
    if (input.mode === "apply") {
      tx.note("consolidate", messages.consolidate(applied.map((a) => ({ sources: a.sources, into: a.into! }))));
    } else {
      tx.note("consolidate", messages.link(applied.map((a) => ({ id: a.cluster, members: a.sources.length })), relations));
    }
    return { ...out, applied, maintainer: { machine, claimed: role.claimed } };
  });
}
