import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import type { ApiContext } from "../../src/faces/api/context.ts";
import { HealthChecks } from "../../src/faces/api/health.ts";
import { BIN, filesUnder, memsyncJson, newStore, tempDir } from "../helpers/env.ts";

// GET /v1/health?full=1 must answer from a check that began after it was asked. A plain health
// call starts a background check; on a loaded machine that check can still be running when the
// caller breaks a file and asks ?full=1, and joining it answered "healthy" (the flake audit23 saw
// in routes.test.ts). Here the real binary's `status` is the check, run through a wrapper that
// marks when status has answered and then holds the check open a while, as a slow machine would:
// the order of events is fixed, not left to timing.

describe("memsync serve: health's full check", () => {
  test("a full check asked for after a file broke is one begun after it: a check already running from before is not its answer", async () => {
    const store = newStore();
    const id: string = memsyncJson(["--store", store, "save", "health check after a break", "--json"]).memory.id;
    const file = filesUnder(store, `${id}.json`)[0]!;
    const dir = tempDir("memsync-health-");
    const marker = path.join(dir, "answered");
    // run status, say so, hold the check open for 400 ms, then give status's answer
    const wrapper = ["sh", "-c", `out=$("$0" "$@"); code=$?; touch '${marker}'; sleep 0.4; printf '%s' "$out"; exit $code`, BIN];
    const checks = new HealthChecks({ self: wrapper, env: { storeRoot: store } } as unknown as ApiContext);
    try {
      const first = checks.full(); // the background check a plain call would start
      const asked0 = checks.asked;
      for (let i = 0; !fs.existsSync(marker); i++) {
        assert.ok(i < 600, "the first check's status answered within 60 s");
        await new Promise((r) => setTimeout(r, 100));
      }
      fs.writeFileSync(file, "{not json"); // broken after the first check read the store
      const fresh = await checks.full(checks.asked);
      assert.equal((await first).outcome.health, "healthy", "the check begun before the break saw it whole");
      assert.equal(fresh.outcome.health, "degraded", JSON.stringify(fresh.outcome));
      assert.match(fresh.outcome.reasons.join(" "), /corrupt/);
      assert.ok(checks.asked > asked0, "a second check ran");
      // with no such need, a caller joins the running check (polling costs one check at a time)
      const a = checks.full();
      const b = checks.full();
      assert.equal(a, b);
      await a;
    } finally {
      checks.stop();
    }
  });
});
