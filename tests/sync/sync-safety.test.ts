import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binaryThenInProcess, git, memsyncAsync, readMemoryFile, tempDir } from "../helpers/env.ts";
import { healthy as healthyStores, type Hub, hub, killAfter, machine as storeOn, synced } from "../helpers/hub.ts";

// each command's first run through the binary, the rest in-process (tests/helpers/env.ts)
const { memsync, memsyncJson, saveMany } = binaryThenInProcess();

// Sync that never loses a write: writes racing syncs, syncs killed mid-checkout, corrupt files,
// native git half-way through a merge, commits killed mid-way. Real processes, real git.

/** Each clone is its own machine (its folder's name). */
const machine = (h: Hub, name: string) => storeOn(h.root, name, h.bare, { MEMSYNC_MACHINE: name });
const onMachine = (dir: string, extra: Record<string, string> = {}) => ({ env: { MEMSYNC_MACHINE: path.basename(dir), ...extra } });
const run = async (dir: string, args: string[], extra: Record<string, string> = {}) => await memsync(["--store", dir, ...args], onMachine(dir, extra));
const runJson = async (dir: string, ...args: string[]) => await memsyncJson(["--store", dir, ...args], onMachine(dir));
const sync = async (dir: string) => await runJson(dir, "sync");
const save = async (dir: string, text: string) => (await runJson(dir, "save", text)).memory.id as string;
const touch = async (dir: string, ...ids: string[]) => await runJson(dir, "touch", ...ids);
const uses = (dir: string, id: string) => readMemoryFile(dir, id).use_count as number;

const healthy = (...dirs: string[]) => healthyStores(dirs);

describe("writes made while syncs run", () => {
  test("every acknowledged touch and edit survives syncs running on two clones at once (and two syncs of one clone)", { timeout: 400_000 }, async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    // x: touched on a, edited on b; y: the other way round (each memory's count and text
    // change on one machine only, so every loss is a loss of this machine's sync)
    const x = await save(a, "x: touched on a, edited on b");
    const y = await save(a, "y: touched on b, edited on a");
    await sync(a);
    await sync(b);
    const base = { x: uses(a, x), y: uses(a, y) };
    const acked = { touchX: 0, touchY: 0, textX: "", textY: "" };
    const codes: number[] = [];
    let writing = true;
    const writer = async (dir: string, touchId: string, editId: string, who: "a" | "b") => {
      for (let i = 0; i < 10; i++) {
        const t = await memsyncAsync(["--store", dir, "touch", touchId], onMachine(dir));
        if (t.code === 0) who === "a" ? acked.touchX++ : acked.touchY++;
        else codes.push(t.code);
        const text = `edit ${i} on ${who}`;
        const u = await memsyncAsync(["--store", dir, "update", editId, "--content", text], onMachine(dir));
        if (u.code === 0) who === "a" ? (acked.textY = text) : (acked.textX = text);
        else codes.push(u.code);
      }
    };
    const syncer = async (dir: string) => {
      while (writing) {
        const r = await memsyncAsync(["--store", dir, "sync"], onMachine(dir));
        // 6: a push that gave up while the remote kept moving (nothing lost, sync again)
        assert.ok(r.code === 0 || r.code === 6, `sync exited ${r.code}: ${r.stderr}`);
      }
    };
    const syncs = [syncer(a), syncer(b), syncer(a)];
    try {
      await Promise.all([writer(a, x, y, "a"), writer(b, y, x, "b")]);
    } finally {
      // the syncers stop even when a writer failed, so none outlives this test into the next
      writing = false;
      await Promise.allSettled(syncs);
    }
    await Promise.all(syncs);
    assert.deepEqual(codes, [], "every write was acknowledged");
    for (const d of [a, b, a, b]) await sync(d);
    for (const d of [a, b]) {
      assert.equal(uses(d, x), base.x + acked.touchX, `${d}: every touch of x counted`);
      assert.equal(uses(d, y), base.y + acked.touchY, `${d}: every touch of y counted`);
      const mx = readMemoryFile(d, x);
      const my = readMemoryFile(d, y);
      assert.ok(mx.content === acked.textX || (mx.content_conflicts ?? []).some((c: { content: string }) => c.content === acked.textX), `${d}: the last edit of x is kept`);
      assert.ok(my.content === acked.textY || (my.content_conflicts ?? []).some((c: { content: string }) => c.content === acked.textY), `${d}: the last edit of y is kept`);
    }
    assert.deepEqual(synced(a), synced(b), "both clones hold the same files");
    healthy(a, b, h.bare);
    // 40 writes (each its own commit) and three looping syncs: 120-133 s at load 40-50 on 2
    // cores (measured); room for three times that
  });
});

