import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { createMemory } from "../../src/core/records.ts";
import { withScopeRules } from "../../src/core/scope.ts";

// What a memory's scope promises of the record itself (README: Scopes).

const T0 = 1_790_000_000;

describe("scope rules", () => {
  test("withScopeRules: a global memory loses user and session, nothing else does", () => {
    const m = createMemory({ content: "x", captured_by: { session: "s1", agent: "a" } }, newId(), { now: T0, machine: "m", user: "alice" });
    assert.equal(withScopeRules(m), m);
    const g = withScopeRules({ ...m, scope: "global" });
    assert.deepEqual(g.captured_by, { user: null, machine: "m", agent: "a", session: null });
    assert.equal(withScopeRules(g), g);
    assert.equal(withScopeRules({ ...m, scope: "local" }).captured_by!.user, "alice");
  });

});
