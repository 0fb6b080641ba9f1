import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canonicalJson } from "../../src/core/canonical-json.ts";

describe("canonicalJson", () => {
  test("known keys in schema order, unknown keys sorted after them", () => {
    const order = { keys: ["id", "content"], nested: {} };
    const out = canonicalJson({ zeta: 1, content: "c", alpha: 2, id: "x" }, order);
    assert.equal(out, '{\n  "id": "x",\n  "content": "c",\n  "alpha": 2,\n  "zeta": 1\n}\n');
  });
});
