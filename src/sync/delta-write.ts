import { makeDelta } from "./delta-encode.ts";
import { applyDelta } from "./pack-index.ts";
import { entryHeader, hexToBytes, type PackObjectType, type PackWriter } from "./pack-write.ts";
import { treeDelta } from "./tree-bytes.ts";
import { zlibDeflate } from "./zlib.ts";

// One object into a pack being written: as a delta against the nearest of a few objects already in
// that pack, or whole. Used by repack (bases: earlier versions of the same path) and by a copy
// that packs what it moves (bases: the last objects of the same type, which share a record's shape;
// for a tree, the version of its folder it was compared with, whose delta needs no search).

/** An object written to the pack, kept as a possible base for later ones. */
export interface Version {
  oid: string;
  content: Uint8Array;
  /** Deltas to apply to read it (0: stored whole). */
  depth: number;
}

/** The longest chain of deltas written (git's --depth default): a read applies at most this many. */
export const MAX_DEPTH = 50;
/** A delta this small is good enough: no further base is tried. */
const GOOD_DELTA = 96;

/**
 * Write `content` as the smallest delta found against `bases` (tried in order, each under MAX_DEPTH;
 * at most half the object's size, checked by applying it), else whole, at zlib `level`.
 */
export function writeNearest(w: PackWriter, oid: string, type: PackObjectType, content: Uint8Array, bases: readonly Version[], level: number): Version {
  let best: { base: Version; delta: Uint8Array } | null = null;
  for (const base of bases) {
    if (base.depth >= MAX_DEPTH) continue;
    const delta = makeDelta(base.content, content, best ? best.delta.length - 1 : undefined);
    if (delta) best = { base, delta };
    if (best && best.delta.length <= GOOD_DELTA) break;
  }
  const written = best ? writeDelta(w, oid, content, best.base, best.delta, level) : null;
  if (written) return written;
  w.add(oid, type, content, level);
  return { oid, content, depth: 0 };
}

/** Write `content` as `delta` against `base` (a ref delta), once applying it is checked to rebuild `content`; null when it does not. */
function writeDelta(w: PackWriter, oid: string, content: Uint8Array, base: Version, delta: Uint8Array, level: number): Version | null {
  if (!sameBytes(applyDelta(base.content, delta), content)) return null;
  w.addEntry(oid, [entryHeader(7, delta.length), hexToBytes(base.oid), zlibDeflate(delta, level)]);
  return { oid, content, depth: base.depth + 1 };
}

/**
 * Write a tree as a delta against another version of its folder (tree-bytes.ts treeDelta: no
 * search, one walk of both), when that is at most half its size and `base` is under MAX_DEPTH;
 * null when it is not (the caller stores it otherwise).
 */
export function writeTreeDelta(w: PackWriter, oid: string, content: Uint8Array, base: Version, level: number): Version | null {
  if (base.depth >= MAX_DEPTH) return null;
  const delta = treeDelta(base.content, content);
  return delta ? writeDelta(w, oid, content, base, delta, level) : null;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