describe("a sync killed in the middle of its checkout", () => {
  for (const point of ["checkout-file:1", "checkout-file:3", "checkout-index", "checkout-ref"]) {
    test(`killed at ${point}: the next sync finishes it; writes made in between count once`, { timeout: 240_000 }, async () => {
      const h = hub();
      const a = machine(h, "a");
      const b = machine(h, "b");
      const ids = await saveMany(a, ["one", "two", "three", "four"].map((t) => `memory ${t}`), onMachine(a));
      await sync(a);
      await sync(b);
      const base = uses(a, ids[0]!);
      await touch(b, ...ids);
      await touch(b, ...ids);
      await sync(b);
      await touch(a, ...ids);
      const killed = await run(a, ["sync"], { MEMSYNC_FAULT: point });
      assert.equal(killed.code, -1, `the sync was killed at ${point}: ${killed.stderr}`);
      // writes after the kill, before anything finishes the checkout: some files already hold
      // the merge, some not yet
      await touch(a, ids[0]!, ids[3]!);
      await sync(a);
      await sync(b);
      await sync(a);
      for (const d of [a, b]) {
        ids.forEach((id, i) => assert.equal(uses(d, id), base + 3 + (i === 0 || i === 3 ? 1 : 0), `${d} ${point}: memory ${i} counts every touch once`));
      }
      assert.deepEqual(synced(a), synced(b));
      healthy(a, b, h.bare);
    });
  }
});

