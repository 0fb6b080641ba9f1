// Seeded, platform-independent 32-bit hashing (no Math.random, no runtime crypto): the same text
// gives the same numbers on every machine and every run, so clusters and their ids are stable.

/** murmur3's finalizer: a bijection on 32-bit integers that spreads every input bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 units of a string, from a seed, finished with fmix32. */
export function hashString(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, "0");

/** 12 hex digits (48 bits) naming a set of ids: the same ids in any order give the same name. */
export function setName(ids: readonly string[]): string {
  const text = [...ids].sort().join("\n");
  return `${hex8(hashString(text, 0x811c9dc5))}${hex8(hashString(text, 0x2545f491)).slice(0, 4)}`;
}
