import fs from "node:fs";
import { readLooseObject } from "./loose-objects.ts";
import { describeRef, type ObjectRef, oidAt } from "./object-ref.ts";
import { forgetPackIndexes, inPackIndex, inPackIndexRaw, packFolderNames, packIndexLooksWhole } from "./pack-index.ts";

// Is the repository whole where it matters? A bounded check, cheap enough for every `status`:
// the commits the refs name (the branch, the remote-tracking branch) with their trees walked fully
// (a 10,000-memory store has about 257 trees; a blob is checked by a stat of its loose file or a
// binary search of a pack index, never read), and the newest few commits before them, read, with
// their parents and root trees looked for. Not a full fsck: history further back is what git's
// own `git fsck` is for, and what `doctor --repair` walks.

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
  /** Refs whose file names no commit (cut short by a process killed while writing it). */
  damaged_refs: string[];
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

/** The commit a ref names, from its file or packed-refs (null: none). */
export function readRef(gitdir: string, ref: string): string | null {
  try {
    const v = fs.readFileSync(`${gitdir}/${ref}`, "utf8").trim();
    if (/^[0-9a-f]{40}$/.test(v)) return v;
  } catch {
    // not a loose ref: packed, or none
  }
  try {
    for (const line of fs.readFileSync(`${gitdir}/packed-refs`, "utf8").split("\n")) {
      const [oid, name] = line.split(" ");
      if (name === ref && /^[0-9a-f]{40}$/.test(oid ?? "")) return oid!;
    }
  } catch {
    // no packed refs
  }
  return null;
}

/** An object's content: a loose file read here, anything else through isomorphic-git (loaded only then). */
async function readObject(gitdir: string, oid: string) {
  return readLooseObject(gitdir, oid) ?? (await import("./objects.ts")).readObjectFrom(gitdir, oid);
}

/** Not a loose file: in a pack, or borrowed from another repository (alternates, asked through isomorphic-git). */
async function elsewhere(gitdir: string, oid: string): Promise<boolean> {
  if (inPackIndex(gitdir, oid)) return true;
  return fs.existsSync(`${gitdir}/objects/info/alternates`) && (await import("./objects.ts")).hasNotLoose(gitdir, oid);
}

/** The refs worth checking and the commits they name: HEAD's branch and the remote-tracking branch. */
export async function refsToCheck(gitdir: string): Promise<{ ref: string; oid: string }[]> {
  const out: { ref: string; oid: string }[] = [];
  for (const ref of [headBranch(gitdir), TRACKING]) {
    if (!ref || out.some((r) => r.ref === ref)) continue;
    const oid = readRef(gitdir, ref);
    if (oid) out.push({ ref, oid });
  }
  return out;
}

/** The refs checked whose loose file exists but holds no object id. */
export function damagedRefs(gitdir: string): string[] {
  const out: string[] = [];
  for (const ref of [headBranch(gitdir), TRACKING]) {
    if (!ref) continue;
    let text: string;
    try {
      text = fs.readFileSync(`${gitdir}/${ref}`, "utf8");
    } catch {
      continue; // no loose file: packed, or not there yet
    }
    if (!/^([0-9a-f]{40}|ref: \S+)\s*$/.test(text)) out.push(ref);
  }
  return out;
}

/** Pack indexes that cannot be used (cut short, or without their pack). */
export function brokenPacks(gitdir: string): string[] {
  const dir = `${gitdir}/objects/pack`;
  const names = packFolderNames(gitdir);
  const out: string[] = [];
  for (const n of names) {
    if (!n.endsWith(".idx")) continue;
    const pack = n.replace(/\.idx$/, ".pack");
    if (!names.includes(pack) || !packIndexLooksWhole(fs.readFileSync(`${dir}/${n}`))) out.push(`objects/pack/${n}`);
  }
  return out;
}

export interface CheckOptions {
  /** Commits read under each ref, newest first (default 20); commits past it are only looked for. */
  recentCommits?: number;
}

const dec = new TextDecoder();

/**
 * Which objects are loose files, one readdir per objects/xx folder asked about (257 trees name
 * some 13,000 blobs: 256 readdirs cost a fraction of 13,000 stats).
 */
class LooseObjects {
  private dirs = new Map<string, Set<string>>();
  constructor(private gitdir: string) {}
  has(oid: string): boolean {
    const prefix = oid.slice(0, 2);
    let names = this.dirs.get(prefix);
    if (!names) {
      try {
        names = new Set(fs.readdirSync(`${this.gitdir}/objects/${prefix}`));
      } catch {
        names = new Set();
      }
      this.dirs.set(prefix, names);
    }
    return names.has(oid.slice(2));
  }
}

/** A commit's tree and parents, from its header. */
function commitLinks(content: Uint8Array): { tree: string | null; parents: string[] } {
  const header = dec.decode(content).split("\n\n", 1)[0]!;
  const tree = /^tree ([0-9a-f]{40})$/m.exec(header)?.[1] ?? null;
  return { tree, parents: [...header.matchAll(/^parent ([0-9a-f]{40})$/gm)].map((m) => m[1]!) };
}