describe("a corrupt record file", () => {
  test("is never committed: sync exits 7 naming it after doing the rest; other machines keep the good copy; a pull leaves it alone", async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    const x = await save(a, "a good memory");
    const y = await save(a, "another memory");
    await sync(a);
    await sync(b);
    const rel = `memories/${x}.json`;
    const good = fs.readFileSync(path.join(a, rel), "utf8");
    const truncated = good.slice(0, 40);
    fs.writeFileSync(path.join(a, rel), truncated);
    await touch(a, y);
    // cut short in place (its folder's mtime unchanged): a sync looks only into folders whose
    // mtime moved, so the file is found by a full look first (status, as git status stats every
    // file); a sync alone never commits it either
    assert.match((await run(a, ["status"])).stdout, new RegExp(`problem: ${rel}`));
    const r = await run(a, ["sync", "--json"]);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, new RegExp(`corrupt record file not committed.*${rel}`));
    assert.equal(r.stderr.trim().split("\n").length, 1, "one line");
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.commit.skipped.map((s: { path: string }) => s.path), [rel]);
    assert.equal(out.push.pushed, true, "the good change was pushed all the same");
    assert.equal(git(a, "show", `HEAD:${rel}`).stdout, good, "history keeps the last good version");
    assert.equal(fs.readFileSync(path.join(a, rel), "utf8"), truncated, "the file is left as it is");
    await sync(b);
    assert.equal(fs.readFileSync(path.join(b, rel), "utf8"), good, "the other machine keeps the good copy");
    assert.equal(uses(b, y), uses(a, y), "and gets the good change");
    // the other machine changes the memory: a's pull brings it into history, not over the file
    await touch(b, x);
    await sync(b);
    const again = await run(a, ["sync", "--json"]);
    assert.equal(again.code, 7, "reported again until fixed");
    assert.deepEqual(JSON.parse(again.stdout).pull.skipped, [rel]);
    assert.equal(fs.readFileSync(path.join(a, rel), "utf8"), truncated);
    assert.equal(JSON.parse(git(a, "show", `HEAD:${rel}`).stdout).use_count, uses(b, x));
    const commit = await run(a, ["commit"]);
    assert.equal(commit.code, 7);
    assert.match(commit.stdout, new RegExp(`not committed \\(corrupt\\): ${rel}`));
    assert.match((await run(a, ["status"])).stdout, new RegExp(`problem: ${rel}`));
    assert.equal(git(a, "fsck", "--strict", "--no-dangling").status, 0);
    // restored with git: clean again
    assert.equal(git(a, "checkout", "--", rel).status, 0);
    assert.equal((await run(a, ["sync"])).code, 0);
    assert.deepEqual(synced(a), synced(b));
    healthy(a, b, h.bare);
  });

  test("an edit by hand that broke the file, fixed after a pull took another machine's edit of it: the fix is merged, never committed over that edit", async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    const x = await save(a, "We use PostgreSQL 16");
    await sync(a);
    await sync(b);
    const rel = `memories/${x}.json`;
    const file = path.join(a, rel);
    // edited in place by hand, a comma lost on the way
    const broken = fs.readFileSync(file, "utf8").replace('"We use PostgreSQL 16"', '"We use PostgreSQL 16 with pgvector"').replace('"strength": 1,', '"strength": 1');
    fs.writeFileSync(file, broken);
    assert.match((await run(a, ["status"])).stdout, new RegExp(`problem: ${rel}`));
    assert.equal((await run(b, ["update", x, "--content", "We use PostgreSQL 16 on RDS", "--add-tag", "db"])).code, 0);
    await touch(b, x);
    await sync(b);
    assert.equal((await run(a, ["sync"])).code, 7, "the broken file is left alone; history takes b's edit");
    fs.writeFileSync(file, broken.replace('"strength": 1\n', '"strength": 1,\n')); // fixed
    const fixed = await run(a, ["sync"]);
    assert.equal(fixed.code, 0, fixed.stderr);
    const merged = readMemoryFile(a, x);
    assert.deepEqual([merged.content, ...(merged.content_conflicts ?? []).map((c: { content: string }) => c.content)].sort(), ["We use PostgreSQL 16 on RDS", "We use PostgreSQL 16 with pgvector"], "both texts kept");
    assert.deepEqual(merged.meta.tags, ["db"], "b's label kept");
    assert.equal(merged.use_count, 1, "b's use kept");
    assert.equal(JSON.parse(git(a, "show", `HEAD:${rel}`).stdout).content, merged.content, "committed as merged");
    assert.equal(fs.existsSync(path.join(a, ".memsync/corrupt-bases.json")), false);
    await sync(b);
    assert.deepEqual(synced(a), synced(b));
    healthy(a, b, h.bare);
  });

  test("restored with git checkout -- FILE, as the refusal says: the very next commit is clean and says nothing of it", async () => {
    // processes every time, as a person at a shell runs them
    const cli = async (dir: string, ...args: string[]) => await memsyncAsync(["--store", dir, ...args], onMachine(dir));
    const h = hub();
    const a = machine(h, "a");
    const x = JSON.parse((await cli(a, "save", "a memory cut short by hand", "--json")).stdout).memory.id as string;
    const y = JSON.parse((await cli(a, "save", "a memory touched meanwhile", "--json")).stdout).memory.id as string;
    assert.equal((await cli(a, "commit")).code, 0);
    const rel = `memories/${x}.json`;
    const good = fs.readFileSync(path.join(a, rel), "utf8");
    fs.writeFileSync(path.join(a, rel), good.slice(0, 40)); // in place
    assert.equal((await cli(a, "touch", y)).code, 0);
    assert.match((await cli(a, "status")).stdout, new RegExp(`problem: ${rel}`));
    // refused: the journal keeps an entry holding the cut text, and the skip
    assert.equal((await cli(a, "commit")).code, 7);
    assert.match((await cli(a, "status")).stdout, new RegExp(`problem: ${rel}`));
    assert.equal(git(a, "checkout", "--", rel).status, 0);
    // that entry's text is still the cut one: the file, as history has it now, clears the skip
    const r = await cli(a, "commit");
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /corrupt/);
    assert.equal(fs.readFileSync(path.join(a, rel), "utf8"), good);
    assert.equal(git(a, "status", "--porcelain").stdout, "");
    assert.equal((await cli(a, "commit")).code, 0, "and stays clean");
  });

  test("a .meta.json that does not validate is not committed either", async () => {
    const h = hub();
    const a = machine(h, "a");
    await sync(a);
    const good = git(a, "show", "HEAD:.meta.json").stdout;
    const meta = JSON.parse(good);
    meta.settings.layout = 42;
    fs.writeFileSync(path.join(a, ".meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
    fs.rmSync(path.join(a, ".memsync/committed.json")); // the next commit compares every file
    const r = await run(a, ["commit"]);
    // 7: left out of the commit and named; 6: a store whose settings do not validate is refused whole
    assert.ok(r.code === 7 || r.code === 6, `exit ${r.code}: ${r.stderr}`);
    assert.match(r.stderr, /\.meta\.json/);
    assert.equal(git(a, "show", "HEAD:.meta.json").stdout, good);
  });
});

