import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { makeDelta } from "../../src/sync/delta-encode.ts";
import { applyDelta } from "../../src/sync/pack-index.ts";
import { makeRng } from "../helpers/rng.ts";

// git's delta format as the repack writes it (src/sync/delta-encode.ts), read back by the reader
// every command uses (pack-index.ts applyDelta). Native git reading the same deltas is proved by
// tests/sync/history-size.test.ts and repack.test.ts (fsck --strict, verify-pack, clone).

const enc = new TextEncoder();
const rng = makeRng(20261128);
const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rng() * 256));
const text = (n: number) => enc.encode(Array.from({ length: n }, (_, i) => `"k${i}": ${Math.floor(rng() * 1e6)},\n`).join(""));

/** The target again from the base and the delta (or null: not worth a delta). */
function roundTrip(base: Uint8Array, target: Uint8Array, most?: number): Uint8Array | null {
  const d = makeDelta(base, target, most);
  if (d) assert.deepEqual(applyDelta(base, d), target, "the delta rebuilds the target");
  return d;
}

function edit(base: Uint8Array, edits: number, maxLen: number): Uint8Array {
  let out = base;
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rng() * (out.length + 1));
    const len = 1 + Math.floor(rng() * maxLen);
    const op = Math.floor(rng() * 3);
    if (op === 0) out = Uint8Array.from([...out.subarray(0, at), ...bytes(len), ...out.subarray(at)]); // insert
    else if (op === 1) out = Uint8Array.from([...out.subarray(0, at), ...out.subarray(Math.min(out.length, at + len))]); // delete
    else out = Uint8Array.from([...out.subarray(0, at), ...bytes(len), ...out.subarray(Math.min(out.length, at + len))]); // replace
  }
  return out;
}

describe("git deltas, written", () => {
  test("a version with a few changes: a delta a small share of its size that rebuilds it exactly", () => {
    for (let i = 0; i < 200; i++) {
      const base = i % 2 ? text(20 + Math.floor(rng() * 400)) : bytes(64 + Math.floor(rng() * 20000));
      const target = edit(base, 1 + Math.floor(rng() * 6), 1 + Math.floor(rng() * 60));
      const d = roundTrip(base, target, target.length);
      if (target.length > 2000) assert.ok(d && d.length < target.length / 4, `case ${i}: ${d?.length} bytes for ${target.length}`);
    }
  });

  test("moved and repeated blocks, a copy longer than 64 KiB, an insert longer than 127 bytes, an offset in three bytes", () => {
    const a = bytes(3000);
    const b = bytes(3000);
    roundTrip(Uint8Array.from([...a, ...b]), Uint8Array.from([...b, ...a])); // swapped halves
    roundTrip(Uint8Array.from([...a]), Uint8Array.from([...a, ...a, ...a])); // repeated
    const big = bytes(200_000);
    const d = roundTrip(big, Uint8Array.from([...big.subarray(0, 150_000), ...bytes(500), ...big.subarray(150_000)]));
    assert.ok(d && d.length < 1000, `${d?.length}`);
    roundTrip(bytes(40), Uint8Array.from([...bytes(300)]), 10_000); // nothing shared: inserts only
  });

  test("not worth it: unrelated content, tiny inputs, or over the caller's bound gives null", () => {
    assert.equal(makeDelta(bytes(4000), bytes(4000)), null);
    assert.equal(makeDelta(bytes(8), bytes(8)), null);
    const base = text(200);
    const target = edit(base, 3, 20);
    assert.ok(makeDelta(base, target));
    assert.equal(makeDelta(base, target, 4), null);
  });
});
