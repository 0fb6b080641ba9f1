import fs from "node:fs";
import { isMemsyncError } from "../core/errors.ts";
import { storeLevelTemps } from "../store/atomic-write.ts";
import { countJournal } from "../store/journal-count.ts";
import { LOCAL_DIR } from "../store/layout.ts";
import { nodeFs } from "../store/fs-port.ts";
import type { IndexDb } from "../store/index-db.ts";
import { startSnapshot } from "../store/parallel-snapshot.ts";
import { readIndexFolders, shardSettledBy } from "../store/refresh.ts";
import { INDEX_FILE, linkedFixedPaths, Store } from "../store/store.ts";
import { CHECKOUT_INTENT } from "../store/fixed-paths.ts";
import type { OpsEnv } from "./context.ts";
import { type GitObjects, gitObjectsHealth } from "./git-objects.ts";

export type Health = "healthy" | "degraded" | "unavailable";

export interface StatusOutcome {
  store: string;
  health: Health;
  reasons: string[];
  /**
   * The store can be read but not written by this process (a read-only mount, another user's
   * files): reads answer from a private copy of the index, writes are refused (exit 10). Not a
   * fault: such a store is healthy when nothing else is wrong.
   */
  read_only: boolean;
  memories: { total: number; by_status: Record<string, number>; by_type: Record<string, number> } | null;
  relations: { total: number; dangling: { id: string; from_id: string; to_id: string }[] } | null;
  /** Memories whose content two machines edited at once, not yet resolved (memsync conflicts). */
  content_conflicts: number | null;
  problems: { path: string; problem: string }[];
  temp_files: string[];
  /** Symbolic links inside the store (writes refuse to go through them). */
  links: string[];
  layout: { setting: string; shard_threshold: number; new_records_sharded: boolean } | null;
  meta: { storage_version: number; created_at: number; machine_id: string | null } | null;
  index: string;
  /** Journaled changes not yet in git history (memsync commit). */
  uncommitted_changes: number | null;
  /** Commits the remote has not got yet, as far as the last sync knew (null: no remote). */
  unpushed_commits: number | null;
  /** The bounded check of git objects under the branch and the remote-tracking branch (null: no repository). */
  git_objects: GitObjects | null;
}

/** Commits the remote has not got yet, as far as the last sync knew (null: no remote). */
export async function unpushed(root: string): Promise<number | null> {
  const config = `${root}/.git/config`;
  if (!fs.existsSync(config) || !fs.readFileSync(config, "utf8").includes('[remote "origin"]')) return null;
  // the usual answer (the branch where the last sync left the remote-tracking branch, or no commit
  // yet) read from the two ref files, as git does; only commits to count load the history reader
  const { headBranch, readRef, TRACKING } = await import("../sync/connectivity.ts");
  const gitdir = `${root}/.git`;
  const local = readRef(gitdir, headBranch(gitdir) ?? "refs/heads/main");
  if (!local) return 0;
  if (local === readRef(gitdir, TRACKING)) return 0;
  const { commitsAhead } = await import("../sync/exchange.ts");
  return commitsAhead(root);
}

/** What status reports from the index alone. */
function indexReport(index: IndexDb) {
  // the counts the index keeps (no scan); the dangling relations listed only when there are some
  const counts = index.statusCounts();
  const dangling = counts.dangling > 0 ? index.danglingRelations() : [];
  return {
    problems: index.problems().map((r) => ({ path: r.path, problem: r.problem ?? "" })),
    dangling,
    memories: { total: counts.total, by_status: counts.by_status, by_type: counts.by_type },
    relations: { total: index.relationCount(), dangling },
    content_conflicts: index.contentConflictCount(),
  };
}

/**
 * What status reports besides the index's counts and the look: read before the look, while the
 * threads stat (a ms of this thread's work there costs the look half a ms; after it, a whole
 * one), and again after it only when the index was written meanwhile (a refresh that applied a
 * change journals it). Temp files and unpushed commits do not depend on the look.
 */
async function outsideTheLook(store: Store, whole: boolean) {
  return {
    temps: storeLevelTemps(store.fs, store.root, LOCAL_DIR),
    layout: {
      setting: store.meta.settings.layout,
      shard_threshold: store.meta.settings.shard_threshold,
      new_records_sharded: store.shardsNewRecords(),
    },
    uncommitted: countJournal(store.fs, store.root, !store.readOnly),
    // counting needs the commits: with some missing it is not known
    unpushed: whole ? await unpushed(store.root) : null,
  };
}

