import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { brokenPacks, damagedRefs, type MissingObject, refsToCheck, TRACKING } from "./connectivity.ts";
import { sweepPackLeftovers } from "./fetch-fs.ts";
import { writeLooseObject } from "./loose-objects.ts";
import { describeRef, forgetPacks, type GitObject, has, type ObjectRef, readObjectFrom, walkChildrenFirst } from "./objects.ts";
import { progress } from "./progress.ts";

// Putting back objects a repository lacks, from another repository that has them (the remote's
// object store, or a fresh fetch of it), without moving a ref: local commits stay as they are.
// The whole history under the refs is walked, trusting nothing (the invariant "present means
// complete" is exactly what a damaged repository breaks), and each object found missing is
// written children first, so a repair killed halfway leaves nothing worse than before.

export interface RepairOutcome {
  /** Objects written back. */
  restored: number;
  /** Unusable pack files moved aside (to .git/memsync-broken-packs/). */
  packs_moved: string[];
  /** Damaged loose files moved aside before their object was written again. */
  damaged_moved: string[];
  /** Objects no source has: under the branch, that history is lost. */
  lost: MissingObject[];
  /** Temporary files and index-less packs that killed writers left (older than ten minutes). */
  leftovers_removed: number;
  /** The remote-tracking ref was removed: it named objects the remote no longer has (the next sync fetches it again). */
  tracking_removed: boolean;
}

/** Move unusable pack indexes (and their packs) out of the object store, where no read trips on them. */
function moveBrokenPacks(gitdir: string): string[] {
  const broken = brokenPacks(gitdir);
  if (!broken.length) return [];
  const aside = `${gitdir}/memsync-broken-packs`;
  fs.mkdirSync(aside, { recursive: true });
  for (const idx of broken) {
    for (const f of [idx, idx.replace(/\.idx$/, ".pack")]) {
      if (fs.existsSync(`${gitdir}/${f}`)) fs.renameSync(`${gitdir}/${f}`, `${aside}/${path.basename(f)}`);
    }
  }
  forgetPacks(gitdir);
  return broken;
}

/** tmp_obj_* files (a loose object write that was killed) older than ten minutes. */
function sweepLooseLeftovers(gitdir: string): number {
  let n = 0;
  for (let i = 0; i < 256; i++) {
    const dir = `${gitdir}/objects/${i.toString(16).padStart(2, "0")}`;
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((f) => f.startsWith("tmp_obj_"));
    } catch {
      continue;
    }
    for (const f of names) {
      const st = fs.statSync(`${dir}/${f}`, { throwIfNoEntry: false });
      if (st && Date.now() - st.mtimeMs > 10 * 60_000) {
        fs.rmSync(`${dir}/${f}`, { force: true });
        n++;
      }
    }
  }
  return n;
}

async function fromSources(sources: readonly string[], oid: string): Promise<GitObject | null> {
  for (const s of sources) {
    const obj = await readObjectFrom(s, oid);
    if (obj) return obj;
  }
  return null;
}

/** Restore what the refs of `gitdir` need from `sources` (object stores that may have it). */
export async function repairObjects(gitdir: string, sources: readonly string[]): Promise<RepairOutcome> {
  const out: RepairOutcome = { restored: 0, packs_moved: moveBrokenPacks(gitdir), damaged_moved: [], lost: [], tracking_removed: false, leftovers_removed: sweepPackLeftovers(gitdir).length + sweepLooseLeftovers(gitdir) };
  if (damagedRefs(gitdir).includes(TRACKING)) {
    // only where the remote was last seen: the next fetch writes it again
    fs.rmSync(`${gitdir}/${TRACKING}`, { force: true });
    out.tracking_removed = true;
  }
  const done = new Set<string>();
  const fetched = new Set<string>();
  let visited = 0;
  for (const { ref, oid } of await refsToCheck(gitdir)) {
    const lostBefore = out.lost.length;
    const lose = (at: ObjectRef) => out.lost.push({ oid: at.oid, kind: at.kind, where: at.commit ? describeRef(at) : `commit named by ${ref}`, ref, damaged: false });
    await walkChildrenFirst(
      [{ oid, kind: "commit", path: "", commit: null }],
      async (at) => {
        if (++visited % 500 === 0) progress("checking objects", visited);
        if (at.kind === "blob" && (await has(gitdir, at.oid))) return null;
        const local = at.kind === "blob" ? null : await readObjectFrom(gitdir, at.oid);
        if (local) return local;
        const obj = await fromSources(sources, at.oid);
        if (!obj) {
          lose(at);
          return null;
        }
        // present but unreadable: a loose file cut short, moved aside so the good copy can be written
        const file = `${gitdir}/objects/${at.oid.slice(0, 2)}/${at.oid.slice(2)}`;
        if (fs.existsSync(file)) {
          const aside = `${gitdir}/memsync-damaged-objects`;
          fs.mkdirSync(aside, { recursive: true });
          fs.renameSync(file, `${aside}/${at.oid}`);
          out.damaged_moved.push(at.oid);
        }
        fetched.add(at.oid);
        return obj;
      },
      async (at, obj) => {
        if (!fetched.has(at.oid)) return;
        const written = await writeLooseObject(gitdir, obj.type, obj.content);
        if (written === at.oid) out.restored++;
        else out.lost.push({ oid: at.oid, kind: at.kind, where: at.commit ? describeRef(at) : `commit named by ${ref}`, ref, damaged: true });
      },
      done,
    );
    if (ref === TRACKING && out.lost.length > lostBefore) {
      // only a record of where the remote was: the remote no longer has it, so forget it
      out.lost.splice(lostBefore);
      await git.deleteRef({ fs, gitdir, ref: TRACKING });
      out.tracking_removed = true;
    }
  }
  return out;
}
