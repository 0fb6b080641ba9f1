import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { faultPoint } from "./fault.ts";
import { forgetPacks } from "./objects.ts";
import { packFolderNames } from "./pack-index.ts";

// The file system handed to isomorphic-git's fetch. Left to itself, fetch writes the remote's
// refs (refs/remotes/origin/main) BEFORE the pack that holds their objects, and writes the .pack
// and its .idx in place: a kill in between leaves a ref naming missing objects, or an index cut
// short that every later read trips over. Through this file system:
// - writes under refs/ are dropped: memsync moves the tracking ref itself, after fetch returns;
// - a .pack or .idx is written to a temporary name and renamed into place, so either is whole or
//   absent. isomorphic-git (and git) use a pack only through its .idx, which comes second: a kill
//   leaves at most a complete .pack without an index, which nothing reads (see sweepPacks).
// Everything else passes through to node:fs.

const LEFTOVER_AGE_MS = 10 * 60_000;

/**
 * Remove what killed fetches left in objects/pack: temporary files, and packs whose index never
 * came (nothing reads them). Only files older than ten minutes: a fetch running now (memsync's or
 * git's) is left alone.
 */
export function sweepPackLeftovers(gitdir: string): string[] {
  const dir = `${gitdir}/objects/pack`;
  const names = packFolderNames(gitdir);
  const removed: string[] = [];
  for (const n of names) {
    const orphan = n.endsWith(".pack") && !names.includes(n.replace(/\.pack$/, ".idx"));
    if (!orphan && !n.startsWith("tmp_")) continue;
    const st = fs.statSync(`${dir}/${n}`, { throwIfNoEntry: false });
    if (!st || Date.now() - st.mtimeMs < LEFTOVER_AGE_MS) continue;
    fs.rmSync(`${dir}/${n}`, { force: true });
    removed.push(`objects/pack/${n}`);
  }
  return removed;
}

export function fetchFs(gitdir: string): { promises: typeof fs.promises } {
  sweepPackLeftovers(gitdir);
  const refs = `${path.resolve(gitdir)}/refs/`;
  const writeFile = async (file: string, data: Uint8Array | string, opts?: unknown) => {
    const abs = path.resolve(String(file));
    if (abs.startsWith(refs)) return;
    if (!/\.(pack|idx)$/.test(abs)) return fs.promises.writeFile(abs, data, opts as fs.WriteFileOptions);
    const tmp = `${path.dirname(abs)}/tmp_${path.basename(abs)}_${process.pid}_${Math.random().toString(36).slice(2)}`;
    await fs.promises.writeFile(tmp, data, { mode: 0o444 });
    await fs.promises.rename(tmp, abs);
    if (abs.endsWith(".pack")) faultPoint("pack");
    else forgetPacks(gitdir);
  };
  return { promises: { ...fs.promises, writeFile } as typeof fs.promises };
}
