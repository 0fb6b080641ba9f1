import { makeDelta } from "./delta-encode.ts";
import { applyDelta } from "./pack-index.ts";
import { entryHeader, hexToBytes, type PackObjectType, type PackWriter } from "./pack-write.ts";
import { zlibDeflate } from "./zlib.ts";

// One object into a pack being written: as a delta against the nearest of a few objects already in
// that pack, or whole. Used by repack (bases: earlier versions of the same path) and by a copy
// that packs what it moves (bases: the last objects of the same type, which share a record's shape).

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
  if (best && sameBytes(applyDelta(best.base.content, best.delta), content)) {
    w.addEntry(oid, [entryHeader(7, best.delta.length), hexToBytes(best.base.oid), zlibDeflate(best.delta, level)]);
    return { oid, content, depth: best.base.depth + 1 };
  }
  w.add(oid, type, content, level);
  return { oid, content, depth: 0 };
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
