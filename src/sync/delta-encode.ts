// git's delta format, written: how a repack stores a version of a file or folder as the bytes it
// shares with another version (copies from the base) plus what is new (inserts), as git's own
// repack does. A memsync store commits on every write, and each commit writes a new version of
// each folder it touched (a flat folder of 1,000 records is a 40 KB tree): stored whole, those
// versions were most of a busy store's history (a chaos clone: 268 MB, 20,000 trees, against
// 11 MB after `git repack -ad`). Read back by pack-index.ts applyDelta, by isomorphic-git and git.
//
// The encoder is git's diff-delta in outline: the base's 16-byte blocks are indexed by a hash, the
// target is scanned for a block the base holds, each match is grown both ways, and what no match
// covers is inserted. Exact, not optimal: a smaller delta may exist; any delta it makes is checked
// by applying it (repack.ts) before it is stored.

const BLOCK = 16;
const MAX_COPY = 0xffff; // a copy's size in at most two bytes (0 would mean 0x10000)
const MAX_INSERT = 0x7f;
const SHORT_CHANGE = 256; // a middle this short is inserted whole (below: the general search)
const GROW_BACK = 4 * BLOCK; // the most a later match is counted on to grow back over unmatched bytes

export function pushVarint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

/** FNV-1a over one block of 16 bytes. */
function blockHash(bytes: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + BLOCK; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

export function pushCopy(out: number[], offset: number, size: number): void {
  while (size > 0) {
    const n = Math.min(size, MAX_COPY);
    const at = out.length;
    let op = 0x80;
    out.push(0);
    for (let k = 0; k < 4; k++) {
      const b = Math.floor(offset / 2 ** (8 * k)) & 0xff;
      if (b) (op |= 1 << k), out.push(b);
    }
    for (let k = 0; k < 2; k++) {
      const b = (n >> (8 * k)) & 0xff;
      if (b) (op |= 0x10 << k), out.push(b);
    }
    out[at] = op;
    offset += n;
    size -= n;
  }
}

export function pushInsert(out: number[], bytes: Uint8Array, from: number, to: number): void {
  for (let i = from; i < to; i += MAX_INSERT) {
    const n = Math.min(MAX_INSERT, to - i);
    out.push(n);
    for (let k = i; k < i + n; k++) out.push(bytes[k]!);
  }
}

/**
 * The delta that makes `target` from `base`, or null when it would not be worth storing: larger
 * than `most` bytes (the caller's bound, e.g. half the target).
 */
export function makeDelta(base: Uint8Array, target: Uint8Array, most = Math.floor(target.length / 2)): Uint8Array | null {
  if (base.length < BLOCK || target.length < BLOCK) return null;
  // the usual next version: the same bytes around a short change (a folder's one new entry, a
  // record's counter): the common ends copied, the middle inserted, no index of the base
  let prefix = 0;
  const shorter = Math.min(base.length, target.length);
  while (prefix < shorter && base[prefix] === target[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && base[base.length - 1 - suffix] === target[target.length - 1 - suffix]) suffix++;
  if (target.length - prefix - suffix <= SHORT_CHANGE) {
    const out: number[] = [];
    pushVarint(out, base.length);
    pushVarint(out, target.length);
    if (prefix) pushCopy(out, 0, prefix);
    pushInsert(out, target, prefix, target.length - suffix);
    if (suffix) pushCopy(out, base.length - suffix, suffix);
    return out.length > most ? null : Uint8Array.from(out);
  }
  // the base's blocks in an open table by hash (offset + 1; a block whose slot is taken by another
  // hash is not found: a shorter match or an insert, never a wrong copy, as every match is compared)
  const blocks = Math.floor(base.length / BLOCK);
  let size = 16;
  while (size < blocks * 2) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size);
  for (let at = 0; at + BLOCK <= base.length; at += BLOCK) table[blockHash(base, at) & mask] = at + 1;
  const out: number[] = [];
  pushVarint(out, base.length);
  pushVarint(out, target.length);
  let pending = 0; // the first target byte not yet copied or inserted
  let pos = 0;
  while (pos + BLOCK <= target.length) {
    const at = table[blockHash(target, pos) & mask]! - 1;
    if (at < 0 || !sameBlock(base, at, target, pos)) {
      pos++;
      // what no match has covered so far is inserted, less what a later match may grow back
      // over (a shared run this scan missed is under two blocks, but for a table slot another
      // block took): past `most`, the delta is not worth finishing (most of a push's CPU went to
      // writing out whole unmatched targets, a 69 KB folder among them, only to refuse them)
      if (out.length + (pos - pending) > most + GROW_BACK) return null;
      continue;
    }
    // grow the match forward, then back over bytes not yet written
    let from = at;
    let to = pos;
    let len = BLOCK;
    while (from + len < base.length && to + len < target.length && base[from + len] === target[to + len]) len++;
    while (from > 0 && to > pending && base[from - 1] === target[to - 1]) from--, to--, len++;
    pushInsert(out, target, pending, to);
    pushCopy(out, from, len);
    pos = pending = to + len;
    if (out.length > most) return null;
  }
  pushInsert(out, target, pending, target.length);
  return out.length > most ? null : Uint8Array.from(out);
}

function sameBlock(a: Uint8Array, ai: number, b: Uint8Array, bi: number): boolean {
  for (let k = 0; k < BLOCK; k++) if (a[ai + k] !== b[bi + k]) return false;
  return true;
}
