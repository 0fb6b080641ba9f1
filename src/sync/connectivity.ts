import fs from "node:fs";
import { describeRef, forgetPacks, type GitObject, has, type ObjectRef, packIndexLooksWhole, readObjectFrom, resolve, walkChildrenFirst } from "./objects.ts";

// Is the repository whole where it matters? A bounded check, cheap enough for every `status`:
// the commits the refs name (the branch, the remote-tracking branch), their trees walked fully
// (a 10,000-memory store has about 257 trees; a blob is checked by a stat of its loose file or a
// binary search of a pack index, never read), and the newest few commits before them with their
// trees (a tree seen once is not walked again, so each costs only what it changed). Not a full
// fsck: history further back is what git's own `git fsck` is for, and what `doctor --repair`
// walks.

export const TRACKING = "refs/remotes/origin/main";

export interface MissingObject {
  oid: string;
  /** commit, tree or blob: what the object naming it says it is. */
  kind: string;
  /** What and where it is: "tree memories/ab of commit 1a2b3c4d", "parent of commit ...", "commit named by refs/heads/main". */
  where: string;
  /** The ref under which it was found. */
  ref: string;
  /** present but unreadable (damaged), rather than absent */
  damaged: boolean;
}

export interface Connectivity {
  refs: { ref: string; oid: string }[];
  commits: number;
  trees: number;
  blobs: number;
  missing: MissingObject[];
  /** Pack files that cannot be used: an index cut short, or an index whose pack is gone. */
  broken_packs: string[];
}

/** The branch HEAD names ("refs/heads/main"), whether or not it has a commit yet. */
export function headBranch(gitdir: string): string | null {
  try {
    const m = /^ref: (refs\/\S+)/.exec(fs.readFileSync(`${gitdir}/HEAD`, "utf8"));
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}

/** The refs worth checking and the commits they name: HEAD's branch and the remote-tracking branch. */
export async function refsToCheck(gitdir: string): Promise<{ ref: string; oid: string }[]> {
  const out: { ref: string; oid: string }[] = [];
  for (const ref of [headBranch(gitdir), TRACKING]) {
    if (!ref || out.some((r) => r.ref === ref)) continue;
    const oid = await resolve(gitdir, ref);
    if (oid) out.push({ ref, oid });
  }
  return out;
}

/** Pack indexes that cannot be used (cut short, or without their pack). */
export function brokenPacks(gitdir: string): string[] {
  const dir = `${gitdir}/objects/pack`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    if (!n.endsWith(".idx")) continue;
    const pack = n.replace(/\.idx$/, ".pack");
    if (!names.includes(pack) || !packIndexLooksWhole(fs.readFileSync(`${dir}/${n}`))) out.push(`objects/pack/${n}`);
  }
  return out;
}

export interface CheckOptions {
  /** Commits read (with their trees) under each ref, newest first; commits past it are only looked for. Default 20; Infinity walks all history. */
  recentCommits?: number;
}

/**
 * Walk what the refs name and list every object missing on the way. A present object whose
 * content cannot be read counts as missing (damaged).
 */
export async function checkConnectivity(gitdir: string, opts: CheckOptions = {}): Promise<Connectivity> {
  const budget = opts.recentCommits ?? 20;
  forgetPacks(gitdir);
  const out: Connectivity = { refs: await refsToCheck(gitdir), commits: 0, trees: 0, blobs: 0, missing: [], broken_packs: brokenPacks(gitdir) };
  const done = new Set<string>();
  for (const { ref, oid } of out.refs) {
    let commits = 0;
    const lack = async (at: ObjectRef) => {
      const damaged = await has(gitdir, at.oid);
      out.missing.push({ oid: at.oid, kind: at.kind, where: at.commit ? describeRef(at) : `commit named by ${ref}`, ref, damaged });
    };
    await walkChildrenFirst(
      [{ oid, kind: "commit", path: "", commit: null }],
      async (at): Promise<GitObject | null> => {
        if (at.kind === "blob") {
          out.blobs++;
          if (!(await has(gitdir, at.oid))) await lack(at);
          return null;
        }
        if (at.kind === "commit" && commits >= budget) {
          if (!(await has(gitdir, at.oid))) await lack(at);
          return null;
        }
        const obj = await readObjectFrom(gitdir, at.oid);
        if (!obj) {
          await lack(at);
          return null;
        }
        if (obj.type === "commit") {
          commits++;
          out.commits++;
        } else if (obj.type === "tree") out.trees++;
        return obj;
      },
      async () => {},
      done,
    );
  }
  return out;
}

/** One line naming what is missing, for status and doctor. */
export function summarizeMissing(missing: readonly MissingObject[], max = 3): string {
  const shown = missing.slice(0, max).map((m) => `${m.where} (${m.oid.slice(0, 8)}${m.damaged ? ", damaged" : ""})`);
  const more = missing.length > max ? ` and ${missing.length - max} more` : "";
  return `${shown.join(", ")}${more}`;
}