function linksReason(links: string[]): string {
  const shown = links.slice(0, 5).join(", ");
  return `${links.length} symbolic link${links.length === 1 ? "" : "s"} in the store (memsync refuses to write through them): ${shown}${links.length > 5 ? ", ..." : ""}`;
}

/**
 * A health report. It re-stats every record file (finding edits made in place), so it is the
 * one command that costs O(store); everything it finds wrong it reports and leaves untouched.
 */
export async function storeStatus(env: OpsEnv): Promise<StatusOutcome> {
  const base: StatusOutcome = {
    store: env.storeRoot,
    health: "unavailable",
    reasons: [],
    read_only: false,
    memories: null,
    relations: null,
    content_conflicts: null,
    problems: [],
    temp_files: [],
    links: [],
    layout: null,
    meta: null,
    index: `${env.storeRoot}/${INDEX_FILE}`,
    uncommitted_changes: null,
    unpushed_commits: null,
    git_objects: null,
  };
  // a link where the store keeps its own files: reported, and the store not opened through it
  const fixedLinks = linkedFixedPaths(env.open?.fs ?? nodeFs, env.storeRoot);
  if (fixedLinks.length) {
    return { ...base, health: "degraded", links: fixedLinks, reasons: [linksReason(fixedLinks)] };
  }
  let store: Store;
  try {
    store = await Store.open(env.storeRoot, env.open);
  } catch (e) {
    if (!isMemsyncError(e)) throw e;
    return { ...base, reasons: [e.message] };
  }
  // a large store's record folders are listed and stat'ed by threads while this one does the rest
  const pending = store.fs === nodeFs ? startSnapshot(store.root, store.index.fileCount()) : null;
  try {
    await store.codec();
    try {
      void store.meta.settings;
    } catch (e) {
      if (!isMemsyncError(e)) throw e;
      return { ...base, reasons: [e.message] };
    }
    const { objects, reasons: gitReasons } = await gitObjectsHealth(store.root, !store.readOnly);
    // what the index says, read before the refresh while the threads stat: a look that finds the
    // store unchanged writes nothing, so it stands unless the index was written meanwhile
    const state = store.indexState();
    let report = indexReport(store.index);
    const whole = gitReasons.length === 0;
    let outside = await outsideTheLook(store, whole);
    // and what the look compares the threads' stats with
    const folders = pending ? readIndexFolders(store.index) : null;
    const seen = pending ? await pending.finish(folders ? shardSettledBy(folders) : undefined) : null;
    // looked at without the lock first: a check of a healthy store never holds up writers
    const plan = await store.refresh(true, undefined, { lookFirst: true, ...(seen ? { seen } : {}), ...(folders ? { folders } : {}) });
    if (store.indexState() !== state) {
      report = indexReport(store.index);
      outside = await outsideTheLook(store, whole);
    }
    const { problems, dangling } = report;
    const reasons: string[] = [];
    const corruptCount = problems.length;
    if (corruptCount) reasons.push(`${corruptCount} record file${corruptCount === 1 ? " is" : "s are"} corrupt or invalid (left untouched)`);
    if (plan.links.length) reasons.push(linksReason(plan.links));
    if (dangling.length) reasons.push(`${dangling.length} relation${dangling.length === 1 ? " points" : "s point"} at a missing or unreadable memory`);
    reasons.push(...gitReasons);
    // a pull killed mid-checkout left some files at the new version and some at the old: reads
    // see that mix until a sync finishes it (a sync running now shows the same for a moment)
    if (fs.existsSync(`${store.root}/${CHECKOUT_INTENT}`)) reasons.push("a pull's checkout is unfinished (interrupted, or under way): some files are not at the pulled version yet; the next sync, pull, push or commit finishes it");
    return {
      ...base,
      health: reasons.length ? "degraded" : "healthy",
      reasons,
      read_only: store.readOnly,
      memories: report.memories,
      relations: report.relations,
      content_conflicts: report.content_conflicts,
      problems,
      temp_files: [...outside.temps, ...plan.temps],
      links: plan.links,
      layout: outside.layout,
      meta: { storage_version: store.meta.storage_version, created_at: store.meta.created_at, machine_id: store.meta.machine_id },
      uncommitted_changes: outside.uncommitted,
      unpushed_commits: outside.unpushed,
      git_objects: objects,
    };
  } finally {
    pending?.stop();
    store.close();
  }
}
