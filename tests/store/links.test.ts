import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, newStore, snapshot, tempDir } from "../helpers/env.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// No write follows a symbolic link out of the store: a linked shard folder, record folder, record
// file, journal, .memsync or .meta.json makes every write refuse (exit 6, one line) with nothing
// changed where the link points, and status reports the link.

const UNAVAILABLE = 6;

async function refused(store: string, args: string[], what: RegExp) {
  const r = await memsync(["--store", store, ...args]);
  assert.equal(r.code, UNAVAILABLE, `memsync ${args.join(" ")} -> ${r.code}: ${r.stdout} ${r.stderr}`);
  const lines = r.stderr.split("\n").filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /is a symbolic link: memsync reads and writes only inside its store/);
  assert.match(lines[0]!, what);
}

async function statusNames(store: string, rel: string) {
  const status = await memsyncJson(["--store", store, "status"]);
  assert.equal(status.health, "degraded", JSON.stringify(status.reasons));
  assert.ok(status.links.includes(rel), `status links ${JSON.stringify(status.links)} name ${rel}`);
  assert.ok(status.reasons.some((r: string) => r.includes("symbolic link") && r.includes(rel)), JSON.stringify(status.reasons));
}

/** A store with two related memories, and a folder outside it for links to point at. */
async function fixture(sharded = false) {
  const store = newStore();
  if (sharded) {
    const metaPath = path.join(store, ".meta.json");
    const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
    meta.settings.layout = "sharded";
    fs.writeFileSync(metaPath, JSON.stringify(meta, null, 2));
  }
  const a: string = (await memsyncJson(["--store", store, "save", "first memory"])).memory.id;
  const b: string = (await memsyncJson(["--store", store, "save", "second memory"])).memory.id;
  await memsyncJson(["--store", store, "relate", a, b]);
  const outside = tempDir("memsync-outside-");
  fs.writeFileSync(path.join(outside, "keep.txt"), "outside the store");
  return { store, a, b, outside, before: snapshot(outside) };
}

describe("symbolic links in a store", () => {
  test("a linked shard folder: save, touch and update refuse, status names it", async () => {
    const { store, a, outside, before } = await fixture(true);
    // every shard a new memory could go to is a link out of the store: the fixture's own shard
    // folders too (parked outside meanwhile), or a new id ending like a fixture memory's (2 in 256)
    // went to a real folder and the save rightly succeeded (a fresh-clone CI run did)
    const parked: [away: string, at: string][] = [];
    for (let i = 0; i < 256; i++) {
      const shard = i.toString(16).padStart(2, "0");
      const at = path.join(store, "memories", shard);
      if (fs.existsSync(at)) {
        const away = path.join(tempDir("memsync-parked-"), shard);
        fs.renameSync(at, away);
        parked.push([away, at]);
      }
      fs.symlinkSync(outside, at);
    }
    await refused(store, ["save", "a new memory"], /memories\/[0-9a-f]{2} /);
    for (const e of fs.readdirSync(path.join(store, "memories"))) {
      if (fs.lstatSync(path.join(store, "memories", e)).isSymbolicLink()) fs.unlinkSync(path.join(store, "memories", e));
    }
    for (const [away, at] of parked) fs.renameSync(away, at);
    // a memory whose own shard folder is moved out and linked back
    const shard = path.join(store, "memories", a.slice(-2));
    const moved = path.join(tempDir("memsync-moved-"), "shard");
    fs.renameSync(shard, moved);
    fs.symlinkSync(moved, shard);
    const movedBefore = snapshot(moved);
    await refused(store, ["touch", a], new RegExp(`memories/${a.slice(-2)}`));
    await refused(store, ["update", a, "--content", "changed"], new RegExp(`memories/${a.slice(-2)}`));
    await refused(store, ["delete", a], new RegExp(`memories/${a.slice(-2)}`));
    assert.deepEqual(snapshot(moved), movedBefore, "nothing changed where the link points");
    assert.deepEqual(snapshot(outside), before, "nothing written outside the store");
    await statusNames(store, `memories/${a.slice(-2)}`);
  });

  test("a linked record file: touch, update and delete refuse", async () => {
    const { store, a, outside, before } = await fixture();
    const file = path.join(store, "memories", `${a}.json`);
    fs.renameSync(file, path.join(outside, `${a}.json`));
    fs.symlinkSync(path.join(outside, `${a}.json`), file);
    const linked = snapshot(outside);
    await refused(store, ["touch", a], new RegExp(`memories/${a}\\.json`));
    await refused(store, ["update", a, "--content", "changed"], new RegExp(`memories/${a}\\.json`));
    await refused(store, ["delete", a], new RegExp(`memories/${a}\\.json`));
    assert.deepEqual(snapshot(outside), linked);
    assert.notDeepEqual(linked, before);
    await statusNames(store, `memories/${a}.json`);
  });

  for (const rel of ["memories", "relations", ".memsync/journal.jsonl", ".memsync", ".meta.json"]) {
    test(`a linked ${rel}: every write refuses, status names it`, async () => {
      const { store, a, b, outside } = await fixture();
      const at = path.join(store, rel);
      const target = path.join(outside, "target");
      if (fs.existsSync(at)) fs.renameSync(at, target);
      else fs.writeFileSync(target, "");
      fs.symlinkSync(target, at);
      const linked = snapshot(outside);
      const name = new RegExp(`${rel.replace(/\./g, "\\.")} is a symbolic link`);
      await refused(store, ["save", "another memory"], name);
      await refused(store, ["touch", a], name);
      await refused(store, ["update", a, "--content", "changed"], name);
      await refused(store, ["relate", b, a, "--type", "supports"], name);
      await refused(store, ["delete", a], name);
      assert.deepEqual(snapshot(outside), linked, "nothing changed outside the store");
      await statusNames(store, rel);
    });
  }
});
