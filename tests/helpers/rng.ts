// A seeded random number generator (mulberry32: small, fast, and the same sequence on every
// runtime): the same seed gives the same choices, so a chaos run or a property case can be
// repeated from its seed. No imports: core tests load it under Deno too.

export type Rng = () => number;

export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
