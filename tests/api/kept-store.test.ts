import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { newId } from "../../src/core/new-id.ts";
import { filesUnder, memsync, memsyncJson, newStore, readMemoryFile, tempDir } from "../helpers/env.ts";
import { hub, machine } from "../helpers/hub.ts";
import { post, startServer, withServer } from "../helpers/server.ts";

// `memsync serve` keeps one store open across requests (ops/kept-store.ts). What every request
// sees must still be what a fresh open would see: writes by the CLI, by the sync subprocess, by
// hand; a settings change; an index rebuilt, removed or damaged under the server; a fixed path
// made a symbolic link.

const getOne = async (url: string, id: string) => (await post(`${url}/v1/get`, { ids: [id] })).body;
const found = async (url: string, id: string) => (await getOne(url, id)).found?.[0]?.memory;
const searchIds = async (url: string, q: string): Promise<string[]> => ((await post(`${url}/v1/search`, { query: q })).body.hits ?? []).map((h: { memory: { id: string } }) => h.memory.id);

describe("memsync serve: one store kept open, every outside write seen", () => {
  test("the CLI's writes are seen by the next request, and the server's by the next CLI command", async () => {
    const store = newStore();
    await withServer(store, async (s) => {
      // the server has the store open (a read, then a write of its own)
      const first = await post(`${s.url}/v1/save`, { memory: { content: "written by the server first" } });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const sid: string = first.body.memory.id;
      assert.equal(memsyncJson(["--store", store, "get", sid]).found[0].memory.content, "written by the server first");

      const cid: string = memsyncJson(["--store", store, "save", "zanzibar written by the CLI"]).memory.id;
      assert.equal((await found(s.url, cid))?.content, "zanzibar written by the CLI");
      assert.deepEqual(await searchIds(s.url, "zanzibar"), [cid]);
      const recalled = (await post(`${s.url}/v1/recall`, { query: "zanzibar" })).body;
      assert.equal(recalled.items[0]?.id, cid);

      assert.equal(memsync(["--store", store, "update", cid, "--content", "zanzibar rewritten by the CLI"]).code, 0);
      assert.equal((await found(s.url, cid))?.content, "zanzibar rewritten by the CLI");
      const touched = await post(`${s.url}/v1/touch`, { ids: [cid] });
      assert.equal(touched.status, 200, JSON.stringify(touched.body));
      assert.equal(readMemoryFile(store, cid).use_count, 1);
      assert.equal(memsync(["--store", store, "delete", cid]).code, 0);
      assert.equal((await found(s.url, cid)) ?? null, null);
      assert.deepEqual(await searchIds(s.url, "zanzibar"), []);

      // an edit by hand, in place (same inode), is read from the file
      const file = filesUnder(path.join(store, "memories"), ".json").find((f) => f.endsWith(`${sid}.json`))!;
      const rec = JSON.parse(fs.readFileSync(file, "utf8"));
      fs.writeFileSync(file, JSON.stringify({ ...rec, content: "edited by hand in place" }));
      assert.equal((await found(s.url, sid))?.content, "edited by hand in place");

      // a record file added by hand (as a copy or git would put it), then removed by hand: the
      // server's store watches its folders and skips looking while none changed (store/refresh-watch.ts)
      const hid = newId();
      const added = path.join(store, "memories", `${hid}.json`);
      fs.writeFileSync(added, `${JSON.stringify({ ...rec, id: hid, content: "quetzal added by hand" }, null, 2)}\n`);
      assert.deepEqual(await searchIds(s.url, "quetzal"), [hid]);
      fs.unlinkSync(added);
      assert.deepEqual(await searchIds(s.url, "quetzal"), []);

      // the server's own write leaves its watch clean (no scan for the next read), yet a hand
      // edit of the same file right after it, by rename as editors do, is seen
      assert.equal((await post(`${s.url}/v1/touch`, { ids: [sid] })).status, 200);
      const now = JSON.parse(fs.readFileSync(file, "utf8"));
      fs.writeFileSync(`${file}.edit`, JSON.stringify({ ...now, content: "ocelot edited by hand after a touch" }));
      fs.renameSync(`${file}.edit`, file);
      assert.equal((await found(s.url, sid))?.content, "ocelot edited by hand after a touch");
      assert.deepEqual(await searchIds(s.url, "ocelot"), [sid]);
    });
  });

  test("a settings change by the CLI is followed by the server's next write", async () => {
    const store = newStore();
    await withServer(store, async (s) => {
      const flat: string = (await post(`${s.url}/v1/save`, { memory: { content: "saved flat" } })).body.memory.id;
      assert.ok(fs.existsSync(path.join(store, "memories", `${flat}.json`)));
      assert.equal(memsync(["--store", store, "settings", "layout", "sharded"]).code, 0);
      const sharded: string = (await post(`${s.url}/v1/save`, { memory: { content: "saved in a shard" } })).body.memory.id;
      assert.ok(!fs.existsSync(path.join(store, "memories", `${sharded}.json`)), "not flat: the server read the new setting");
      assert.ok(filesUnder(path.join(store, "memories"), ".json").some((f) => f.endsWith(`${sharded}.json`) && path.dirname(f) !== path.join(store, "memories")));
    });
  });

  test("a pull by the server's sync subprocess is seen by the next request", async () => {
    const { root, bare } = hub();
    const a = machine(root, "a", bare);
    const b = machine(root, "b", bare, { MEMSYNC_MACHINE: "b" });
    await withServer(a, async (s) => {
      const mine: string = (await post(`${s.url}/v1/save`, { memory: { content: "quokka from machine a" } })).body.memory.id;
      const first = await post(`${s.url}/v1/sync`, {});
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(memsync(["--store", b, "sync"], { env: { MEMSYNC_MACHINE: "b" } }).code, 0);
      const theirs: string = memsyncJson(["--store", b, "save", "quokka from machine b"], { env: { MEMSYNC_MACHINE: "b" } }).memory.id;
      assert.equal(memsync(["--store", b, "sync"], { env: { MEMSYNC_MACHINE: "b" } }).code, 0);
      assert.equal((await found(s.url, theirs)) ?? null, null, "not pulled yet");
      const pulled = await post(`${s.url}/v1/sync`, {});
      assert.equal(pulled.status, 200, JSON.stringify(pulled.body));
      assert.equal((await found(s.url, theirs))?.content, "quokka from machine b");
      assert.deepEqual((await searchIds(s.url, "quokka")).sort(), [mine, theirs].sort());
    });
  });

  test("an index rebuilt by the CLI, removed, or damaged in place while the server runs: the next request is still right", async () => {
    const store = newStore();
    const index = path.join(store, ".memsync", "index.db");
    await withServer(store, async (s) => {
      const ids: string[] = [];
      const save = async (content: string) => {
        const r = await post(`${s.url}/v1/save`, { memory: { content } });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        ids.push(r.body.memory.id);
      };
      const allThere = async (why: string) => {
        for (const id of ids) assert.ok(await found(s.url, id), `${why}: ${id} found`);
        assert.equal((await searchIds(s.url, "wombat")).length, ids.length, `${why}: every one found by search`);
      };
      await save("wombat one");
      const ino = fs.statSync(index).ino;
      assert.equal(memsync(["--store", store, "reindex"]).code, 0);
      assert.notEqual(fs.statSync(index).ino, ino, "reindex made a new index file");
      await save("wombat two, after a reindex");
      await allThere("after reindex");
      assert.equal(memsyncJson(["--store", store, "search", "wombat"]).hits.length, 2, "the CLI sees the server's write in the new index");

      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${index}${suffix}`, { force: true });
      await allThere("after the index was removed");
      await save("wombat three, after removal");
      await allThere("after a save on the new index");

      // garbage over the index file, in place (same inode)
      const fd = fs.openSync(index, "r+");
      fs.writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, 0);
      fs.closeSync(fd);
      await allThere("after the index was damaged in place");
      await save("wombat four, after damage");
      await allThere("after a save on the recovered index");
      assert.equal(memsyncJson(["--store", store, "search", "wombat"]).hits.length, 4);
      assert.match(memsync(["--store", store, "status"]).stdout, /healthy/);
    });
  });

  test("a fixed path made a symbolic link while the server runs is refused, as a fresh open refuses it", async () => {
    const store = newStore();
    const elsewhere = tempDir("memsync-elsewhere-");
    await withServer(store, async (s) => {
      assert.equal((await post(`${s.url}/v1/save`, { memory: { content: "before the link" } })).status, 200);
      const journal = path.join(store, ".memsync", "journal.jsonl");
      fs.renameSync(journal, path.join(elsewhere, "journal.jsonl"));
      fs.symlinkSync(path.join(elsewhere, "journal.jsonl"), journal);
      const before = fs.readFileSync(path.join(elsewhere, "journal.jsonl"), "utf8");
      const r = await post(`${s.url}/v1/save`, { memory: { content: "through the link" } });
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.match(r.body.error.message, /symbolic link/);
      assert.equal(fs.readFileSync(path.join(elsewhere, "journal.jsonl"), "utf8"), before, "nothing appended through the link");
      // put back: the server answers again
      fs.rmSync(journal);
      fs.renameSync(path.join(elsewhere, "journal.jsonl"), journal);
      assert.equal((await post(`${s.url}/v1/save`, { memory: { content: "after the link went" } })).status, 200);
    });
  });

  test("a server started before its store exists answers once the store is made", async () => {
    const dir = path.join(tempDir(), "later");
    const s = await startServer(dir);
    try {
      assert.equal((await post(`${s.url}/v1/list`, {})).status, 503);
      assert.equal(memsync(["init", dir]).code, 0);
      const id: string = memsyncJson(["--store", dir, "save", "made after the server started"]).memory.id;
      assert.equal((await found(s.url, id))?.content, "made after the server started");
    } finally {
      assert.equal(await s.stop(), 0, s.stderr());
    }
  });
});
