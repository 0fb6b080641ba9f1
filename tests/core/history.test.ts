import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { messages } from "../../src/core/history.ts";

// Commit messages name what changed.

const id = (n: number) => `0190a6b2-7c3d-7e4f-8a9b-${String(n).padStart(12, "0")}`;
const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => id(from + i));

describe("commit messages", () => {
  test("consolidate names every source and the memory they became", () => {
    assert.equal(messages.consolidate([{ sources: [id(1), id(2), id(3)], into: id(9) }]), "consolidate: merge 00000001, 00000002, 00000003 into 00000009");
  });

  test("consolidate of several clusters: each cluster's sources and its merged memory", () => {
    assert.equal(
      messages.consolidate([
        { sources: [id(1), id(2)], into: id(90) },
        { sources: [id(3), id(4), id(5)], into: id(91) },
      ]),
      "consolidate: merge 5 memories into 2: 00000001, 00000002 into 00000090; 00000003, 00000004, 00000005 into 00000091",
    );
  });

  test("past six ids, the rest are counted", () => {
    assert.equal(messages.consolidate([{ sources: ids(1, 9), into: id(99) }]), "consolidate: merge 00000001, 00000002, 00000003, 00000004, 00000005, 00000006, +3 more into 00000099");
    assert.equal(
      messages.consolidate([
        { sources: ids(1, 4), into: id(90) },
        { sources: ids(10, 4), into: id(91) },
        { sources: ids(20, 2), into: id(92) },
        { sources: ids(30, 2), into: id(93) },
      ]),
      "consolidate: merge 12 memories into 4: 00000001, 00000002, 00000003, 00000004 into 00000090; 00000010, 00000011, +2 more into 00000091; +2 more merges",
    );
  });

  test("split names the original and its parts", () => {
    assert.equal(messages.split(id(1), [id(2), id(3)]), "split: decompose 00000001 into 2 atomic memories (00000002, 00000003)");
  });
});
