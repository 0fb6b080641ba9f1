import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { candidatePaths } from "../store/layout.ts";
import { cacheFor, readTreeEntries } from "../sync/objects.ts";

// The commits that touched one memory's record file: first-parent history from HEAD, newest
// first, the file's blob compared with the parent's at both of its possible paths (flat and
// sharded). Bounded: at most `scan` commits are read (each reads the trees on the file's path),
// so a page of a large store's history costs the same whatever its length.

export interface HistoryEntry {
  oid: string;
  message: string;
  author: string;
  at: number;
  change: "added" | "changed" | "removed";
}

export interface HistoryOutcome {
  id: string;
  commits: HistoryEntry[];
  /** Commits read; more: history goes on past them (ask again with a larger scan). */
  scanned: number;
  more: boolean;
}

export async function memoryHistory(root: string, id: string, limit: number, scan: number): Promise<HistoryOutcome> {
  const gitdir = path.join(root, ".git");
  const out: HistoryOutcome = { id, commits: [], scanned: 0, more: false };
  let oid: string | null;
  try {
    oid = await git.resolveRef({ fs, gitdir, ref: "HEAD" });
  } catch {
    return out; // no commit yet
  }
  const cache = cacheFor(gitdir);
  const trees = new Map<string, Map<string, string>>();
  const entries = async (tree: string) => {
    let m = trees.get(tree);
    if (!m) {
      m = new Map((await readTreeEntries(gitdir, tree)).map((e) => [e.path, e.oid]));
      trees.set(tree, m);
    }
    return m;
  };
  const paths = candidatePaths("memory", id).map((p) => p.split("/"));
  const blobAt = async (tree: string | null): Promise<string | null> => {
    if (tree === null) return null;
    for (const parts of paths) {
      let at: string | undefined = tree;
      for (const part of parts) {
        at = at === undefined ? undefined : (await entries(at)).get(part);
        if (at === undefined) break;
      }
      if (at !== undefined) return at;
    }
    return null;
  };
  while (oid !== null && out.commits.length < limit) {
    if (out.scanned >= scan) {
      out.more = true;
      break;
    }
    const { commit } = await git.readCommit({ fs, gitdir, oid, cache });
    out.scanned++;
    const parent = commit.parent[0] ?? null;
    const parentTree = parent === null ? null : (await git.readCommit({ fs, gitdir, oid: parent, cache })).commit.tree;
    const [now, before] = await Promise.all([blobAt(commit.tree), blobAt(parentTree)]);
    if (now !== before) {
      out.commits.push({ oid, message: commit.message.split("\n")[0]!, author: commit.author.name, at: commit.author.timestamp, change: before === null ? "added" : now === null ? "removed" : "changed" });
    }
    oid = parent;
  }
  if (oid !== null && out.commits.length >= limit) out.more = true;
  return out;
}