describe("native git in the middle of an operation", () => {
  test("a modify/delete conflict left by git pull is refused (exit 5, nothing changed); after git merge --abort, memsync's merge counts right", async () => {
    const h = hub();
    const a = machine(h, "a");
    const b = machine(h, "b");
    const x = await save(a, "deleted on a, used on b");
    await touch(a, x);
    await sync(a);
    await sync(b);
    const base = uses(b, x);
    await runJson(a, "delete", x);
    await sync(a);
    for (let i = 0; i < 3; i++) await touch(b, x);
    await runJson(b, "commit");
    const pulled = git(b, "pull", "--no-rebase", "-q", "origin", "main");
    assert.notEqual(pulled.status, 0, "native git stops at the modify/delete conflict");
    assert.equal(fs.existsSync(path.join(b, ".git/MERGE_HEAD")), true);
    const before = { files: synced(b), head: git(b, "rev-parse", "HEAD").stdout, index: fs.readFileSync(path.join(b, ".git/index")) };
    for (const verb of ["sync", "pull", "push", "commit"]) {
      const r = await run(b, [verb]);
      assert.equal(r.code, 5, `${verb}: ${r.stderr}`);
      assert.match(r.stderr, /git merge --abort/);
      assert.equal(r.stderr.trim().split("\n").length, 1);
    }
    assert.deepEqual(synced(b), before.files, "no file changed");
    assert.equal(git(b, "rev-parse", "HEAD").stdout, before.head, "the branch did not move");
    assert.deepEqual(fs.readFileSync(path.join(b, ".git/index")), before.index, "git's index did not change");
    // conflicts left in the index without MERGE_HEAD (a stash pop, say) are refused as well
    fs.renameSync(path.join(b, ".git/MERGE_HEAD"), path.join(b, "MERGE_HEAD.aside"));
    const unmerged = await run(b, ["sync"]);
    assert.equal(unmerged.code, 5);
    assert.match(unmerged.stderr, /unresolved conflict/);
    fs.renameSync(path.join(b, "MERGE_HEAD.aside"), path.join(b, ".git/MERGE_HEAD"));
    assert.equal(git(b, "merge", "--abort").status, 0);
    await sync(b);
    await sync(a);
    for (const d of [a, b]) assert.equal(uses(d, x), base + 3, `${d}: the memory used on b comes back with b's uses, counted once`);
    assert.deepEqual(synced(a), synced(b));
    healthy(a, b, h.bare);
  });
});

describe("a commit killed at any point", () => {
  test("never leaves git's index without a committed path: native git commit deletes nothing, and memsync's next commit leaves git clean", { timeout: 300_000 }, async () => {
    const s = path.join(tempDir(), "store");
    assert.equal((await memsync(["init", s])).code, 0);
    await save(s, "the first memory");
    await runJson(s, "commit");
    const treePaths = () => new Set(git(s, "ls-tree", "-r", "--name-only", "HEAD").stdout.trim().split("\n").filter((p) => p.startsWith("memories/")));
    let committed = treePaths();
    const faults = ["commit-index", "commit-ref"];
    let finished = 0;
    for (let i = 0; i < 18; i++) {
      await save(s, `memory number ${i}`);
      if (i % 3 === 0) await touch(s, ...[...committed].slice(0, 2).map((p) => p.slice(p.lastIndexOf("/") + 1, -5)));
      // a kill at a random instant, and (every few rounds) exactly between the index and the branch
      const code = i < faults.length * 2
        ? (await run(s, ["commit"], { MEMSYNC_FAULT: faults[i % faults.length]! })).code
        : await killAfter(["--store", s, "commit"], Math.floor(Math.random() * 120));
      if (code === 0) finished++;
      const lock = path.join(s, ".git/index.lock");
      if (fs.existsSync(lock)) {
        // killed in the microseconds between taking git's lock and renaming it over the index: the
        // lock is memsync's own (a temp of its shares the inode), and its next command clears it
        // (as git's own lock stays behind a killed git); then native git goes on
        const ino = fs.statSync(lock).ino;
        const gitdir = path.join(s, ".git");
        assert.ok(fs.readdirSync(gitdir).some((n) => n.startsWith("memsync-index-") && fs.statSync(path.join(gitdir, n)).ino === ino), `round ${i}: a lock left behind is memsync's own`);
        assert.equal((await run(s, ["commit"])).code, 0);
        assert.ok(!fs.existsSync(lock), `round ${i}: memsync's next commit cleared its lock`);
      }
      const native = git(s, "commit", "-q", "-m", `native ${i}`, "--allow-empty");
      assert.equal(native.status, 0, native.stderr);
      const now = treePaths();
      for (const p of committed) assert.ok(now.has(p), `round ${i}: native git commit kept ${p}`);
      committed = now;
      assert.equal((await run(s, ["commit"])).code, 0);
      assert.equal(git(s, "status", "--porcelain").stdout, "", `round ${i}: clean after memsync commit`);
      committed = treePaths();
    }
    assert.equal(committed.size, 19, "every memory is in history");
    assert.ok(finished < 18, "some commits were killed");
    assert.equal(git(s, "fsck", "--strict", "--no-dangling").status, 0);
  });
});
