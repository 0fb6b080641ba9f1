import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { RELATION_TYPES } from "../../src/core/model/vocab.ts";
import { BIN, memsync, memsyncAsync, memsyncJson, newStore, tempDir } from "../helpers/env.ts";

// `delete` killed with SIGKILL at a random moment: a relation may never be left pointing at a
// memory that is gone (relations go first; a memory that survived without its relations is
// fine: the user repeats the delete).

/** Run `memsync delete` on a store and SIGKILL it after delayMs; resolves with how it ended. */
function deleteKilledAfter(store: string, id: string, delayMs: number): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ["delete", "--store", store, id], { stdio: "ignore", env: { ...process.env, HOME: tempDir("memsync-home-") } });
    const timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

test("delete killed at random moments never leaves a dangling relation", { timeout: 120_000 }, async () => {
  // one hub with 60 relations to and from three memories: a delete removes 61 files, a window
  // wide enough for a kill to land in (the relation files are made like relate's, by hand: 60
  // relate processes would take most of the test's time)
  const fixture = newStore();
  const hub: string = memsyncJson(["save", "--store", fixture, "the hub everything points at"]).memory.id;
  const spokes: string[] = [];
  for (let i = 0; i < 3; i++) spokes.push(memsyncJson(["save", "--store", fixture, `spoke ${i}`]).memory.id);
  const model = memsyncJson(["relate", "--store", fixture, hub, spokes[0]!]).relation;
  fs.rmSync(path.join(fixture, "relations", `${model.id}.json`));
  const RELS = 60;
  for (let i = 0; i < RELS; i++) {
    const spoke = spokes[i % 3]!;
    const [from, to] = i % 2 ? [hub, spoke] : [spoke, hub];
    const r = { ...model, id: newId(), from_memory_id: from, to_memory_id: to, relation_type: RELATION_TYPES[i % RELATION_TYPES.length] };
    fs.writeFileSync(path.join(fixture, "relations", `${r.id}.json`), `${JSON.stringify(r, null, 2)}\n`);
  }
  assert.equal(memsyncJson(["status", "--store", fixture]).relations.total, RELS);
  const work = tempDir("memsync-kill-delete-");
  const copy = (name: string) => {
    const dir = path.join(work, name);
    fs.cpSync(fixture, dir, { recursive: true });
    return dir;
  };

  // how long an uninterrupted delete takes here: kills land across that whole span
  const t0 = Date.now();
  const whole = await deleteKilledAfter(copy("calibrate"), hub, 60_000);
  const span = Math.max(20, Date.now() - t0);
  assert.equal(whole.code, 0);

  // ten kills across the whole span, then twenty around where the kills turned from "nothing
  // deleted" to "all deleted" (where the removals happen)
  const outcomes = { untouched: 0, partial: 0, done: 0 };
  const seen: { delay: number; outcome: keyof typeof outcomes }[] = [];
  const stores: string[] = [];
  const attempt = async (delay: number) => {
    const store = copy(`try-${stores.length}`);
    stores.push(store);
    await deleteKilledAfter(store, hub, Math.max(0, Math.round(delay)));
    const rels = fs.readdirSync(path.join(store, "relations")).filter((f) => f.endsWith(".json") && !f.startsWith(".")).length;
    const hubThere = fs.existsSync(path.join(store, "memories", `${hub}.json`));
    const outcome = hubThere && rels === RELS ? "untouched" : !hubThere && rels === 0 ? "done" : "partial";
    outcomes[outcome]++;
    seen.push({ delay, outcome });
  };
  for (let i = 0; i < 10; i++) await attempt(Math.random() * span * 1.1);
  const lastUntouched = Math.max(0, ...seen.filter((s) => s.outcome === "untouched").map((s) => s.delay));
  const firstDone = Math.min(span, ...seen.filter((s) => s.outcome !== "untouched").map((s) => s.delay));
  const [lo, hi] = [Math.min(lastUntouched, firstDone) - 10, Math.max(lastUntouched, firstDone) + 10];
  for (let i = 0; i < 20; i++) await attempt(lo + Math.random() * (hi - lo));
  const label = `calibrated span ${span} ms, then kills at ${Math.round(lo)}-${Math.round(hi)} ms; outcomes ${JSON.stringify(outcomes)}`;

  // every store: no relation file names a memory that is gone (read from the files), and status,
  // run on every store the kill left half-deleted and on a few others, agrees
  const memoryIds = (store: string) => new Set(fs.readdirSync(path.join(store, "memories")).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)));
  const checked: string[] = [];
  for (const store of stores) {
    const ids = memoryIds(store);
    for (const f of fs.readdirSync(path.join(store, "relations")).filter((n) => n.endsWith(".json") && !n.startsWith("."))) {
      const r = JSON.parse(fs.readFileSync(path.join(store, "relations", f), "utf8"));
      assert.ok(ids.has(r.from_memory_id) && ids.has(r.to_memory_id), `${store}: relation ${f} dangles (${label})`);
    }
    const partial = ids.has(hub) && fs.readdirSync(path.join(store, "relations")).filter((n) => n.endsWith(".json")).length < RELS;
    if (partial || checked.length < 3) checked.push(store);
  }
  for (const store of checked) {
    const status = JSON.parse((await memsyncAsync(["status", "--store", store, "--json"])).stdout);
    assert.deepEqual(status.relations.dangling, [], `${store}: ${label}`);
    assert.equal(status.health, "healthy", `${store}: ${status.reasons} (${label})`);
    if (memoryIds(store).has(hub)) {
      const again = await memsyncAsync(["delete", "--store", store, hub]);
      assert.equal(again.code, 0, again.stderr);
      const after = JSON.parse((await memsyncAsync(["status", "--store", store, "--json"])).stdout);
      assert.equal(after.relations.total, 0, label);
      assert.equal(after.memories.total, 3, label);
    }
  }
  console.log(`kill-delete: ${label}; status checked on ${checked.length} stores`);
});
