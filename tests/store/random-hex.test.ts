import assert from "node:assert/strict";
import { test } from "node:test";
import { randomHex } from "../../src/store/atomic-write.ts";

// Temp-file names, machine and replica ids take their random tails from randomHex: two lower-case
// hex digits a byte, every byte value reachable, and (across pool refills) no repeats in practice.

test("randomHex: two lower-case hex digits a byte, every byte value drawn, no repeats", () => {
  for (const n of [0, 1, 3, 4, 6, 16]) assert.match(randomHex(n), new RegExp(`^[0-9a-f]{${2 * n}}$`));
  const bytes = new Set<string>();
  const names = new Set<string>();
  // 20,000 draws of 6 bytes: 120,000 bytes, the 4 KiB pool refilled ~30 times
  for (let i = 0; i < 20_000; i++) {
    const h = randomHex(6);
    names.add(h);
    for (let j = 0; j < h.length; j += 2) bytes.add(h.slice(j, j + 2));
  }
  assert.equal(names.size, 20_000, "48 random bits: no repeat expected");
  assert.equal(bytes.size, 256, "every byte value 00..ff appears");
});
