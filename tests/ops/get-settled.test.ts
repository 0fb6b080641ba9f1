import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { bootId } from "../../src/store/boot.ts";
import { getByIds } from "../../src/ops/get.ts";
import { getSettled } from "../../src/ops/get-settled.ts";
import { opsEnvOf } from "../../src/runtime/ops-env.ts";
import { filesUnder, memsync, tempDir } from "../helpers/env.ts";
import { relatedPair } from "../helpers/related-pair.ts";

// A plain get of full ids reads a settled index without the Store (ops/get-settled.ts). Where it
// answers, it must answer exactly as the Store's path; wherever that path would change the index,
// recover, refuse or read a file, it must leave the answer to it (null).

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function envOf(store: string) {
  const dir = tempDir("memsync-settled-");
  return opsEnvOf({ store, vars: {}, cwd: dir, home: dir, hostName: "host", user: "tester" });
}

/** A store whose folders and files the index trusts: its last changes are past the racy window and a get's refresh has recorded them. */
async function settledPair() {
  const pair = relatedPair();
  const env = envOf(pair.store);
  await sleep(150);
  await getByIds(env, [pair.a]);
  return { ...pair, env };
}

describe("get without the Store", () => {
  test("answers every full id as the Store's path does (found, missing, repeated, in capitals)", async () => {
    const { a, b, missing, env } = await settledPair();
    for (const ids of [[a], [b, a], [missing], [a, missing, a], [a.toUpperCase()], [`  ${b}  `]]) {
      const settled = getSettled(env, ids);
      assert.ok(settled, `${JSON.stringify(ids)}: a settled store answers`);
      assert.deepEqual(settled, await getByIds(env, ids));
    }
    const found = getSettled(env, [a])!.found[0]!;
    assert.equal(found.outgoing.length + found.incoming.length, 1, "the relation is there (the check can fail)");
  });

  test("a memory just written (racily clean) is answered when its bytes are the indexed ones; one edited by hand is not", async () => {
    const { a, store, env } = await settledPair();
    const c = JSON.parse(memsync(["save", "Keep the queue's retries idempotent", "--json"], { env: { MEMSYNC_HOME: store } }).stdout).memory.id as string;
    const settled = getSettled(env, [c]);
    assert.ok(settled, "a file just written is read and compared, as the Store does");
    assert.deepEqual(settled, await getByIds(env, [c]));
    const file = filesUnder(path.join(store, "memories")).map((f) => (path.isAbsolute(f) ? f : path.join(store, "memories", f))).find((f) => f.includes(a))!;
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("cursor pagination", "keyset pagination, always"));
    assert.equal(getSettled(env, [a]), null);
    assert.equal((await getByIds(env, [a])).found[0]!.memory.content, "Use keyset pagination, always for list endpoints");
  });

  test("leaves abbreviations, bad ids and other file systems to the Store's path", async () => {
    const { a, env } = await settledPair();
    assert.equal(getSettled(env, [a.slice(-12)]), null);
    assert.equal(getSettled(env, [a, "not-an-id"]), null);
    assert.equal(getSettled({ ...env, open: { nowMs: Date.now } }, [a]), null);
    assert.ok(getSettled(env, [a]), "and answers the plain one");
  });

  // a relation file put into an existing shard folder moves that folder's mtime, not its top
  // folder's: one stamp per top folder would miss it, so every recorded shard folder is looked at
  test("a relation file added by hand to a shard folder is seen (the top folder's mtime does not move)", async () => {
    const { a, b, store, env } = await settledPair();
    const rels = path.join(store, "relations");
    const [flat] = fs.readdirSync(rels).filter((n) => n.endsWith(".json"));
    assert.ok(flat, "relate wrote a flat relation file");
    const rel = JSON.parse(fs.readFileSync(path.join(rels, flat), "utf8"));
    const shard = path.join(rels, rel.id.slice(-2));
    fs.mkdirSync(shard);
    fs.renameSync(path.join(rels, flat), path.join(shard, flat));
    await sleep(150);
    await getByIds(env, [a]); // records the moved file and the new shard folder
    await getByIds(env, [a]);
    const here = process.cwd();
    assert.ok(getSettled(env, [a]), "settled again");
    assert.equal(process.cwd(), here, "the shard folders are looked at from inside their top folder, and the working folder comes back");
    const topBefore = fs.statSync(rels).mtimeMs;
    const id2 = `${rel.id.slice(0, -4)}${rel.id.slice(-4, -2) === "ff" ? "fe" : "ff"}${rel.id.slice(-2)}`;
    fs.writeFileSync(path.join(shard, `${id2}.json`), `${JSON.stringify({ ...rel, id: id2, from_id: b, to_id: a }, null, 2)}\n`);
    assert.equal(fs.statSync(rels).mtimeMs, topBefore, "the top folder's mtime stayed");
    assert.equal(getSettled(env, [a]), null);
    assert.equal(process.cwd(), here, "and after a changed one");
    const got = (await getByIds(env, [a])).found[0]!;
    assert.deepEqual([...got.outgoing, ...got.incoming].map((r) => r.id).sort(), [rel.id, id2].sort());
  });

  test("a crashed write to redo, a bulk write to recover, a linked fixed path or no index: the Store's path", async () => {
    const { a, store, env } = await settledPair();
    const redo = path.join(store, ".memsync/redo.json");
    fs.writeFileSync(redo, JSON.stringify({ boot: "another boot" }));
    assert.equal(getSettled(env, [a]), null);
    fs.writeFileSync(redo, JSON.stringify({ boot: bootId() }));
    assert.ok(getSettled(env, [a]), "a marker of this boot is no crash");
    fs.rmSync(redo);
    const bulk = path.join(store, ".memsync/bulk-write.json");
    fs.writeFileSync(bulk, "{}");
    assert.equal(getSettled(env, [a]), null);
    fs.rmSync(bulk);
    const journal = path.join(store, ".memsync/journal.jsonl");
    const moved = path.join(tempDir(), "journal.jsonl");
    if (fs.existsSync(journal)) fs.renameSync(journal, moved);
    else fs.writeFileSync(moved, "");
    fs.symlinkSync(moved, journal);
    assert.equal(getSettled(env, [a]), null);
    fs.rmSync(journal);
    fs.renameSync(moved, journal);
    assert.ok(getSettled(env, [a]));
    fs.renameSync(path.join(store, ".memsync/index.db"), path.join(store, ".memsync/index.old"));
    assert.equal(getSettled(env, [a]), null);
    assert.ok(!fs.existsSync(path.join(store, ".memsync/index.db")), "no index was made");
  });

  test("a store whose metadata this version refuses: the Store's path, which reports it", async () => {
    const { a, store, env } = await settledPair();
    const meta = path.join(store, ".meta.json");
    fs.writeFileSync(meta, JSON.stringify({ ...JSON.parse(fs.readFileSync(meta, "utf8")), storage_version: 99 }));
    assert.equal(getSettled(env, [a]), null);
    await assert.rejects(getByIds(env, [a]), /storage_version/);
  });
});
