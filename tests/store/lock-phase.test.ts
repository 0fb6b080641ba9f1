import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { currentPhase, inPhase } from "../../src/store/lock-heartbeat.ts";

// The phase a lock holder's note names (store/lock-heartbeat.ts) when phases of concurrent work of
// one process (a server's requests) interleave across awaits: each phase that ends takes only
// itself away. Restoring the phase found at its start left an ended phase named for good.

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("the phase of this process", () => {
  test("phases that end in another order than they began leave no ended phase named", async () => {
    const idle = currentPhase().phase;
    let endA!: () => void;
    let endB!: () => void;
    const a = inPhase("request-a.commit", () => new Promise<void>((r) => (endA = r)));
    await tick();
    const b = inPhase("request-b.commit", () => new Promise<void>((r) => (endB = r)));
    await tick();
    assert.equal(currentPhase().phase, "request-b.commit");
    endA();
    await a;
    assert.equal(currentPhase().phase, "request-b.commit");
    endB();
    await b;
    assert.equal(currentPhase().phase, idle);
  });

  test("nested phases: the inner one while it runs, the outer one after", async () => {
    await inPhase("sync.pull", async () => {
      await inPhase("pull.commit", async () => assert.equal(currentPhase().phase, "pull.commit"));
      assert.equal(currentPhase().phase, "sync.pull");
    });
  });
});
