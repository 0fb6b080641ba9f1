import assert from "node:assert/strict";
import { Database } from "bun:sqlite";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { git, memsyncAsync, tempDir } from "../helpers/env.ts";

// A pull takes the files its checkout wrote into the index itself (absorb), looking only at the
// folders it wrote into: checked here in the pulling store's index right after the pull, before
// any other command could refresh it. Shard folders the index did not know yet are recorded with
// their files (through their top folder).

async function ok(args: string[]): Promise<string> {
  const r = await memsyncAsync(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

describe("pull: absorb of the checkout's folders", () => {
  test("files written into shard folders new to the index are indexed by the pull itself", async () => {
    const root = tempDir();
    assert.equal(git(root, "init", "-q", "--bare", "-b", "main", "hub.git").status, 0);
    const hub = path.join(root, "hub.git");
    const a = path.join(root, "a");
    const b = path.join(root, "b");
    await ok(["init", a]);
    // every new record sharded (memories/<xx>/<id>.json): the threshold is in the shared settings
    const metaPath = path.join(a, ".meta.json");
    const meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
    meta.settings.shard_threshold = 1;
    fs.writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    assert.equal(git(a, "commit", "-qam", "shard every record").status, 0);
    await ok(["--store", a, "remote", "set", hub]);
    await ok(["--store", a, "save", "the first record"]);
    await ok(["--store", a, "sync"]);
    assert.equal(git(root, "clone", "-q", hub, b).status, 0);
    await ok(["--store", b, "status"]); // b's index, over what the clone holds
    await ok(["--store", b, "remote", "set", hub]);

    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(JSON.parse(await ok(["--store", a, "save", `pulled record ${i}`, "--json"])).memory.id);
    await ok(["--store", a, "sync"]);
    const written = ids.map((id) => `memories/${id.slice(-2)}/${id}.json`);
    for (const p of written) assert.ok(fs.existsSync(path.join(a, p)), `${p} is sharded in a`);
    const index = () => new Database(path.join(b, ".memsync/index.db"), { readonly: true });
    const before = index();
    const knownBefore = new Set((before.query("SELECT path FROM dirs").all() as { path: string }[]).map((r) => r.path));
    before.close();
    const newShards = [...new Set(written.map((p) => path.dirname(p)))].filter((d) => !knownBefore.has(d));
    assert.ok(newShards.length > 0, "the pull writes into at least one shard folder b's index does not know");

    const pulled = JSON.parse(await ok(["--store", b, "pull", "--json"])).pull;
    assert.equal(pulled.memories_added, 4);
    const after = index();
    const files = new Map((after.query("SELECT path, ino FROM files").all() as { path: string; ino: number }[]).map((r) => [r.path, r.ino]));
    const dirs = new Set((after.query("SELECT path FROM dirs").all() as { path: string }[]).map((r) => r.path));
    const memories = new Set((after.query("SELECT id FROM memories").all() as { id: string }[]).map((r) => r.id));
    after.close();
    for (const p of written) assert.equal(files.get(p), fs.statSync(path.join(b, p)).ino, `${p} indexed by the pull, as it is on disk`);
    for (const id of ids) assert.ok(memories.has(id), `memory ${id} in the index after the pull`);
    for (const d of newShards) assert.ok(dirs.has(d), `shard folder ${d} recorded by the pull`);

  });
});
