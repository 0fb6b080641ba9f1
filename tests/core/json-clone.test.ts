import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cloneJson } from "../../src/core/json-clone.ts";
import { makeRng, type Rng } from "../helpers/rng.ts";

// cloneJson stands in for structuredClone on record fields (core/records.ts, ops/import.ts):
// the same copy, and never one that shares anything with its source.

/** A random JSON value (as JSON.parse makes them: keys such as "__proto__" and "" included). */
function jsonValue(r: Rng, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 4 ? 5 : 7));
  if (pick === 0) return null;
  if (pick === 1) return r() < 0.5;
  if (pick === 2) return r() < 0.5 ? Math.floor(r() * 2000) - 1000 : r() * 1e6;
  if (pick === 3) return ["", "a", "é ✓ \u0000", "__proto__", "x".repeat(Math.floor(r() * 40))][Math.floor(r() * 5)];
  if (pick === 4) return Math.floor(r() * 3) === 0 ? -0.5 : 1e-5;
  if (pick === 5) return Array.from({ length: Math.floor(r() * 5) }, () => jsonValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) {
    const k = ["id", "meta", "tags", "__proto__", "", "constructor", `k${Math.floor(r() * 9)}`][Math.floor(r() * 7)]!;
    Object.defineProperty(o, k, { value: jsonValue(r, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return o;
}

describe("cloneJson", () => {
  test("equals structuredClone on any JSON value, and shares nothing with its source", () => {
    const r = makeRng(20261126);
    for (let i = 0; i < 500; i++) {
      const v = jsonValue(r);
      const copy = cloneJson(v);
      assert.deepStrictEqual(copy, structuredClone(v));
      const seen = new Set<unknown>();
      const walk = (x: unknown) => {
        if (typeof x === "object" && x !== null) {
          seen.add(x);
          for (const y of Object.values(x)) walk(y);
        }
      };
      walk(v);
      const check = (x: unknown) => {
        if (typeof x === "object" && x !== null) {
          assert.ok(!seen.has(x), "an object of the source reused in the copy");
          for (const y of Object.values(x)) check(y);
        }
      };
      check(copy);
    }
  });

  test("an own __proto__ key stays a key, never the copy's prototype", () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const copy = cloneJson(v) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ["__proto__", "a"]);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { polluted: true });
  });

  test("values JSON has no form for are copied as structuredClone copies them", () => {
    const when = new Date(0);
    const copy = cloneJson({ when, nothing: undefined, list: [1, undefined] });
    assert.ok(copy.when instanceof Date && copy.when !== when && copy.when.getTime() === 0);
    assert.ok(Object.hasOwn(copy, "nothing"));
    assert.deepEqual(copy.list, [1, undefined]);
  });
});
