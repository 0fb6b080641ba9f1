import assert from "node:assert/strict";
import { test } from "node:test";
import { crc32 as zlibCrc32, deflateSync, inflateSync } from "node:zlib";
import { adler32, crc32, zlibDeflate, zlibInflate } from "../../src/sync/zlib.ts";

// git objects are zlib streams; memsync writes them through Bun's raw DEFLATE with its own header
// and checksum, so every size must round-trip through Node's zlib both ways (native git reads them
// in the sync tests; git fsck checks the checksum).

const sizes = [0, 1, 2, 100, 5551, 5552, 5553, 65_536, 300_001];
const sample = (n: number, seed: number) => {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    // half text-like (compressible), half random bytes
    out[i] = i % 2 ? 97 + (x % 26) : x >>> 24;
  }
  return out;
};

test("zlib streams round-trip with node:zlib both ways, at every level, and the checksum is Adler-32", () => {
  for (const n of sizes) {
    const data = sample(n, n + 1);
    for (const level of [1, 6, 9]) {
      const ours = zlibDeflate(data, level);
      assert.deepEqual(new Uint8Array(inflateSync(ours)), data, `node inflates ours (${n} bytes, level ${level})`);
      assert.deepEqual(zlibInflate(ours), data);
    }
    const theirs = new Uint8Array(deflateSync(data));
    assert.deepEqual(zlibInflate(theirs), data, `we inflate node's (${n} bytes)`);
    assert.equal(adler32(data), new DataView(theirs.buffer, theirs.byteOffset).getUint32(theirs.length - 4));
  }
  // the 0xff worst case for the block sums
  const ff = new Uint8Array(20_000).fill(0xff);
  assert.equal(adler32(ff), new DataView(deflateSync(ff).buffer).getUint32(deflateSync(ff).length - 4));
});

test("a damaged stream is refused, never returned as data", () => {
  const good = zlibDeflate(sample(4000, 7));
  const badSum = good.slice();
  badSum[badSum.length - 1]! ^= 1;
  assert.throws(() => zlibInflate(badSum), /checksum/);
  const badHeader = good.slice();
  badHeader[1] = 0x00;
  assert.throws(() => zlibInflate(badHeader));
  assert.throws(() => zlibInflate(new Uint8Array([0x78, 0x9c])));
  const badBody = good.slice();
  badBody[10]! ^= 0xff;
  assert.throws(() => zlibInflate(badBody));
});

test("crc32 is zlib's, whole or continued piece by piece", () => {
  const data = sample(70_000, 11);
  assert.equal(crc32(data), zlibCrc32(data) >>> 0);
  assert.equal(crc32(data.subarray(30_000), crc32(data.subarray(0, 30_000))), zlibCrc32(data) >>> 0);
  assert.equal(crc32(new Uint8Array(0)), 0);
});
