import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { git, memsync, memsyncJson, newStore } from "../helpers/env.ts";
import { withServer } from "../helpers/server.ts";

// Reads run together in one server process (ops/gate.ts). A read that walks history keeps the
// packs it reads open for its command (sync/pack-index.ts): another read starting meanwhile must
// not close them under it, and the descriptors must not outlive the reads (a repacked pack's space
// is held while one is open).

describe("memsync serve: concurrent reads of packed history", () => {
  test("40 history reads at once over 6 packs answer as one read alone does", async () => {
    const store = newStore();
    const run = (...a: string[]) => {
      const r = memsync(["--store", store, ...a]);
      assert.equal(r.code, 0, r.stderr);
    };
    const ids = ["Orders use cursor pagination", "Billing runs nightly", "Logs ship to Loki", "Cache keys carry the service name"].map(
      (c) => memsyncJson(["--store", store, "save", c]).memory.id as string,
    );
    // six packs: each round's commits packed on their own (native git repack without -a)
    for (let round = 0; round < 6; round++) {
      for (const [i, id] of ids.entries()) run("update", id, "--content", `memory ${i}, version ${round}`);
      run("commit");
      git(store, "repack", "-d", "-q");
    }
    const packs = git(store, "count-objects", "-v").stdout;
    assert.match(packs, /^packs: ([6-9]|\d\d+)$/m);
    const alone = ids.map((id) => memsyncJson(["--store", store, "history", id]).commits.map((c: { oid: string }) => c.oid));
    for (const h of alone) assert.equal(h.length, 7);
    await withServer(store, async (s) => {
      const asks = Array.from({ length: 40 }, (_, k) => fetch(`${s.url}/v1/history?id=${ids[k % ids.length]}`).then(async (r) => ({ k, status: r.status, body: (await r.json()) as { commits: { oid: string }[] } })));
      const answers = await Promise.all(asks);
      for (const a of answers) {
        assert.equal(a.status, 200, JSON.stringify(a.body));
        assert.deepEqual(a.body.commits.map((c) => c.oid), alone[a.k % ids.length]);
      }
      // no pack left open once the reads have answered
      const open = fs.readdirSync(`/proc/${s.child.pid}/fd`).map((fd) => { try { return fs.readlinkSync(`/proc/${s.child.pid}/fd/${fd}`); } catch { return ""; } });
      assert.deepEqual(open.filter((f) => f.endsWith(".pack")), []);
    });
  });
});
