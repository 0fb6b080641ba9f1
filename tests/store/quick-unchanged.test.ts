import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "node:test";
import { shardOf } from "../../src/core/ids.ts";
import { recall } from "../../src/ops/recall.ts";
import { saveMemory } from "../../src/ops/save.ts";
import { nodeFs } from "../../src/store/fs-port.ts";
import { IndexDb } from "../../src/store/index-db.ts";
import { quickUnchanged } from "../../src/store/quick-unchanged.ts";
import { planIsEmpty, planRefresh } from "../../src/store/refresh.ts";
import { Store } from "../../src/store/store.ts";
import { shardedSkeleton } from "../helpers/sharded-store.ts";

// The quick refresh (recall's, every read's) says "nothing changed" from the folders' mtimes in
// one loop (store/quick-unchanged.ts) before the planner walks them. It must say so exactly when
// the planner would find nothing: a hand edit inside a shard folder (a new file, one removed, one
// replaced as an editor saves it) moves only that shard's mtime, and recall must still see it.

const T0 = 1_790_000_000;
const PLACES = ["memories", ".memsync/local/memories"];
const env = (root: string) => ({ storeRoot: root, hostName: "host", user: "alice", machineOverride: "laptop" });

/** Every record folder's mtime a minute back: the next listing records them trusted at once (racy.ts). */
function settleFolders(root: string): void {
  const past = new Date(Date.now() - 60_000);
  for (const place of PLACES) {
    const top = path.join(root, place);
    if (!fs.existsSync(top)) continue;
    for (const d of fs.readdirSync(top, { withFileTypes: true })) if (d.isDirectory()) fs.utimesSync(path.join(top, d.name), past, past);
    fs.utimesSync(top, past, past);
  }
}

/** quickUnchanged on a connection of its own, and whether the planner finds nothing, on the index as it is now. */
function verdicts(root: string): { quick: boolean; planEmpty: boolean } {
  const db = new DatabaseSync(path.join(root, ".memsync/index.db"));
  try {
    const index = IndexDb.reading(db);
    const quick = quickUnchanged(nodeFs, index, root, ["memory"]);
    const plan = planRefresh({ fs: nodeFs, index, root, now: () => Date.now(), codec: null }, false, ["memory"]);
    return { quick, planEmpty: planIsEmpty(plan) && plan.temps.length === 0 };
  } finally {
    db.close();
  }
}

/** The id of a record file written by hand beside `id` in its shard folder (same last two digits). */
const siblingId = (id: string, digit: string) => `${id.slice(0, 24)}${digit}${id.slice(25)}`;

async function recalled(s: Store, query: string): Promise<string[]> {
  return (await recall(s, { query })).items.map((i) => i.text);
}