/**
 * Walk what the refs name and list every object missing on the way. A present object whose
 * content cannot be read counts as missing (damaged).
 */
export async function checkConnectivity(gitdir: string, opts: CheckOptions = {}): Promise<Connectivity> {
  const budget = opts.recentCommits ?? 20;
  forgetPackIndexes(gitdir);
  const out: Connectivity = { refs: await refsToCheck(gitdir), commits: 0, trees: 0, blobs: 0, missing: [], broken_packs: brokenPacks(gitdir), damaged_refs: damagedRefs(gitdir) };
  const loose = new LooseObjects(gitdir);
  const present = async (oid: string) => loose.has(oid) || (await elsewhere(gitdir, oid));
  const seen = new Set<string>();
  for (const { ref, oid: tip } of out.refs) {
    const lack = async (at: ObjectRef) => {
      const damaged = await present(at.oid);
      out.missing.push({ oid: at.oid, kind: at.kind, where: at.commit ? describeRef(at) : `commit named by ${ref}`, ref, damaged });
    };
    // the newest commits, breadth first from the tip
    const queue: ObjectRef[] = [{ oid: tip, kind: "commit", path: "", commit: null }];
    let read = 0;
    for (let i = 0; i < queue.length; i++) {
      const at = queue[i]!;
      // (a tip already met as an older commit under another ref still has its tree walked)
      if (seen.has(at.oid) && i > 0) continue;
      seen.add(at.oid);
      if (read >= budget) {
        if (!(await present(at.oid))) await lack(at);
        continue;
      }
      const obj = await readObject(gitdir, at.oid);
      if (!obj || obj.type !== "commit") {
        await lack(at);
        continue;
      }
      read++;
      out.commits++;
      const { tree, parents } = commitLinks(obj.content);
      for (const p of parents) queue.push({ oid: p, kind: "commit", path: "", commit: at.oid });
      if (!tree) continue;
      const root: ObjectRef = { oid: tree, kind: "tree", path: "", commit: at.oid };
      // an older commit's root tree is only looked for: written children first, a tree that is
      // there is whole, and walking each would cost as much as the tip's
      if (at.oid !== tip) {
        if (!seen.has(tree) && !(await present(tree))) await lack(root);
        continue;
      }
      await walkTree(gitdir, root, seen, out, present, loose, lack);
    }
  }
  return out;
}

/** Every tree under `root`, read; every blob, looked for. */
async function walkTree(
  gitdir: string,
  root: ObjectRef,
  seen: Set<string>,
  out: Connectivity,
  present: (oid: string) => Promise<boolean>,
  loose: LooseObjects,
  lack: (at: ObjectRef) => Promise<void>,
): Promise<void> {
  const stack = [root];
  while (stack.length) {
    const at = stack.pop()!;
    if (seen.has(at.oid)) continue;
    seen.add(at.oid);
    const obj = await readObject(gitdir, at.oid);
    if (!obj || obj.type !== "tree") {
      await lack(at);
      continue;
    }
    out.trees++;
    // entries "<mode> <name>\0<20 bytes>", scanned without decoding a blob's name unless it is missing
    const c = obj.content;
    let i = 0;
    while (i < c.length) {
      const space = c.indexOf(0x20, i);
      const nul = c.indexOf(0, space);
      const isTree = c[i] === 0x34 && space - i === 5; // "40000"
      const isGitlink = c[i] === 0x31 && c[i + 1] === 0x36; // "160000": a submodule's commit
      // a packed blob (the common case once history is packed) is found by its bytes: no hex, no readdir of objects/xx
      if (!isTree && !isGitlink && inPackIndexRaw(gitdir, c.subarray(nul + 1, nul + 21))) {
        out.blobs++;
        i = nul + 21;
        continue;
      }
      const oid = oidAt(c, nul + 1);
      const name = () => dec.decode(c.subarray(space + 1, nul));
      if (isTree) stack.push({ oid, kind: "tree", path: at.path ? `${at.path}/${name()}` : name(), commit: at.commit });
      else if (!isGitlink) {
        // (a blob is not remembered: the same content at two paths is rare, a Set of them is not free)
        out.blobs++;
        if (!loose.has(oid) && !(await present(oid))) await lack({ oid, kind: "blob", path: at.path ? `${at.path}/${name()}` : name(), commit: at.commit });
      }
      i = nul + 21;
    }
  }
}

/** One line naming what is missing, for status and doctor. */
export function summarizeMissing(missing: readonly MissingObject[], max = 3): string {
  const shown = missing.slice(0, max).map((m) => `${m.where} (${m.oid.slice(0, 8)}${m.damaged ? ", damaged" : ""})`);
  const more = missing.length > max ? ` and ${missing.length - max} more` : "";
  return `${shown.join(", ")}${more}`;
}
