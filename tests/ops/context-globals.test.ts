import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { OpCall } from "../../src/ops/catalogue/index.ts";
import { runOp } from "../../src/ops/catalogue/run.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { tempDir } from "../helpers/env.ts";

// A session's context ends with the user's global rules: live decisions, preferences and patterns
// of global scope and no project, the most confident first, then the newest, five at most.

function callIn(dir = tempDir("memsync-globals-")): OpCall {
  const env = opsEnvOf({ store: "store", vars: { MEMSYNC_MACHINE: "globals-test" }, cwd: dir, home: dir, hostName: "host", user: "tester" });
  return { env, cwd: dir };
}

describe("context's global rules", () => {
  test("only global, project-less, live rules of the rule types; by confidence, then newest; five at most", async () => {
    const c = callIn();
    const save = async (content: string, extra: Record<string, unknown>) => (await runOp<any>("save", c, { memory: { content, type: "preference", scope: "global", ...extra } })).memory.id as string;
    await runOp("save", c, { memory: { content: "Checkout totals are computed on the server.", type: "decision", project: "shop" } });
    const low = await save("Prefer small pull requests.", { confidence: 0.2, created_at: 1_700_000_000 });
    const none = await save("Write the test before the fix.", { created_at: 1_700_000_100 });
    const high = await save("Never log secrets.", { confidence: 0.95, created_at: 1_700_000_200 });
    const midOld = await save("Use UTC in stored times.", { confidence: 0.6, created_at: 1_700_000_300, type: "pattern" });
    const midNew = await save("Name branches after their issue.", { confidence: 0.6, created_at: 1_700_000_400, type: "decision" });
    const sixth = await save("Keep functions short.", { confidence: 0.1, created_at: 1_700_000_500 });
    // not global rules: another scope, a project's own, archived, a problem
    await save("Team style: tabs.", { scope: "team", confidence: 1 });
    await save("Shop rule: prices in cents.", { project: "shop", confidence: 1 });
    const archived = await save("Old rule: deploy on Fridays.", { confidence: 1 });
    await runOp("archive", c, { ids: [archived] });
    await save("Flaky CI on Mondays.", { type: "problem", confidence: 1 });
    const out = await runOp<any>("context", c, { project: "shop" });
    const globals = (out.items as { id: string; global: boolean }[]).filter((i) => i.global).map((i) => i.id);
    // a rule without confidence counts as 0: sixth, so not shown
    assert.deepEqual(globals, [high, midNew, midOld, low, sixth]);
    assert.ok(!globals.includes(none));
    assert.match(out.text, /## Global Best Practices\n- \[Global rule\] Never log secrets\./);
  });
});
