import fs from "node:fs";

// Pack indexes read directly (no isomorphic-git, which would first parse every index whole): is
// an object in a pack, and is an index whole. Loaded without isomorphic-git, so status can ask.

/** The file names in objects/pack ([] when there is no such folder: loose objects only). */
export function packFolderNames(gitdir: string): string[] {
  try {
    return fs.readdirSync(`${gitdir}/objects/pack`);
  } catch {
    return [];
  }
}

/** Each pack index of a repository, read once per command. */
const packIndexes = new Map<string, Uint8Array[]>();
function packIndexesOf(gitdir: string): Uint8Array[] {
  let idx = packIndexes.get(gitdir);
  if (!idx) {
    const names = packFolderNames(gitdir).filter((n) => n.endsWith(".idx"));
    // an index cut short (written by something that was killed) is not read: its objects count as missing
    idx = names.map((n) => fs.readFileSync(`${gitdir}/objects/pack/${n}`)).filter(packIndexLooksWhole);
    packIndexes.set(gitdir, idx);
  }
  return idx;
}

/** Forget the pack indexes read so far (packs were added or removed). */
export function forgetPackIndexes(gitdir: string): void {
  packIndexes.delete(gitdir);
}

/** Whether a pack index is at least as long as the object count in its fan-out table says. */
export function packIndexLooksWhole(idx: Uint8Array): boolean {
  if (idx.length < 8 + 1024 + 40) return false;
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  const v2 = view.getUint32(0) === 0xff744f63;
  const count = view.getUint32((v2 ? 8 : 0) + 255 * 4);
  return idx.length >= (v2 ? 8 + 1024 + count * 28 + 40 : 1024 + count * 24 + 40);
}

/** Whether a pack index (version 1 or 2) lists an object: a binary search over its sorted ids. */
function packIndexHas(idx: Uint8Array, oid: Uint8Array): boolean {
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  const v2 = view.getUint32(0) === 0xff744f63;
  const fanout = v2 ? 8 : 0;
  const first = oid[0]!;
  let lo = first === 0 ? 0 : view.getUint32(fanout + (first - 1) * 4);
  let hi = view.getUint32(fanout + first * 4);
  const base = fanout + 1024;
  const width = v2 ? 20 : 24;
  const skip = v2 ? 0 : 4;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = base + mid * width + skip;
    let c = 0;
    for (let i = 0; i < 20 && c === 0; i++) c = idx[at + i]! - oid[i]!;
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/** Whether one of a repository's pack indexes lists an object. */
export function inPackIndex(gitdir: string, oid: string): boolean {
  const indexes = packIndexesOf(gitdir);
  if (!indexes.length) return false;
  const raw = new Uint8Array(20);
  for (let i = 0; i < 20; i++) raw[i] = Number.parseInt(oid.slice(i * 2, i * 2 + 2), 16);
  return indexes.some((idx) => packIndexHas(idx, raw));
}
