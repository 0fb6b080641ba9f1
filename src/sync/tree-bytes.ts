import { pushCopy, pushInsert, pushVarint } from "./delta-encode.ts";
import { oidAt } from "./object-ref.ts";

// Two versions of a git tree compared as their bytes, entry by entry, no entry list or strings
// made for what they share: a new version of a folder differs from the one before it in a few
// entries of hundreds (a flat memories/ folder of 1,000 records is a 69 KB tree, rewritten by
// every commit). What a push sends (push-objects.ts) and what a copy walks (objects.ts
// walkChildrenFirst) are found this way, and a copy's delta of one version against the other.

const dec = new TextDecoder();

/** Where the entry at `at` ends, its name's end (the NUL), and whether it is a folder (mode 40000) or a submodule (160000). */
function entryAt(b: Uint8Array, at: number): { nul: number; end: number; kind: "tree" | "blob" | "commit" } | null {
  let space = at;
  while (space < b.length && b[space] !== 0x20) space++;
  let nul = space + 1;
  while (nul < b.length && b[nul] !== 0) nul++;
  if (nul + 21 > b.length) return null;
  const mode = space - at;
  const kind = mode === 5 && b[at] === 0x34 ? "tree" : mode === 6 && b[at] === 0x31 && b[at + 1] === 0x36 ? "commit" : "blob";
  return { nul, end: nul + 21, kind };
}

/** git's order of two entries' names: bytes, a folder's as if followed by "/". */
function compareNames(x: Uint8Array, xFrom: number, xTo: number, xTree: boolean, y: Uint8Array, yFrom: number, yTo: number, yTree: boolean): number {
  const n = Math.min(xTo - xFrom, yTo - yFrom);
  for (let i = 0; i < n; i++) if (x[xFrom + i] !== y[yFrom + i]) return x[xFrom + i]! - y[yFrom + i]!;
  const xc = xFrom + n < xTo ? x[xFrom + n]! : xTree ? 0x2f : -1;
  const yc = yFrom + n < yTo ? y[yFrom + n]! : yTree ? 0x2f : -1;
  return xc - yc;
}

/** An entry of one version of a tree that the other version does not hold as it is. */
export interface ChangedEntry {
  oid: string;
  type: "tree" | "blob" | "commit";
  name: string;
  /** The id of the entry of the same name and kind in the other version (none for a submodule). */
  base: string | null;
}

/**
 * The entries of `mine` that `base` does not hold with the same mode, name and id, each with the
 * id of the entry of the same name in `base` (of the same kind). Both in git's order, walked side by
 * side; an entry is skipped only when the same bytes sit in `base` (so trees out of order cost
 * extra objects sent, never one left out).
 */
export function changedEntries(mine: Uint8Array, base: Uint8Array): ChangedEntry[] {
  const out: ChangedEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < mine.length) {
    const m = entryAt(mine, i);
    if (!m) break;
    const b = j < base.length ? entryAt(base, j) : null;
    if (b && m.end - i === b.end - j) {
      let same = true;
      for (let k = 0; k < m.end - i && same; k++) same = mine[i + k] === base[j + k];
      if (same) {
        i = m.end;
        j = b.end;
        continue;
      }
    }
    const mNameFrom = mine.indexOf(0x20, i) + 1;
    const c = b ? compareNames(mine, mNameFrom, m.nul, m.kind === "tree", base, base.indexOf(0x20, j) + 1, b.nul, b.kind === "tree") : -1;
    if (c > 0) {
      j = b!.end; // only in base
      continue;
    }
    // the same name's object in the base, when it is of the same kind: a folder to compare, a file's delta base
    out.push({
      oid: oidAt(mine, m.nul + 1),
      type: m.kind,
      name: dec.decode(mine.subarray(mNameFrom, m.nul)),
      base: c === 0 && b!.kind === m.kind && m.kind !== "commit" ? oidAt(base, b!.nul + 1) : null,
    });
    i = m.end;
    if (c === 0) j = b!.end;
  }
  return out;
}

/**
 * A git delta that makes the tree `target` from the tree `base`: the runs of entries `base` holds
 * as they are copied from it, the rest inserted. What makeDelta (delta-encode.ts) would find for
 * two versions of a folder, without its index of the base's blocks or its search (a few ms for a
 * 69 KB tree): one walk of both, as changedEntries. Null when it would be larger than `most`
 * bytes, or a tree does not parse.
 */
export function treeDelta(base: Uint8Array, target: Uint8Array, most = Math.floor(target.length / 2)): Uint8Array | null {
  const out: number[] = [];
  pushVarint(out, base.length);
  pushVarint(out, target.length);
  let copyFrom = 0; // the run of base bytes to copy next (copyLen 0: none)
  let copyLen = 0;
  let insertFrom = 0; // the run of target bytes to insert next (up to i)
  let i = 0;
  let j = 0;
  const flushCopy = () => {
    if (copyLen) pushCopy(out, copyFrom, copyLen);
    copyLen = 0;
  };
  while (i < target.length) {
    const m = entryAt(target, i);
    if (!m) return null;
    let b = j < base.length ? entryAt(base, j) : null;
    // base entries that sort before this one are not in the target
    const mNameFrom = target.indexOf(0x20, i) + 1;
    while (b && compareNames(target, mNameFrom, m.nul, m.kind === "tree", base, base.indexOf(0x20, j) + 1, b.nul, b.kind === "tree") > 0) {
      j = b.end;
      b = j < base.length ? entryAt(base, j) : null;
    }
    let same = b !== null && m.end - i === b.end - j;
    for (let k = 0; same && k < m.end - i; k++) same = target[i + k] === base[j + k];
    if (same) {
      if (insertFrom < i) {
        flushCopy();
        pushInsert(out, target, insertFrom, i);
      }
      if (copyLen && copyFrom + copyLen === j) copyLen += b!.end - j;
      else {
        flushCopy();
        copyFrom = j;
        copyLen = b!.end - j;
      }
      insertFrom = m.end;
    }
    if (b && (same || compareNames(target, mNameFrom, m.nul, m.kind === "tree", base, base.indexOf(0x20, j) + 1, b.nul, b.kind === "tree") === 0)) j = b.end;
    i = m.end;
    if (out.length > most) return null;
  }
  if (insertFrom < target.length) {
    flushCopy();
    pushInsert(out, target, insertFrom, target.length);
  }
  flushCopy();
  return out.length > most ? null : Uint8Array.from(out);
}
