import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { faultPoint } from "./fault.ts";
import { forgetPacks } from "./objects.ts";

// The file system handed to isomorphic-git's fetch. Left to itself, fetch writes the remote's
// refs (refs/remotes/origin/main) BEFORE the pack that holds their objects, and writes the .pack
// and its .idx in place: a kill in between leaves a ref naming missing objects, or an index cut
// short that every later read trips over. Through this file system:
// - writes under refs/ are dropped: memsync moves the tracking ref itself, after fetch returns;
// - a .pack or .idx is written to a temporary name and renamed into place, so either is whole or
//   absent. isomorphic-git (and git) use a pack only through its .idx, which comes second: a kill
//   leaves at most a complete .pack without an index, which nothing reads (see sweepPacks).
// Everything else passes through to node:fs.

export function fetchFs(gitdir: string): { promises: typeof fs.promises } {
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
