import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import git_ from "isomorphic-git";
import { writeLooseObject } from "../../src/sync/loose-objects.ts";
import { readObjectFrom } from "../../src/sync/objects.ts";
import { writePack } from "../../src/sync/pack-write.ts";
import { repack, repackDue } from "../../src/sync/repack.ts";
import { objectId } from "../../src/sync/sha1.ts";
import { binaryThenInProcess, git, memsyncAsync, snapshot, tempDir } from "../helpers/env.ts";
import { startGitHttpServer } from "../helpers/git-http-server.ts";
import { makeRng } from "../helpers/rng.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson } = binaryThenInProcess();

// Repacking (src/sync/repack.ts): loose objects, native git's packs (with deltas), memsync's own
// packs and duplicates between them become one pack that native git and isomorphic-git read,
// with every object kept; a repack killed at any step loses nothing; sync and commit repack on
// their own past git's gc.auto / gc.autoPackLimit.

const enc = new TextEncoder();

/** Every object of a repository with its content, as native git reads them (sorted by id). */
function allObjects(repo: string): string {
  const r = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: repo, encoding: "latin1", maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function countObjects(repo: string): { loose: number; packs: number } {
  const out = git(repo, "count-objects", "-v").stdout;
  return { loose: Number(out.match(/^count: (\d+)$/m)![1]), packs: Number(out.match(/^packs: (\d+)$/m)![1]) };
}

function gitOk(cwd: string, ...args: string[]): string {
  const r = git(cwd, ...args);
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/**
 * A history in `repo` (a git working tree) whose objects sit everywhere a repack meets them: a
 * native pack with deltas, a second native pack, loose objects, a memsync pack of unreachable
 * blobs, and a loose copy of a packed object.
 */
async function scatteredHistory(repo: string): Promise<void> {
  const dir = path.join(repo, "notes");
  fs.mkdirSync(dir, { recursive: true });
  const note = (i: number, round: number) => `${JSON.stringify({ id: i, content: `note ${i} about cursor pagination and retries with jitter, round ${round}`, tags: ["api", "db"], n: round }, null, 2)}\n`;
  const commitRound = (round: number, files: number) => {
    for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dir, `n${i}.json`), note(i, round));
    gitOk(repo, "add", "-A");
    gitOk(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", `round ${round}`);
  };
  for (let r = 0; r < 3; r++) commitRound(r, 16);
  gitOk(repo, "repack", "-a", "-d", "-f", "-q", "--depth=10", "--window=10"); // deltas (offset deltas)
  commitRound(3, 16);
  gitOk(repo, "repack", "-d", "-q"); // a second pack: the loose objects only
  for (let r = 4; r < 6; r++) commitRound(r, 8); // loose
  const gitdir = path.join(repo, ".git");
  const extra = Array.from({ length: 5 }, (_, i) => enc.encode(`unreachable ${i}\n`));
  writePack(gitdir, extra.map((content) => ({ oid: objectId("blob", content), type: "blob" as const, content })));
  // a loose copy of an object that is also packed
  await writeLooseObject(gitdir, "blob", enc.encode(note(3, 0)));
}

describe("repack", () => {
  test("loose objects, native delta packs, memsync packs and duplicates become one pack native git and isomorphic-git read, every object kept", { timeout: 120_000 }, async () => {
    const repo = path.join(tempDir(), "r");
    gitOk(tempDir(), "init", "-q", "-b", "main", repo);
    await scatteredHistory(repo);
    const gitdir = path.join(repo, ".git");
    const before = allObjects(repo);
    const counted = countObjects(repo);
    assert.ok(counted.loose > 20 && counted.packs === 3, JSON.stringify(counted));

    const out = await repack(gitdir, { all: true });
    assert.deepEqual(countObjects(repo), { loose: 0, packs: 1 });
    assert.equal(out.packs_replaced, 3);
    assert.equal(out.loose_removed, counted.loose);
    assert.equal(allObjects(repo), before, "every object, with the same content");
    const verify = spawnSync("git", ["verify-pack", "-v", path.join(gitdir, "objects/pack", `${out.pack}.idx`)], { encoding: "utf8" });
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /chain length = \d+: \d+ objects?/, "native git's deltas were kept");
    gitOk(repo, "fsck", "--strict");
    // isomorphic-git reads every object, deltas included
    const oids = before.split("\n").filter((l) => /^[0-9a-f]{40} (blob|tree|commit) \d+$/.test(l));
    assert.ok(oids.length > 60);
    for (const line of oids) {
      const [oid, type, size] = line.split(" ");
      const r = await git_.readObject({ fs, gitdir, oid: oid!, format: "content" });
      assert.equal(r.type, type);
      assert.equal((r.object as Uint8Array).length, Number(size));
    }
    const clone = path.join(tempDir(), "c");
    gitOk(tempDir(), "clone", "-q", repo, clone);
    assert.deepEqual(snapshot(path.join(clone, "notes")), snapshot(path.join(repo, "notes")));

    // later: a few loose objects beside the one large pack are packed on their own (geometric)
    fs.writeFileSync(path.join(repo, "notes", "late.json"), "{}\n");
    gitOk(repo, "add", "-A");
    gitOk(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "late");
    const next = await repack(gitdir);
    assert.equal(next.packs_replaced, 0, "the large pack stays");
    assert.deepEqual(countObjects(repo), { loose: 0, packs: 2 });
    gitOk(repo, "fsck", "--strict");
    // nothing to do: nothing done
    assert.equal((await repack(gitdir)).pack, null);
  });

  test("a repack killed at any step loses nothing: fsck clean, every object readable, and the next repack finishes", { timeout: 240_000 }, async () => {
    const seed = Number(process.env.REPACK_SEED ?? Date.now() % 100_000);
    const rng = makeRng(seed);
    const template = path.join(tempDir(), "store");
    assert.equal((await memsync(["init", template])).code, 0);
    await scatteredHistory(template);
    const before = allObjects(template);
    const total = before.split("\n").filter((l) => /^[0-9a-f]{40} /.test(l)).length;
    const deletions = countObjects(template).loose + 3;
    const points = ["pack-entry:1", `pack-entry:${1 + Math.floor(rng() * total)}`, "pack-written", "repack-written", "repack-delete:1", `repack-delete:${1 + Math.floor(rng() * deletions)}`, `repack-delete:${deletions}`];
    for (const point of points) {
      const store = path.join(tempDir(), "s");
      fs.cpSync(template, store, { recursive: true });
      const killed = await memsync(["--store", store, "repack", "--all"], { env: { MEMSYNC_FAULT: point } });
      assert.notEqual(killed.code, 0, `seed ${seed}, ${point}: the repack was killed`);
      assert.equal(allObjects(store), before, `seed ${seed}, killed at ${point}: every object readable`);
      const fsck = git(store, "fsck", "--strict");
      assert.equal(fsck.status, 0, `seed ${seed}, ${point}: ${fsck.stderr}`);
      const again = await memsyncJson(["--store", store, "repack", "--all"]);
      // killed after its last removal, the kill left one pack and nothing loose: nothing to do
      assert.ok(again.pack === null || again.objects >= total, `seed ${seed}, ${point}: ${JSON.stringify(again)}`);
      assert.deepEqual(countObjects(store), { loose: 0, packs: 1 }, `seed ${seed}, ${point}`);
      assert.equal(allObjects(store), before, `seed ${seed}, ${point}: after the second repack`);
    }
  });

  test("commit and sync repack past gc.auto and gc.autoPackLimit; the result syncs over smart HTTP and native git clones it", { timeout: 240_000 }, async () => {
    const root = tempDir();
    const httpRoot = tempDir();
    gitOk(httpRoot, "init", "-q", "--bare", "-b", "main", "hub.git");
    const server = await startGitHttpServer(httpRoot);
    try {
      const a = path.join(root, "a");
      assert.equal((await memsync(["init", a])).code, 0);
      gitOk(a, "config", "gc.auto", "15");
      assert.equal((await memsync(["--store", a, "remote", "set", server.url("hub.git"), "--insecure-http"])).code, 0);
      for (let i = 0; i < 6; i++) await memsyncJson(["--store", a, "save", `loose object number ${i} for the repack`]);
      assert.equal(await repackDue(path.join(a, ".git")), null, "saves alone write no objects");
      assert.ok((await memsyncJson(["--store", a, "commit"])).commits.length >= 4);
      assert.deepEqual(countObjects(a), { loose: 0, packs: 1 }, "the commit passed gc.auto 15 and repacked");
      gitOk(a, "fsck", "--strict");
      const first = await memsyncAsync(["--store", a, "sync"]);
      assert.equal(first.code, 0, first.stderr);

      const b = path.join(root, "b");
      const c = await memsyncAsync(["clone", server.url("hub.git"), b, "--insecure-http"]);
      assert.equal(c.code, 0, c.stderr);
      gitOk(b, "config", "gc.autoPackLimit", "2");
      // each of b's syncs fetches a pack of a's new commit
      for (let i = 0; i < 3; i++) {
        await memsyncJson(["--store", a, "save", `fetched in pack ${i}`]);
        const s = await memsyncAsync(["--store", a, "sync"]);
        assert.equal(s.code, 0, s.stderr);
        const t = await memsyncAsync(["--store", b, "sync"]);
        assert.equal(t.code, 0, t.stderr);
        assert.ok(countObjects(b).packs <= 2, `after sync ${i}: ${JSON.stringify(countObjects(b))}`);
      }
      gitOk(b, "fsck", "--strict");
      const records = (d: string) => [...snapshot(d, (rel) => rel === ".git" || rel === ".memsync")].map(([k, v]) => `${k} ${v}`).sort();
      assert.deepEqual(records(b), records(a));
      // b's repacked history goes back out: a save of b's reaches a, and native git clones b and the hub
      await memsyncJson(["--store", b, "save", "written after the repack"]);
      const up = await memsyncAsync(["--store", b, "sync"]);
      assert.equal(up.code, 0, up.stderr);
      const down = await memsyncAsync(["--store", a, "sync"]);
      assert.equal(down.code, 0, down.stderr);
      assert.deepEqual(records(a), records(b));
      gitOk(path.join(httpRoot, "hub.git"), "fsck", "--strict");
      const nativeClone = path.join(root, "native");
      gitOk(root, "clone", "-q", b, nativeClone);
      assert.deepEqual(records(nativeClone), records(b));
    } finally {
      await server.close();
    }
  });

  test("a read that misses a loose object another process packed since lists the packs again and finds it", async () => {
    const repo = tempDir();
    gitOk(repo, "init", "-q", "--bare");
    const packOf = (oid: string) => {
      const r = spawnSync("git", ["pack-objects", "-q", "objects/pack/pack"], { cwd: repo, input: `${oid}\n`, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      gitOk(repo, "prune-packed");
    };
    const blob = await writeLooseObject(repo, "blob", enc.encode("in a first pack\n"));
    packOf(blob);
    const early = await writeLooseObject(repo, "blob", enc.encode("still loose when the packs were read\n"));
    assert.ok(await readObjectFrom(repo, blob), "read from the first pack");
    // another process (native git here) packs the loose object and removes its file
    packOf(early);
    assert.equal(fs.existsSync(path.join(repo, "objects", early.slice(0, 2), early.slice(2))), false);
    const obj = await readObjectFrom(repo, early);
    assert.equal(new TextDecoder().decode(obj?.content), "still loose when the packs were read\n");
    assert.equal(await readObjectFrom(repo, "0".repeat(40)), null, "a missing object is still missing");
  });

  // A path remote (a bare repository on a shared disk) gets every machine's pushed objects as loose
  // files and nothing else ever packs it (a chaos hub: 42,019 loose objects, 374 MB): a push that
  // lands repacks it past its gc.auto, with deltas, one machine at a time.
  test("a push to a path remote repacks it past its gc.auto: packed with deltas, fsck --strict, every clone and native git read it", { timeout: 240_000 }, async () => {
    const root = tempDir();
    const hub = path.join(root, "hub.git");
    gitOk(root, "init", "-q", "--bare", "-b", "main", hub);
    gitOk(hub, "config", "gc.auto", "40");
    const a = path.join(root, "a");
    assert.equal((await memsync(["init", a])).code, 0);
    assert.equal((await memsync(["--store", a, "remote", "set", hub])).code, 0);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await memsyncJson(["--store", a, "save", `memory ${i} on the shared disk`])).memory.id);
    let s = await memsyncAsync(["--store", a, "sync"]);
    assert.equal(s.code, 0, s.stderr);
    const b = path.join(root, "b");
    const c = await memsyncAsync(["clone", hub, b]);
    assert.equal(c.code, 0, c.stderr);
    // a lock left by a repack killed a minute ago: this push leaves the remote alone
    fs.writeFileSync(path.join(hub, "memsync-repack.lock"), "");
    for (let round = 0; round < 24; round++) {
      const d = round % 2 ? a : b;
      await memsyncJson(["--store", d, "touch", ids[round % ids.length]!]);
      s = await memsyncAsync(["--store", d, "sync"]);
      assert.equal(s.code, 0, s.stderr);
      if (round === 11) {
        assert.ok(countObjects(hub).loose > 40, `a locked remote is not repacked: ${JSON.stringify(countObjects(hub))}`);
        fs.rmSync(path.join(hub, "memsync-repack.lock"));
      }
    }
    const after = countObjects(hub);
    assert.ok(after.loose <= 40 && after.packs >= 1, `the hub repacked past gc.auto 40: ${JSON.stringify(after)}`);
    assert.ok(!fs.existsSync(path.join(hub, "memsync-repack.lock")), "the lock is gone");
    gitOk(hub, "fsck", "--strict");
    const packs = fs.readdirSync(path.join(hub, "objects", "pack")).filter((n) => n.endsWith(".idx"));
    const deltas = packs.flatMap((p) => gitOk(hub, "verify-pack", "-v", path.join("objects", "pack", p)).split("\n")).filter((l) => /^[0-9a-f]{40} (tree|blob) +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l));
    assert.ok(deltas.length > 10, `versions stored as deltas: ${deltas.length}`);
    // both machines and native git read the repacked hub; a new clone holds what both have
    for (const d of [a, b]) {
      const t = await memsyncAsync(["--store", d, "sync"]);
      assert.equal(t.code, 0, t.stderr);
    }
    const records = (d: string) => [...snapshot(d, (rel) => rel === ".git" || rel === ".memsync")].map(([k, v]) => `${k} ${v}`).sort();
    assert.deepEqual(records(a), records(b));
    const fresh = path.join(root, "fresh");
    const f = await memsyncAsync(["clone", hub, fresh]);
    assert.equal(f.code, 0, f.stderr);
    assert.deepEqual(records(fresh), records(a));
    const nativeClone = path.join(root, "native");
    gitOk(root, "clone", "-q", hub, nativeClone);
    assert.deepEqual(records(nativeClone), records(a));
  });
});