describe("quick refresh: nothing changed, told by folder mtimes alone", () => {
  test("says unchanged exactly when the planner finds nothing, and every hand edit in a shard folder is still seen by recall", { timeout: 60_000 }, async () => {
    const root = shardedSkeleton(T0);
    const s = await Store.open(root);
    try {
      const shared: string[] = [];
      for (let i = 0; i < 5; i++) shared.push((await saveMemory(s, env(root), { content: `the ledger export ${i} runs nightly at the quarry` })).memory.id);
      const local = (await saveMemory(s, env(root), { content: "the quarry ledger key lives in the vault", scope: "local" })).memory.id;
      assert.ok(fs.existsSync(path.join(root, "memories", shardOf(shared[0]!), `${shared[0]}.json`)), "sharded");
      assert.ok(fs.existsSync(path.join(root, ".memsync/local/memories", shardOf(local), `${local}.json`)), "local place sharded");

      const settle = async () => {
        settleFolders(root);
        await s.refresh(true);
        assert.deepEqual(verdicts(root), { quick: true, planEmpty: true }, "settled: both say nothing changed");
      };
      await settle();
      /** A record file's content changed as an editor saves it (a temp file renamed over it); the check and recall must see it. */
      const editedAndSeen = async (file: string, content: string, query: string) => {
        const rec = JSON.parse(fs.readFileSync(file, "utf8"));
        fs.writeFileSync(`${file}.swp`, `${JSON.stringify({ ...rec, content }, null, 2)}\n`);
        fs.renameSync(`${file}.swp`, file);
        assert.deepEqual(verdicts(root), { quick: false, planEmpty: false });
        assert.deepEqual(await recalled(s, query), [content]);
      };

      // 1. a new record file by hand, inside an existing shard folder (the top folder's mtime stays)
      const template = JSON.parse(fs.readFileSync(path.join(root, "memories", shardOf(shared[1]!), `${shared[1]}.json`), "utf8"));
      const added = siblingId(shared[1]!, shared[1]![24] === "a" ? "b" : "a");
      const topBefore = fs.statSync(path.join(root, "memories")).mtimeMs;
      fs.writeFileSync(path.join(root, "memories", shardOf(added), `${added}.json`), `${JSON.stringify({ ...template, id: added, content: "the zephyr turbine ledger was added by hand" }, null, 2)}\n`);
      assert.equal(fs.statSync(path.join(root, "memories")).mtimeMs, topBefore, "only the shard folder moved");
      assert.deepEqual(verdicts(root), { quick: false, planEmpty: false });
      assert.deepEqual(await recalled(s, "zephyr turbine"), ["the zephyr turbine ledger was added by hand"]);
      await settle();

      // 2. a record file replaced as an editor saves (a temp file renamed over it)
      await editedAndSeen(path.join(root, "memories", shardOf(shared[2]!), `${shared[2]}.json`), "the marigold ledger export runs at dawn", "marigold");
      await settle();

      // 3. a record file removed by hand
      fs.rmSync(path.join(root, "memories", shardOf(added), `${added}.json`));
      assert.deepEqual(verdicts(root), { quick: false, planEmpty: false });
      assert.deepEqual(await recalled(s, "zephyr turbine"), []);
      await settle();

      // 4. the machine-local place's shard folder, edited by hand
      await editedAndSeen(path.join(root, ".memsync/local/memories", shardOf(local), `${local}.json`), "the quarry ledger key moved to the cobalt safe", "cobalt safe");
      await settle();

      // 5. a whole shard folder removed by hand
      fs.rmSync(path.join(root, "memories", shardOf(shared[3]!)), { recursive: true });
      assert.deepEqual(verdicts(root), { quick: false, planEmpty: false });
      assert.ok(!(await recalled(s, "ledger export 3")).some((t) => t.includes("export 3 ")), "its memory is gone from recall");
      await settle();

      // 6. a folder just written (inside the racy window) is not trusted, even with its mtime the recorded one
      // (a shard folder still there: step 5 removed shared[3]'s, which another id may share, 1 run in 256)
      const fresh = [shared[4]!, shared[0]!, shared[1]!, shared[2]!].find((id) => shardOf(id) !== shardOf(shared[3]!))!;
      const freshDir = path.join(root, "memories", shardOf(fresh));
      const now = new Date();
      fs.utimesSync(freshDir, now, now);
      await s.refresh(true); // records the mtime it sees, checked at once: racy
      assert.equal(verdicts(root).quick, false, "a racily recorded folder is listed again");
    } finally {
      s.close();
    }
  });
});

describe("quick refresh told its check already failed (a hook's settled read)", () => {
  test("skips the repeated check only: the look still finds nothing on a settled store, and a hand edit is seen", { timeout: 60_000 }, async () => {
    const root = shardedSkeleton(T0);
    const s = await Store.open(root);
    try {
      const id = (await saveMemory(s, env(root), { content: "the granite ledger export runs nightly" })).memory.id;
      settleFolders(root);
      await s.refresh(true);
      // told wrongly (another process refreshed meanwhile): the look finds nothing, as the check would have
      const nothing = await s.refresh(false, ["memory"], { quickFailed: true });
      assert.ok(planIsEmpty(nothing) && nothing.temps.length === 0, "nothing applied on a settled store");

      const template = JSON.parse(fs.readFileSync(path.join(root, "memories", shardOf(id), `${id}.json`), "utf8"));
      const added = siblingId(id, id[24] === "a" ? "b" : "a");
      fs.writeFileSync(path.join(root, "memories", shardOf(added), `${added}.json`), `${JSON.stringify({ ...template, id: added, content: "the basalt turbine ledger was added by hand" }, null, 2)}\n`);
      assert.deepEqual((await recall(s, { query: "basalt turbine" }, true)).items.map((i) => i.text), ["the basalt turbine ledger was added by hand"]);
      assert.deepEqual(verdicts(root).planEmpty, true, "taken into the index");
    } finally {
      s.close();
    }
  });
});
