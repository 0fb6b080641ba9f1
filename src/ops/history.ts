import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { candidatePaths } from "../store/layout.ts";
import { cacheFor, readTreeEntries } from "../sync/objects.ts";

// The commits that touched one memory's record file, newest first (by commit time), as `git log
// -- FILE` lists them: every side of a merge is walked, so another machine's edits merged in are
// listed too (first-parent history showed a machine that fast-forwarded to another's merge none
// of its own edits). A merge whose file equals one parent's is not listed and only that parent
// is followed (git's history simplification); one whose file differs from every parent's (the
// merge changed it) is listed, and all its parents followed. The file's blob is read at both of
// its possible paths (flat and sharded). Bounded: at most `scan` commits are read (each reads the
// trees on the file's path), so a page of a large store's history costs the same whatever its
// length.

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
  const read = async (c: string) => (await git.readCommit({ fs, gitdir, oid: c, cache })).commit;
  // commits to read, newest first by commit time (git log's order); each read once
  const queue: { oid: string; at: number }[] = [];
  const queued = new Set<string>();
  const enqueue = async (c: string) => {
    if (queued.has(c)) return;
    queued.add(c);
    const at = (await read(c)).committer.timestamp;
    let i = queue.length;
    while (i > 0 && queue[i - 1]!.at < at) i--;
    queue.splice(i, 0, { oid: c, at });
  };
  await enqueue(oid);
  while (queue.length > 0 && out.commits.length < limit) {
    if (out.scanned >= scan) {
      out.more = true;
      break;
    }
    const { oid: at } = queue.shift()!;
    const commit = await read(at);
    out.scanned++;
    const now = await blobAt(commit.tree);
    const before: (string | null)[] = [];
    for (const parent of commit.parent) before.push(await blobAt((await read(parent)).tree));
    const same = before.indexOf(now);
    if (same >= 0 && commit.parent.length > 1) {
      await enqueue(commit.parent[same]!); // the file came from that side unchanged
      continue;
    }
    const first = before[0] ?? null;
    if (now !== first) {
      out.commits.push({ oid: at, message: commit.message.split("\n")[0]!, author: commit.author.name, at: commit.author.timestamp, change: first === null ? "added" : now === null ? "removed" : "changed" });
    }
    for (const parent of commit.parent) await enqueue(parent);
  }
  if (queue.length > 0 && out.commits.length >= limit) out.more = true;
  return out;
}
